"""Cross-stack exports: the rules a create, update or delete must keep, and the listings.

As CloudFormation's exports (AWS's messages): an import of a name no live stack of the project
exports fails the create or update before anything is written ("No export named <name>
found."); a name another stack exports cannot be exported again ("Export with name <name> is
already exported by stack <stack>."); an export some other stack imports cannot change value
or go away ("Export <name> cannot be updated|deleted as it is in use by <stacks>"), so the
exporting stack cannot be deleted while it is imported. Exports are per project (tenant).
The values are stored when the exporting stack's outputs are (:mod:`app.convergence.traversal`).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.convergence.store import definitions as loaded_defs
from app.convergence.store import exports as stored_exports
from app.models import Stack, read_session
from app.models import exports as rows
from app.templates import UNKNOWN
from app.templates import exports as template_exports

IN_USE = "ExportInUse"


def check(tenant: str, stack_id: str, definition: Any, *, new_stack: bool = False
          ) -> list[str]:
    """Bind the exports ``definition`` imports and check its exports against the project's
    (``stack_id``: the stack being created, ``new_stack``, or updated). An export in use
    keeps its value: refused here when known before any resource exists, else the update
    fails as it finishes if the value changed (:func:`app.convergence.store.exports
    .changed_in_use`, as AWS fails and rolls back such an update). A new stack that neither
    imports nor exports reads nothing. :returns: the imported names.

    :raises errors.ValidationError: a missing import, a name another stack exports.
    :raises errors.Conflict: an export in use that the new template changes or drops."""
    names = template_exports.imported_names(definition.template)
    new = template_exports.export_names(definition)
    if new_stack and not names and not new:
        template_exports.bind_imports(definition, {})
        return []
    with read_session() as s:
        found = loaded_defs.bind_imports(s, tenant, definition)
        missing = [n for n in names if n not in found]
        if missing:
            raise errors.ValidationError(f"No export named {missing[0]} found.")
        for name, row in rows.exports_named(s, tenant, new.values()).items():
            if row.stack_id != stack_id:
                owner = s.get(Stack, row.stack_id)
                raise errors.ValidationError(f"Export with name {name} is already exported by "
                                             f"stack {owner.name if owner else row.stack_id}.")
        if new_stack:
            return names
        old = rows.exports_of(s, stack_id)
        used = rows.importers(s, tenant, old, exclude=stack_id)
        keys = {name: key for key, name in new.items()}
        for name, stacks in used.items():
            if name not in keys:
                raise in_use(name, "deleted", stacks)
            value = definition.known_output(keys[name])
            if value is not UNKNOWN and value != old[name].value:
                raise in_use(name, "updated", stacks)
    return names


def in_use(name: str, verb: str, stacks: list[str]) -> errors.Conflict:
    """AWS's "Export <name> cannot be <verb> as it is in use by <stacks>" (409)."""
    return errors.Conflict(stored_exports.in_use_reason(name, verb, stacks), heat_type=IN_USE)


def check_delete(s: Any, st: Stack) -> None:
    """Refuse deleting ``st`` (in the deleting transaction ``s``) while another stack imports
    one of its exports. :raises errors.Conflict: naming the export and the importing stacks."""
    used = rows.importers(s, st.tenant, rows.exports_of(s, st.id), exclude=st.id)
    for name in sorted(used):
        raise in_use(name, "deleted", used[name])


def record_imports(s: Any, tenant: str, stack_id: str, names: list[str], *,
                   new: bool = False) -> None:
    """Store which exports the stack imports (the caller's transaction)."""
    rows.set_imports(s, tenant, stack_id, names, new=new)


def list_exports(ctx: RequestContext) -> list[dict[str, Any]]:
    """The project's exports by name: ``[{"name", "value", "stack_id", "stack_name",
    "output_key"}]`` (live stacks only). One indexed query."""
    with read_session() as s:
        found = s.execute(rows.live_exports(ctx.tenant_id)).all()
    return [{"name": e.name, "value": e.value, "stack_id": e.stack_id, "stack_name": name,
             "output_key": e.output_key} for e, name in found]


def names_by_output(stack_ids: list[str]) -> dict[str, dict[str, str]]:
    """``stack id -> {output key: export name}`` of the stacks' stored exports (one query)."""
    if not stack_ids:
        return {}
    with read_session() as s:
        found = s.execute(select(rows.StackExport.stack_id, rows.StackExport.output_key,
                                 rows.StackExport.name).where(
            rows.StackExport.stack_id.in_(stack_ids))).all()
    out: dict[str, dict[str, str]] = {}
    for stack_id, key, name in found:
        out.setdefault(stack_id, {})[key] = name
    return out


def list_imports(ctx: RequestContext, name: str) -> list[str]:
    """Names of the project's stacks importing export ``name``, sorted.

    :raises errors.NotFound: no live stack exports ``name``."""
    with read_session() as s:
        if name not in rows.exports_named(s, ctx.tenant_id, [name]):
            raise errors.NotFound("Export", name)
        return rows.importers(s, ctx.tenant_id, [name]).get(name, [])
