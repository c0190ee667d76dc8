"""A stack's data as Heat's ``Stack.prepare_abandon`` gives it (``heat/engine/stack.py``,
``heat/engine/resource.py`` ``prepare_abandon``): what abandon and export answer and what a
snapshot stores.

More in docs/code/convergence.md (app.convergence.store.stack_data).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.convergence.store import attrdata, definitions
from app.models import RawTemplate, Resource, Stack
from app.resource_types import _wait

#: ``rsrc_data`` keys that are Stoker's own bookkeeping, not the plugin's resource data
_PRIVATE = ("nested",)


def resource_data(data: dict[str, Any] | None) -> dict[str, Any]:
    """The plugin's part of a row's ``rsrc_data``."""
    return {k: v for k, v in (data or {}).items() if not k.startswith("_") and k not in _PRIVATE}


def _metadata(loaded: Any, name: str, data: dict[str, Any], row: Resource) -> Any:
    if _wait.METADATA in (row.rsrc_data or {}):
        return _wait.metadata_of(row.rsrc_data)
    try:
        return loaded.definition.resolve_metadata(name, attrdata.DataContext(data)) or {}
    except Exception:  # a resource the template no longer has, or unresolvable: none
        return {}


def environment(raw: RawTemplate) -> dict[str, Any]:
    """The stored (merged) environment with every section Heat shows."""
    env = dict(raw.environment or {})
    for k, v in (("parameters", {}), ("parameter_defaults", {}), ("event_sinks", []),
                 ("encrypted_param_names", [])):
        env.setdefault(k, v)
    env["resource_registry"] = {"resources": {}, **(env.get("resource_registry") or {})}
    return env


def of(s: Session, st: Stack) -> dict[str, Any]:
    """Stack ``st``'s data (module docstring), read in ``s``. O(resources of the tree)."""
    raw = s.get(RawTemplate, st.raw_template_id)
    assert raw is not None
    rows = list(s.execute(select(Resource).where(Resource.stack_id == st.id)
                          .order_by(Resource.id)).scalars())
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    attrs = {r.name: r.attr_data for r in rows}
    return {"name": st.name, "id": st.id, "action": st.action, "environment": environment(raw),
            "files": dict(raw.files or {}), "status": st.status,
            "template": dict(raw.template),
            "resources": {r.name: _resource(s, r, loaded, attrs) for r in rows},
            "project_id": st.tenant, "stack_user_project_id": None, "tags": st.tags}


def _resource(s: Session, r: Resource, loaded: Any, attrs: dict[str, Any]) -> dict[str, Any]:
    if (r.rsrc_data or {}).get("nested"):
        child = s.get(Stack, r.physical_resource_id) if r.physical_resource_id else None
        if child is None or child.deleted_at is not None:
            return {}
        return of(s, child)
    return {"name": r.name, "resource_id": r.physical_resource_id, "type": r.type,
            "action": r.action, "status": r.status,
            "metadata": _metadata(loaded, r.name, attrs, r),
            "resource_data": resource_data(r.rsrc_data)}
