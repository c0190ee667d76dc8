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

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError

from app import auth, config, convergence, errors
from app.context import RequestContext
from app.convergence.stack_outputs import resolve_outputs
from app.convergence.store import definitions as loaded_defs
from app.convergence.store.definitions import description_of
from app.convergence.traversal import create_values, start_adopt
from app.engine.states import Action, Status
from app.models import RawTemplate, Stack, new_id, raw_templates, read_session, session, stack_tags
from app.services import (
    definitions,
    environments,
    event_sinks,
    exports,
    limits,
    live_outputs,
    protection,
    stack_reads,
)
from app.services.stack_list import count_stacks, list_stacks  # noqa: F401  (the views' names)
from app.templates.functions.base import UNKNOWN

#: a stack by id, built once (what ``Session.get`` would rebuild on every call)
_BY_ID = select(Stack).where(Stack.id == bindparam("stack_id"))
#: a create's checks, built once: a live stack of the name, the project's live top-level stacks
_NAME_TAKEN = select(Stack.id).where(Stack.tenant == bindparam("tenant"),
                                     Stack.name == bindparam("name"), Stack.deleted_at.is_(None))
_LIVE_TOP = select(func.count()).select_from(Stack).where(
    Stack.tenant == bindparam("tenant"), Stack.deleted_at.is_(None), Stack.parent_id.is_(None))
#: a top-level create's two checks in one statement: (a live stack's id or None, the count)
_TOP_CHECKS = select(_NAME_TAKEN.limit(1).scalar_subquery(), _LIVE_TOP.scalar_subquery())
#: the new stack row, in SQLAlchemy Core
_INSERT_STACK = insert(Stack)
NAME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise errors.BadRequest(
            f'Invalid stack name {name} must contain only alphanumeric or "_-." characters, '
            "must start with alpha and must be 255 characters or less.", heat_type="StackValidationFailed")


NOT_MAPPING = "Template not in valid format: The template is not a JSON object or YAML mapping."


def check_request(template: Any, files: Any, max_size: int | None) -> None:
    """What every template-taking request must satisfy before anything is parsed.

    :param max_size: ``max_template_size``; None: the template is not measured (a child
        template the engine built: :func:`app.services.limits.template_size_limit`).
    :raises errors.BadRequest: no template, a template that is neither a mapping nor text, a
        files map that is not ``{name: text}``.
    :raises errors.RequestLimitExceeded: the template is larger than ``max_size``.
    """
    if template is None:
        raise errors.BadRequest("No template specified")
    if not isinstance(template, (dict, str, bytes)):
        raise errors.BadRequest(NOT_MAPPING)
    if files is not None and (not isinstance(files, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in files.items())):
        raise errors.BadRequest("The files map must map file names to their contents (text).")
    if max_size is None:
        return
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
    # a value not known yet (an update's preview of a nested stack) counts as its name
    return len(json.dumps(template, default=repr))


def create_stack(ctx: RequestContext, **request: Any) -> Stack:
    """Validate and create a stack (:func:`create_stack_id`'s arguments), then enqueue its
    CREATE traversal. :returns: the new stack row (CREATE_IN_PROGRESS, or already final with an
    inline dispatcher). :raises: as :func:`create_stack_id`."""
    return get_by_id(ctx, create_stack_id(ctx, **request))


def create_stack_id(ctx: RequestContext, *, stack_name: str, template: Any,
                    parameters: dict[str, Any] | None = None, files: dict[str, Any] | None = None,
                    environment: Any = None, environment_files: list[str] | None = None,
                    timeout_mins: int | None = None, disable_rollback: bool = True,
                    tags: list[str] | None = None, parent_id: str | None = None,
                    nested_depth: int = 0, nested_info: dict[str, Any] | None = None,
                    adopt_resources: dict[str, Any] | None = None, review: bool = False,
                    termination_protection: bool = False,
                    stack_policy: dict[str, Any] | None = None) -> str:
    """Validate and create a stack, then enqueue its CREATE traversal (its ADOPT traversal
    with ``adopt_resources``, the adopt data's resources: :mod:`app.services.stack_abandon`).
    ``review``: no traversal; the stack is kept REVIEW_IN_PROGRESS for a CREATE change set
    (:mod:`app.services.change_sets`), as CloudFormation keeps it. ``termination_protection``
    and ``stack_policy`` (a checked policy document: :func:`app.engine.stack_policy.parse`)
    are the stack's guards (:mod:`app.services.guards`).

    :param template: a mapping or YAML/JSON text.
    :returns: the new stack's id (a child stack's create reads nothing more).
    :raises errors.StackExists, errors.TemplateError, errors.ParameterError, errors.BadRequest,
        errors.RequestLimitExceeded: nothing is persisted then.
    """
    settings = config.get()
    _check_name(stack_name)
    check_request(template, files, limits.template_size_limit(template, parent_id))
    if tags is not None and (not isinstance(tags, list)
                             or not all(isinstance(t, str) for t in tags)):
        raise errors.BadRequest("tags must be a comma-separated string or a list of strings.")
    files = dict(files or {})
    merged = environments.merge(environment, parameters, environment_files, files,
                                template)
    params = merged["parameters"]
    env = {k: v for k, v in merged.items() if k != "parameters"}
    stack_id = new_id()
    ident = loaded_defs.identity(stack_name, stack_id, ctx.tenant_id)
    tmpl, definition, _ = definitions.parse_and_instantiate(
        template, files, env, params, ident, (nested_info or {}).get("facade"), cloud=True,
        trust_of=parent_id, enforce_on=ctx if parent_id is None else None)
    limits.check_resources(len(definition.resources), parent_id)
    imported = exports.check(ctx.tenant_id, stack_id, definition, new_stack=True)
    loaded = loaded_defs.Loaded.of(definition)
    if not review:  # O(resources): before the transaction, which must not idle that long
        _ = loaded.forward_plan
    raw_mapping = tmpl.raw
    try:
        with session() as s:
            conn = s.connection()  # the two checks in SQLAlchemy Core: plain rows, no ORM step
            # Heat counts top-level stacks only: a child stack (a group's member) reads
            # nothing that grows with the tenant's stacks
            keys = {"tenant": ctx.tenant_id, "name": stack_name}
            taken, live = ((conn.execute(_NAME_TAKEN, keys).scalar(), 0)
                           if parent_id is not None else conn.execute(_TOP_CHECKS, keys).one())
            if taken is not None:
                raise errors.StackExists(stack_name)
            if parent_id is None and (live or 0) >= settings.max_stacks_per_tenant:
                raise errors.RequestLimitExceeded(
                    f"You have reached the maximum stacks per tenant, "
                    f"{settings.max_stacks_per_tenant}. Please delete some stacks.")
            raw_id = raw_templates.store(s, raw_mapping, files, merged)
            values: dict[str, Any] = {
                "id": stack_id, "name": stack_name, "tenant": ctx.tenant_id,
                "username": ctx.username, "user_id": ctx.user_id, "raw_template_id": raw_id,
                "parameters": params, "parameters_show": definition.parameters_for_show(),
                "description": description_of(raw_mapping),
                "disable_rollback": disable_rollback, "timeout_mins": timeout_mins,
                "tags": tags or None, "parent_id": parent_id, "nested_depth": nested_depth,
                "nested_info": nested_info,
                "termination_protection": bool(termination_protection),
                "stack_policy": stack_policy}
            # the row's one INSERT holds its first state (Core: no unit of work for one row)
            if review:  # kept REVIEW_IN_PROGRESS for a CREATE change set, no traversal
                values.update(action="REVIEW", status=Status.IN_PROGRESS,
                              status_reason="User Initiated")
            else:
                values.update(create_values(loaded, Action.CREATE if adopt_resources is None
                                            else Action.ADOPT))
            conn.execute(_INSERT_STACK, values)
            st = Stack(**values)  # what the traversal's start reads; not in the session
            stack_tags.set_tags(s, stack_id, tags, new=True)
            exports.record_imports(s, ctx.tenant_id, stack_id, imported, new=True)
            auth.stack_created(s, ctx, stack_id, parent_id, settings)  # keystone: its trust
            loaded_defs.seed((stack_id, raw_id), loaded)
            # its sinks, for the events its commit publishes: known here, not read again
            event_sinks.remember(stack_id, stack_name, ctx.tenant_id, merged)
            if review:  # a change set's stack: its traversal starts when it is executed
                return stack_id
            if adopt_resources is not None:
                start_adopt(s, st, loaded, adopt_resources)
            else:
                convergence.start_create(s, st, loaded)
    except IntegrityError as exc:  # a concurrent create of the same name won the race
        raise errors.StackExists(stack_name) from exc
    return stack_id


def get_by_id(ctx: RequestContext, stack_id: str) -> Stack:
    """The stack with this id in the caller's tenant (deleted ones too), or whose stack-user
    project the caller's token is scoped to (a stack user's signal, as Heat's ``_get_stack``
    accepts ``stack_user_project_id``). :raises NotFound."""
    with read_session() as s:
        st = s.execute(_BY_ID, {"stack_id": stack_id}).scalar()
    if st is None or not stack_reads.visible(ctx, st):
        raise errors.NotFound("Stack", stack_id)
    return st


def lookup_stack(ctx: RequestContext, stack_identity: str) -> Stack:
    """A live stack by name, else any stack by id (Heat's ``identify_stack``), in the caller's
    tenant or whose stack-user project the caller's token is scoped to (Heat's
    ``stack_get_by_name`` matches ``stack_user_project_id`` too: a POLL_SERVER_CFN server's
    stack user asks for its stack by name). :raises NotFound."""
    settings = config.get()
    with read_session() as s:
        st = s.execute(select(Stack).where(Stack.tenant == ctx.tenant_id,
                                           Stack.name == stack_identity,
                                           Stack.deleted_at.is_(None))).scalar()
        if st is None and ctx.project_domain_id is not None:
            st = next((c for c in s.execute(select(Stack).where(
                Stack.name == stack_identity, Stack.deleted_at.is_(None))).scalars()
                if auth.is_stack_user_project(ctx, c.tenant, c.id, settings)), None)
        if st is None:
            st = s.get(Stack, stack_identity)
    if st is None or not stack_reads.visible(ctx, st):
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


def delete_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Start deleting a stack (its DELETE traversal supersedes any action in progress).

    :raises NotFound: unknown, another tenant's, or already deleted.
    :raises errors.Conflict: termination protection is enabled on it or its root
        (:func:`app.services.protection.check_deletable`), or another stack imports one of its
        exports (:func:`app.services.exports.check_delete`); nothing changes.
    """
    st = get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or st.stack_status == f"{Action.DELETE}_{Status.COMPLETE}":
        raise errors.NotFound("Stack", stack_name)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        protection.check_deletable(s, row)
        exports.check_delete(s, row)
        convergence.start_reverse(s, row, Action.DELETE)


#: actions whose traversal changes what the outputs read: while one is in progress they are
#: resolved from the stack's current template
_LIVE_OUTPUTS = (Action.CREATE, Action.UPDATE, Action.ROLLBACK, Action.ADOPT, Action.RESTORE)


def stack_outputs(stack: Stack) -> list[dict[str, Any]]:
    """The stack's outputs ``[{"output_key", "description", "output_value"[, "output_error"]}]``.

    While a create, update, rollback, adopt or restore is in progress they are resolved now, as
    Heat's ``list_outputs`` resolves them from the stack's current template: from the attributes
    each resource has stored so far, null for one not created yet (a wait condition handle's
    ``curl_cli`` is readable while its wait condition waits); during and after a DELETE (not
    shown once it completed) from what the resources still hold. Otherwise they are the ones
    resolved when the last traversal ended, with the live attributes of the types that have
    them read again (:mod:`app.services.live_outputs`)."""
    live = stack.action == Action.DELETE or (stack.status == Status.IN_PROGRESS
                                              and stack.action in _LIVE_OUTPUTS)
    if not live:
        return live_outputs.refreshed(stack, list(stack.outputs or []))
    loaded = loaded_defs.load(stack.id, stack.raw_template_id, stack.name, stack.tenant)
    with read_session() as s:
        return resolve_outputs(s, stack.id, loaded)


def _raw(stack: Stack) -> RawTemplate:
    with read_session() as s:
        raw = s.get(RawTemplate, stack.raw_template_id)
    assert raw is not None
    return raw


def get_template(ctx: RequestContext, stack: Stack) -> dict[str, Any]:
    return dict(_raw(stack).template)


def get_environment(ctx: RequestContext, stack: Stack) -> dict[str, Any]:
    """The stored (merged) environment in Heat's shape: every section present, and
    ``resource_registry.resources`` always (``heat-reference/api-samples/environment_show``);
    hidden parameters read ``******`` in ``parameters`` and ``parameter_defaults`` (Heat's
    ``get_environment``)."""
    raw = _raw(stack)
    env = environments.masked(raw.environment or {}, raw.template, raw.files)
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
    ident = loaded_defs.identity(stack_name, "None", ctx.tenant_id)
    try:
        tmpl, definition, env_obj = definitions.parse_and_instantiate(
            template, files, env, params, ident, cloud=True, enforce_on=ctx)
    except errors.ValidationError as exc:
        raise _preview_error(exc) from None
    resources = _preview_resources(ctx, stack_name, definition, env_obj, files, None)
    template_desc = description_of(tmpl.raw) or "No description"
    return {"stack_name": stack_name, "id": "None", "description": template_desc,
            "template_description": template_desc,
            "parameters": definition.parameters_for_show(), "timeout_mins": timeout_mins,
            "disable_rollback": disable_rollback, "tags": tags, "capabilities": [],
            "notification_topics": [], "stack_owner": ctx.username, "parent": None,
            "resources": resources}


def _preview_error(exc: errors.ValidationError) -> errors.ValidationError:
    """A property error as Heat's preview words it: the resource's validation failure wraps
    the property's (``Property error: : resources.r.properties.p: : <why>``)."""
    text = str(exc)
    path = errors.format_path(exc.path) if getattr(exc, "path", None) else ""
    head = f"Property error: {path}: "
    if path and text.startswith(head):
        return errors.ValidationError(f"Property error: : {path}: : {text[len(head):]}",
                                      path=exc.path)
    return exc


def _known(value: Any) -> Any:
    """A preview's property value: what depends on resources not yet created is null."""
    if value is UNKNOWN:
        return None
    if isinstance(value, dict):
        return {k: _known(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_known(v) for v in value]
    return value


def _preview_resources(ctx: RequestContext, stack_name: str, definition: Any, env: Any,
                       files: dict[str, Any], parent: str | None, depth: int = 0) -> list[Any]:
    """Heat's ``Stack.preview_resources`` in ``format_stack_resource`` form: one entry per
    resource (``INIT_COMPLETE``, identities with stack id ``"None"``, attributes all null,
    creation and update times null); a resource implemented by a template file is the list of
    its nested stack's resources (named ``<stack>-<resource>``, each with its
    ``parent_resource``), a ResourceGroup the list of its members'."""
    from app.resource_types import registry
    required_by = loaded_defs.Loaded.of(definition).required_by
    stack_identity = {"tenant": ctx.tenant_id, "stack_name": stack_name, "stack_id": "None",
                      "path": ""}
    out: list[Any] = []
    for name, rdef in definition.resources.items():
        props = _known(definition.static_properties(name))
        nested = _preview_nested(ctx, stack_name, name, rdef.type, props, env, files, depth)
        if nested is not None:
            out.append(nested)
            continue
        cls = registry.get(rdef.type)
        attrs = {a: None for a in (getattr(cls, "attributes_schema", None) or {})}
        # Heat's format_resource_properties: every property of the schema, given or default
        for key, spec in (getattr(cls, "properties_schema", None) or {}).items():
            if key not in props:
                props[key] = spec.get("default") if isinstance(spec, dict) else None
        entry = {"resource_name": name, "logical_resource_id": name,
                 "resource_type": rdef.type, "resource_action": Action.INIT,
                 "resource_status": Status.COMPLETE, "resource_status_reason": "",
                 "physical_resource_id": "", "description": rdef.description or "",
                 "resource_identity": {**stack_identity, "path": f"/resources/{name}"},
                 "stack_identity": stack_identity, "stack_name": stack_name,
                 "creation_time": None, "updated_time": None, "metadata": {},
                 "attributes": {**attrs, "show": None}, "properties": props,
                 "required_by": sorted(required_by.get(name, ()))}
        if parent:
            entry["parent_resource"] = parent
        out.append(entry)
    return out


def _preview_nested(ctx: RequestContext, stack_name: str, name: str, type_name: str,
                    props: dict[str, Any], env: Any, files: dict[str, Any],
                    depth: int) -> list[Any] | None:
    """The nested preview of a template resource or a ResourceGroup of them, else None."""
    if depth >= config.get().max_nested_stack_depth:
        return None
    nested_name = f"{stack_name}-{name}"
    if type_name == "OS::Heat::ResourceGroup":
        member = dict(props.get("resource_def") or {})
        count = props.get("count")
        count = 1 if count is None else int(count)
        members = []
        for i in range(count):
            found = _preview_nested(ctx, nested_name, str(i), str(member.get("type") or ""),
                                    dict(member.get("properties") or {}), env, files, depth + 1)
            if found is None:
                return None
            members.append(found)
        return members
    try:
        _, key = env.resolve_type(name, type_name)
    except errors.StokerError:
        return None
    if not key or key not in files:
        return None
    ident = loaded_defs.identity(nested_name, "None", ctx.tenant_id)
    # a value known only once other resources exist (null in the preview) is previewed as ""
    params = {k: "" if v is None else v for k, v in props.items()}
    try:
        _, nested, nested_env = definitions.parse_and_instantiate(
            files[key], files, env.to_mapping() if hasattr(env, "to_mapping") else {}, params,
            ident, strict=False)
    except errors.StokerError:
        return None
    return _preview_resources(ctx, nested_name, nested, nested_env, files, name, depth + 1)

