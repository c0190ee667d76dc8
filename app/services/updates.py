"""Stack updates for the API: ``PUT`` (a new template) and ``PATCH`` (``existing``: what is not
sent is kept), as Heat's ``update_stack``.

The request is checked completely (template, environment, parameters, plugins) before anything is
written; then ONE transaction stores the new template, points the stack at it (keeping the
previous one for a rollback) and starts the UPDATE traversal
(:func:`app.convergence.start_update`), which supersedes any traversal in progress.
Errors follow Heat: ``EntityNotFound`` (404), ``NotSupported`` (400: the stack is being
deleted), ``StackValidationFailed`` & co (400).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from app import config, convergence, errors
from app.context import RequestContext
from app.convergence.store import definitions as loaded_defs
from app.engine.states import Action, Status
from app.models import RawTemplate, Stack, raw_templates, read_session, session, stack_tags
from app.services import definitions, environments, exports, limits, stacks


@dataclass
class Prepared:
    """A checked update request: what the stack becomes."""
    template: dict[str, Any]     # the template mapping to store
    files: dict[str, Any]
    environment: dict[str, Any]  # merged environment, ``parameters`` included
    params: dict[str, Any]
    definition: Any              # StackDefinition of the new template
    loaded: loaded_defs.Loaded
    timeout_mins: int | None
    disable_rollback: bool
    tags: list[str] | None
    imports: list[str]           # export names the new template imports
    #: what the guards computed of this update, kept so that a second guard does not redo it
    #: (``update_preview.classify_prepared`` keeps its classification under "changes")
    memo: dict[str, Any] = field(default_factory=dict)


def prepare_update(ctx: RequestContext, st: Stack, *, template: Any = None,
                   parameters: dict[str, Any] | None = None, files: dict[str, Any] | None = None,
                   environment: Any = None, environment_files: list[str] | None = None,
                   timeout_mins: int | None = None, disable_rollback: bool | None = None,
                   tags: list[str] | None = None, existing: bool = False,
                   clear_parameters: list[str] | None = None) -> Prepared:
    """Check an update request against stack ``st`` and build the new definition.

    ``existing=False`` (PUT): the request's template, files, environment and parameters replace
    the stack's. ``existing=True`` (PATCH, Heat's ``existing`` flag): the stack's template is
    kept unless one is sent; files are merged; the stored environment and parameters are kept
    (minus ``clear_parameters``) and the request's are merged on top, keeping only the
    parameters the template declares (Heat pops the others). Timeout, rollback and tags
    default to the stack's.

    :raises errors.BadRequest, errors.TemplateError, errors.ParameterError,
        errors.RequestLimitExceeded: nothing is written.
    """
    settings = config.get()
    with read_session() as s:
        raw = s.get(RawTemplate, st.raw_template_id)
    assert raw is not None
    if existing:
        stacks.check_request({} if template is None else template, files,
                             settings.max_template_size)
        if template is None:
            template = copy.deepcopy(raw.template)
        files = {**(raw.files or {}), **(files or {})}
        old_env = dict(raw.environment or {})
        kept = {k: v for k, v in (old_env.get("parameters") or {}).items()
                if k not in set(clear_parameters or ())}
        body_env = environments.parse(environment)
        environment = {**{k: v for k, v in old_env.items() if k != "parameters"},
                       **{k: v for k, v in body_env.items() if v and k != "parameters"}}
        environment["parameter_defaults"] = {**(old_env.get("parameter_defaults") or {}),
                                             **(body_env.get("parameter_defaults") or {})}
        registry = dict(old_env.get("resource_registry") or {})
        registry.update(body_env.get("resource_registry") or {})
        environment["resource_registry"] = registry
        parameters = {**kept, **(body_env.get("parameters") or {}), **(parameters or {})}
        names = environments.declared(template)
        if names is not None:  # Heat drops what the (new) template does not declare
            parameters = {k: v for k, v in parameters.items() if k in names}
    stacks.check_request(template, files, limits.template_size_limit(template, st.parent_id))
    files = dict(files or {})
    merged = environments.merge(environment, parameters, environment_files, files, template)
    params = merged["parameters"]
    env = {k: v for k, v in merged.items() if k != "parameters"}
    ident = loaded_defs.identity(st.name, st.id, st.tenant)
    tmpl, definition, _ = definitions.parse_and_instantiate(
        template, files, env, params, ident, (st.nested_info or {}).get("facade"), cloud=True,
        enforce_on=ctx if st.parent_id is None else None)
    _check_immutable(st, definition)
    imported = exports.check(st.tenant, st.id, definition)
    limits.check_resources(len(definition.resources), st.parent_id, st.id)
    return Prepared(template=tmpl.raw, files=files, environment=merged, params=params,
                    definition=definition, loaded=loaded_defs.Loaded.of(definition),
                    timeout_mins=st.timeout_mins if timeout_mins is None else timeout_mins,
                    disable_rollback=st.disable_rollback if disable_rollback is None
                    else disable_rollback,
                    tags=st.tags if tags is None and existing else tags, imports=imported)


def _check_immutable(st: Stack, definition: Any) -> None:
    """Heat's ``immutable_params_modified``: a parameter the NEW template declares
    ``immutable`` may not take a value other than the stack's.

    :raises errors.BadRequest: ``ImmutableParameterModified``, naming them (sorted).
    """
    new = definition.params
    immutable = [n for n, schema in new.schemas.items() if schema.immutable]
    if not immutable:
        return
    old = loaded_defs.load(st.id, st.raw_template_id, st.name, st.tenant).definition.params
    changed = sorted(n for n in immutable if n in old.values and n in new.values
                     and old.values[n] != new.values[n])
    if changed:
        raise errors.BadRequest("The following parameters are immutable and may not be "
                                f"updated: {', '.join(changed)}",
                                heat_type="ImmutableParameterModified")


def check_updatable(st: Stack) -> None:
    """As Heat's convergence ``update_stack``: a stack with an action in progress (CREATE,
    UPDATE, ROLLBACK) may be updated — the new traversal supersedes it (newest traversal wins).

    :raises errors.NotFound: deleted; :raises errors.BadRequest: ``NotSupported`` for a stack
        whose last action is DELETE, or one kept REVIEW_IN_PROGRESS by a CREATE change set.
    """
    if st.deleted_at is not None or st.stack_status == f"{Action.DELETE}_{Status.COMPLETE}":
        raise errors.NotFound("Stack", st.name)
    if st.action == Action.DELETE:
        raise errors.BadRequest("Updating a stack when it is deleting is not supported.",
                                heat_type="NotSupported")
    if st.action == "REVIEW":  # made by a CREATE change set: executing it creates the stack
        raise errors.BadRequest(f"Stack {st.name} is in REVIEW_IN_PROGRESS state and can not "
                                "be updated: execute its change set.", heat_type="NotSupported")


def update_stack(ctx: RequestContext, stack_name: str, stack_id: str, **request: Any) -> Stack:
    """Check the request (see :func:`prepare_update` for its keyword arguments) and start the
    stack's UPDATE traversal. :returns: the stack row (UPDATE_IN_PROGRESS, or final with an
    inline dispatcher). :raises: as :func:`prepare_update` and :func:`check_updatable`."""
    st = stacks.get_stack(ctx, stack_name, stack_id)
    check_updatable(st)
    return commit(ctx, st, prepare_update(ctx, st, **request))


def commit(ctx: RequestContext, st: Stack, prep: Prepared) -> Stack:
    """Start the UPDATE traversal of the checked request ``prep`` on stack ``st``, the stack
    row locked and checked again. :returns: the stack row. :raises: as
    :func:`check_updatable`."""
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        check_updatable(row)
        apply(s, row, prep)
    return stacks.get_by_id(ctx, st.id)


def apply(s: Any, row: Stack, prep: Prepared, action: Action = Action.UPDATE) -> str:
    """Store ``prep``'s template on ``row`` (keeping the previous one for a rollback) and start
    the traversal, inside the caller's transaction. :returns: the traversal id."""
    raw_id = raw_templates.store(s, prep.template, prep.files, prep.environment)
    if not (row.status == Status.IN_PROGRESS and row.action == Action.UPDATE):
        # what a rollback returns to: the last template the stack reached (an update that is
        # superseded while in progress never got there)
        row.prev_raw_template_id = row.raw_template_id
    store(s, row, prep, raw_id)
    return convergence.start_update(s, row, prep.loaded, action)


def store(s: Any, row: Stack, prep: Prepared, raw_id: int | None = None) -> None:
    """Make ``prep`` the stack's definition on ``row``, inside the caller's transaction: its
    raw template (stored once per content, or ``raw_id`` already stored), parameters,
    description, timeout, rollback setting, tags and imported exports; the loaded definition
    kept for the traversal about to start."""
    if raw_id is None:
        raw_id = raw_templates.store(s, prep.template, prep.files, prep.environment)
    row.raw_template_id = raw_id
    row.parameters = prep.params
    row.parameters_show = prep.definition.parameters_for_show()
    row.description = loaded_defs.description_of(prep.template)
    row.timeout_mins, row.disable_rollback, row.tags = (prep.timeout_mins, prep.disable_rollback,
                                                         prep.tags or None)
    stack_tags.set_tags(s, row.id, prep.tags)
    exports.record_imports(s, row.tenant, row.id, prep.imports)
    loaded_defs.seed((row.id, raw_id), prep.loaded)


def rollback(s: Any, row: Stack) -> str | None:
    """Heat's update rollback (cancel_update): update back to the previous template and
    parameters (action ROLLBACK), inside the caller's transaction
    (:func:`app.convergence.start_update_rollback`). :returns: the new traversal id, or None when
    there is nothing to roll back to."""
    return convergence.start_update_rollback(s, row)
