"""Stack operations for the API: create, look up, show, list, delete.

Every write happens in one transaction, after every validation: bad input raises before anything
is persisted (no half-written stack). Work is enqueued only after commit. Errors follow Heat:
``StackExists`` (409), ``EntityNotFound`` (404), ``StackValidationFailed`` & co (400),
``RequestLimitExceeded`` (400).
"""
from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from app import config, errors
from app.context import RequestContext
from app.models import RawTemplate, Stack, new_id, read_session, session
from app.services import definitions, environments, traversals

NAME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise errors.BadRequest(
            f'Invalid stack name {name} must contain only alphanumeric or "_-." characters, '
            "must start with alpha and must be 255 characters or less.", heat_type="StackValidationFailed")


NOT_MAPPING = "Template not in valid format: The template is not a JSON object or YAML mapping."


def check_request(template: Any, files: Any, max_size: int) -> None:
    """What every template-taking request must satisfy before anything is parsed.

    :raises errors.BadRequest: no template, a template that is neither a mapping nor text, a
        files map that is not ``{name: text}``.
    :raises errors.RequestLimitExceeded: the template is larger than ``max_template_size``.
    """
    if template is None:
        raise errors.BadRequest("No template specified")
    if not isinstance(template, (dict, str, bytes)):
        raise errors.BadRequest(NOT_MAPPING)
    if files is not None and (not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items())):
        raise errors.BadRequest("The files map must map file names to their contents (text).")
    try:
        size = _template_size(template)
    except (TypeError, ValueError, RecursionError) as exc:
        raise errors.BadRequest(NOT_MAPPING) from exc
    if size > max_size:
        raise errors.RequestLimitExceeded(
            f"Template size ({size} bytes) exceeds maximum allowed size ({max_size} bytes).")


def _template_size(template: Any) -> int:
    if isinstance(template, bytes):
        return len(template)
    if isinstance(template, str):
        return len(template.encode())
    return len(json.dumps(template))


def create_stack(ctx: RequestContext, *, stack_name: str, template: Any,
                 parameters: dict[str, Any] | None = None, files: dict[str, Any] | None = None,
                 environment: Any = None, environment_files: list[str] | None = None,
                 timeout_mins: int | None = None, disable_rollback: bool = True,
                 tags: list[str] | None = None, parent_id: str | None = None,
                 nested_depth: int = 0, nested_info: dict[str, Any] | None = None) -> Stack:
    """Validate and create a stack, then enqueue its CREATE traversal.

    :param template: a mapping or YAML/JSON text.
    :returns: the new stack row (CREATE_IN_PROGRESS, or already final with an inline dispatcher).
    :raises errors.StackExists, errors.TemplateError, errors.ParameterError, errors.BadRequest,
        errors.RequestLimitExceeded: nothing is persisted then.
    """
    settings = config.get()
    _check_name(stack_name)
    check_request(template, files, settings.max_template_size)
    if tags is not None and (not isinstance(tags, list)
                             or not all(isinstance(t, str) for t in tags)):
        raise errors.BadRequest("tags must be a comma-separated string or a list of strings.")
    files = dict(files or {})
    merged = environments.merge(environment, parameters, environment_files, files,
                                template)
    params = merged["parameters"]
    env = {k: v for k, v in merged.items() if k != "parameters"}
    stack_id = new_id()
    ident = definitions.identity(stack_name, stack_id, ctx.tenant_id)
    tmpl, definition, _ = definitions.parse_and_instantiate(
        template, files, env, params, ident, (nested_info or {}).get("facade"), cloud=True)
    if len(definition.resources) > settings.max_resources_per_stack:
        raise errors.RequestLimitExceeded(
            "You have reached the maximum resources per stack, "
            f"{settings.max_resources_per_stack}. Please delete some resources.")
    loaded = definitions.Loaded.of(definition)
    raw_mapping = tmpl.raw
    try:
        with session() as s:
            if s.execute(select(Stack.id).where(Stack.tenant == ctx.tenant_id,
                                                Stack.name == stack_name,
                                                Stack.deleted_at.is_(None))).first():
                raise errors.StackExists(stack_name)
            live = s.execute(select(func.count()).select_from(Stack).where(
                Stack.tenant == ctx.tenant_id, Stack.deleted_at.is_(None),
                Stack.parent_id.is_(None))).scalar() or 0
            if parent_id is None and live >= settings.max_stacks_per_tenant:
                raise errors.RequestLimitExceeded(
                    f"You have reached the maximum stacks per tenant, "
                    f"{settings.max_stacks_per_tenant}. Please delete some stacks.")
            raw = RawTemplate(template=raw_mapping, files=files, environment=merged)
            s.add(raw)
            s.flush()
            st = Stack(id=stack_id, name=stack_name, tenant=ctx.tenant_id,
                       username=ctx.username, user_id=ctx.user_id, raw_template_id=raw.id,
                       parameters=params, parameters_show=definition.parameters_for_show(),
                       description=description_of(raw_mapping), disable_rollback=disable_rollback,
                       timeout_mins=timeout_mins, tags=tags or None, parent_id=parent_id,
                       nested_depth=nested_depth, nested_info=nested_info)
            s.add(st)
            s.flush()
            definitions.seed((stack_id, raw.id), loaded)
            traversals.start_create(s, st, loaded)
    except IntegrityError as exc:  # a concurrent create of the same name won the race
        raise errors.StackExists(stack_name) from exc
    return get_by_id(ctx, stack_id)


def description_of(raw: Any) -> str:
    """A template mapping's ``description`` (HOT) or ``Description`` (CFN); "" if none."""
    if isinstance(raw, dict):
        d = raw.get("description", raw.get("Description", ""))
        return d if isinstance(d, str) else ""
    return ""


def get_by_id(ctx: RequestContext, stack_id: str) -> Stack:
    """The stack with this id in the caller's tenant (deleted ones too). :raises NotFound."""
    with read_session() as s:
        st = s.get(Stack, stack_id)
    if st is None or st.tenant != ctx.tenant_id:
        raise errors.NotFound("Stack", stack_id)
    return st


def lookup_stack(ctx: RequestContext, stack_identity: str) -> Stack:
    """A live stack by name, else any stack by id (Heat's ``identify_stack``). :raises NotFound."""
    with read_session() as s:
        st = s.execute(select(Stack).where(Stack.tenant == ctx.tenant_id,
                                           Stack.name == stack_identity,
                                           Stack.deleted_at.is_(None))).scalar()
        if st is None:
            st = s.get(Stack, stack_identity)
    if st is None or st.tenant != ctx.tenant_id:
        raise errors.NotFound("Stack", stack_identity)
    return st


def get_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> Stack:
    """The stack ``stack_name``/``stack_id``; both must match. :raises NotFound."""
    try:
        st = get_by_id(ctx, stack_id)
    except errors.NotFound:
        raise errors.NotFound("Stack", stack_name) from None
    if st.name != stack_name:
        raise errors.NotFound("Stack", stack_name)
    return st


SORT_KEYS = {"created_at": Stack.created_at, "updated_at": Stack.updated_at,
             "stack_name": Stack.name, "stack_status": Stack.status, "name": Stack.name,
             "status": Stack.status}


def list_stacks(ctx: RequestContext, *, show_deleted: bool = False,
                filters: dict[str, Any] | None = None, limit: int | None = None,
                marker: str | None = None, sort_keys: list[str] | None = None,
                sort_dir: str | None = None, show_nested: bool = False) -> list[Stack]:
    """The tenant's stacks, newest first by default (Heat's default sort: created_at desc).

    ``filters``: stack_name/name, id, status (``COMPLETE``...), action, stack_status (full).
    :raises errors.BadRequest: unknown sort key or bad marker.
    """
    q = select(Stack).where(Stack.tenant == ctx.tenant_id)
    if not show_deleted:
        q = q.where(Stack.deleted_at.is_(None))
    if not show_nested:
        q = q.where(Stack.parent_id.is_(None))
    for key, value in (filters or {}).items():
        values = value if isinstance(value, list) else [value]
        col = {"stack_name": Stack.name, "name": Stack.name, "id": Stack.id,
               "status": Stack.status, "action": Stack.action}.get(key)
        if col is not None:
            q = q.where(col.in_(values))
        elif key == "stack_status":
            q = q.where((Stack.action + "_" + Stack.status).in_(values))
    keys = sort_keys or ["created_at"]
    if (sort_dir or "desc").lower() not in ("asc", "desc"):
        raise errors.BadRequest("Unknown sort direction, must be one of: asc, desc")
    desc = (sort_dir or "desc").lower() == "desc"
    for k in keys:
        col = SORT_KEYS.get(k)
        if col is None:
            raise errors.BadRequest(f"Sort key {k} not supported")
        q = q.order_by(col.desc() if desc else col.asc())
    q = q.order_by(Stack.id)
    with read_session() as s:
        rows = list(s.execute(q).scalars())
    if marker:
        ids = [r.id for r in rows]
        if marker not in ids:
            raise errors.NotFound("Stack", marker)
        rows = rows[ids.index(marker) + 1:]
    if limit is not None:
        rows = rows[:max(0, int(limit))]
    return rows


def delete_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Start deleting a stack (its DELETE traversal supersedes any action in progress).

    :raises NotFound: unknown, another tenant's, or already deleted.
    """
    st = get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or st.stack_status == "DELETE_COMPLETE":
        raise errors.NotFound("Stack", stack_name)
    with session() as s:
        row = s.get(Stack, st.id)
        assert row is not None
        traversals.start_reverse(s, row, "DELETE")


def stack_outputs(stack: Stack) -> list[dict[str, Any]]:
    """Resolved outputs stored when the last traversal ended (``[]`` while in progress)."""
    return list(stack.outputs or [])


def _raw(stack: Stack) -> RawTemplate:
    with read_session() as s:
        raw = s.get(RawTemplate, stack.raw_template_id)
    assert raw is not None
    return raw


def get_template(ctx: RequestContext, stack: Stack) -> dict[str, Any]:
    return dict(_raw(stack).template)


def get_environment(ctx: RequestContext, stack: Stack) -> dict[str, Any]:
    """The stored (merged) environment in Heat's shape: every section present, and
    ``resource_registry.resources`` always (``heat-reference/api-samples/environment_show``)."""
    env = dict(_raw(stack).environment or {})
    for k, v in (("parameters", {}), ("parameter_defaults", {}), ("event_sinks", []),
                 ("encrypted_param_names", [])):
        env.setdefault(k, v)
    env["resource_registry"] = {"resources": {}, **(env.get("resource_registry") or {})}
    return env


def get_files(ctx: RequestContext, stack: Stack) -> dict[str, Any]:
    return dict(_raw(stack).files or {})


def preview_stack(ctx: RequestContext, *, stack_name: str, template: Any,
                  parameters: dict[str, Any] | None = None, files: dict[str, Any] | None = None,
                  environment: Any = None, environment_files: list[str] | None = None,
                  timeout_mins: int | None = None, disable_rollback: bool = True,
                  tags: list[str] | None = None) -> dict[str, Any]:
    """Heat's ``POST /stacks/preview``: validate exactly as create does and describe the stack
    and its resources (``INIT_COMPLETE``, properties as known before anything exists: values
    that depend on other resources are null). Nothing is persisted.

    :returns: ``{"stack_name", "id": "None", "description", "parameters", "timeout_mins",
        "disable_rollback", "tags", "resources": [...]}``.
    :raises: as :func:`create_stack`.
    """
    settings = config.get()
    _check_name(stack_name)
    check_request(template, files, settings.max_template_size)
    files = dict(files or {})
    merged = environments.merge(environment, parameters, environment_files, files, template)
    params = merged["parameters"]
    env = {k: v for k, v in merged.items() if k != "parameters"}
    ident = definitions.identity(stack_name, "None", ctx.tenant_id)
    tmpl, definition, _ = definitions.parse_and_instantiate(template, files, env, params, ident,
                                                            cloud=True)
    required_by = definitions.Loaded.of(definition).required_by
    from app.templates.functions.base import UNKNOWN

    def known(value: Any) -> Any:
        if value is UNKNOWN:
            return None
        if isinstance(value, dict):
            return {k: known(v) for k, v in value.items()}
        if isinstance(value, list):
            return [known(v) for v in value]
        return value

    resources = [{"resource_name": name, "logical_resource_id": name,
                  "resource_type": rdef.type, "resource_action": "INIT",
                  "resource_status": "COMPLETE", "resource_status_reason": "",
                  "physical_resource_id": "", "description": rdef.description or "",
                  "stack_name": stack_name, "metadata": {},
                  "properties": known(definition.static_properties(name)),
                  "required_by": sorted(required_by.get(name, ()))}
                 for name, rdef in definition.resources.items()]
    template_desc = description_of(tmpl.raw)
    return {"stack_name": stack_name, "id": "None", "description": template_desc,
            "template_description": template_desc,
            "parameters": definition.parameters_for_show(), "timeout_mins": timeout_mins,
            "disable_rollback": disable_rollback, "tags": tags, "capabilities": [],
            "notification_topics": [], "stack_owner": ctx.username, "parent": None,
            "resources": resources}

