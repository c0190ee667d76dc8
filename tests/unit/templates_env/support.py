"""Helpers for the CFN / environment / registry tests: oracle vectors run the way the API runs
them (environment files merged by :func:`app.templates.env_merge.merge_request`), created by
the templates tests' small evaluator with registry-resolved types and nested environments."""
from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

from app.templates import Environment, StackDefinition, StackIdentity, parse
from app.templates.env_merge import merge_request, param_types_of
from tests.unit.templates import oracle_evaluator as ev
from tests.unit.templates.conftest import heat_type_schema

SHARED = (Path(__file__).resolve().parents[3] / "../shared").resolve()
VECTORS = SHARED / "oracle" / "vectors"
PREFIXES = ("cfn-", "env-", "nested-", "rg-", "ver-cfn-")

_original_create = ev.create


def vectors() -> list[dict[str, Any]]:
    """The oracle vectors of this issue (ids starting with :data:`PREFIXES`)."""
    if not VECTORS.is_dir():
        return []
    out = []
    for p in sorted(VECTORS.glob("*.json")):
        if p.stem.startswith(PREFIXES):
            out.append(json.loads(p.read_text()))
    return out


def request_of(v: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The files map and environment_files names heatclient would send for ``v``."""
    files = dict(v.get("files") or {})
    names = []
    for i, text in enumerate(v.get("environments") or [], start=1):
        files[f"env-{i}.yaml"] = text
        names.append(f"env-{i}.yaml")
    return files, names


def _view(stack: StackDefinition) -> StackDefinition:
    """``stack`` as the evaluator expects it: each resource's ``type`` is what to create (the
    provider template's key, or the registry-resolved built-in type)."""
    resources = {n: dataclasses.replace(r, type=r.template or r.implementation)
                 for n, r in stack.resources.items()}
    view = dataclasses.replace(stack, resources=resources)
    view.original = stack  # type: ignore[attr-defined]
    return view


def _create(stack: StackDefinition, stack_name: str = "vstack") -> Any:
    return _original_create(_view(stack), stack_name)


def _create_nested(stack: StackDefinition, name: str, values: dict[str, Any], out: Any,
                   stack_name: str) -> str:
    original = getattr(stack, "original", stack)
    rdef = original.resources[name]
    files = dict(stack.template.files)
    child_name = ev.physical_name(stack_name, name)
    env = Environment.from_mapping(original.nested_environment(name))
    # Heat's child_params: the properties the parent set (no schema defaults)
    values = original.resolve_properties(name, out)
    child_id = str(uuid.uuid4())
    child = parse(files[rdef.template], files).instantiate(
        values, env, StackIdentity(child_name, child_id, "project-id"), heat_type_schema,
        parent=ev.ParentFacade(metadata=stack.resolve_metadata(name, out),
                               deletion_policy=rdef.deletion_policy,
                               update_policy=rdef.update_policy))
    ev.plugin_validate(child)
    created = _create(child, child_name)
    out.refs[name] = f"arn:openstack:heat::project-id:stacks/{child_name}/{child_id}"
    out.attrs[name], out.errors_of[name] = {}, {}
    for o in child.resolve_outputs(created):
        if "output_error" in o:
            out.errors_of[name][o["output_key"]] = o["output_error"]
        else:
            out.attrs[name][o["output_key"]] = o["output_value"]
    return "CREATE_COMPLETE" if created.status == "CREATE_COMPLETE" else "CREATE_FAILED"


def run(v: dict[str, Any], monkeypatch: Any) -> tuple[StackDefinition, Any]:
    """Validate and create ``v`` as the API does; raises the validation error."""
    monkeypatch.setattr(ev, "create", _create)
    monkeypatch.setattr(ev, "create_nested", _create_nested)
    files, names = request_of(v)
    env = merge_request(None, v.get("parameters") or {}, names, files,
                        param_types_of(v["template"], files) if names else None)
    tmpl = parse(v["template"], files=files)
    stack = tmpl.instantiate({}, env, StackIdentity("vstack", "stack-id", "project-id"),
                             heat_type_schema)
    ev.plugin_validate(stack)
    return stack, _create(stack)
