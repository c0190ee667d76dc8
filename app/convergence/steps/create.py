"""The create step of a forward node (and the adoption of an ``external_id``).

One call starts the create (resolving the properties from the snippet and the predecessors'
passed-on data, validating them, ``handle_create``) or polls it (``check_create_complete``), and
returns the :mod:`~app.convergence.outcome`: Done, Failed, Poll, or Wait for a nested stack.
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.convergence import plugins
from app.convergence.nested import stacks as nested
from app.convergence.nested.groups import GROUP, TEMPLATE
from app.convergence.outcome import Done, Failed, Node, Outcome, Record, Start
from app.convergence.steps import hooks, unfinished
from app.convergence.store import attrdata
from app.convergence.store.rows import EXTERNAL_ID
from app.engine.states import Action, Status
from app.resource_types import failures, registry
from app.templates import properties as tproperties


def forward(node: Node) -> Outcome:
    """A forward node of a CREATE traversal: done already, adopted, or created."""
    r, loaded = node.resource, node.loaded
    assert loaded is not None
    if r.status == Status.COMPLETE and r.action in (Action.CREATE, Action.CHECK):
        return Done()  # a redelivery after the row was written (plugin None: row kept)
    rdef = loaded.definition.resources.get(r.name)
    if rdef is not None and rdef.external_id:
        return adopt(node, str(rdef.external_id))
    return step(node)


def resolve(node: Node) -> dict[str, Any]:
    """The resource's properties, resolved from its snippet and its inputs and validated
    against the plugin's schema (a provider template validates its own parameters; a null
    given to one is its zero value).

    :raises Exception: whatever resolution or validation raises (the create never starts)."""
    r, loaded = node.resource, node.loaded
    assert loaded is not None
    props = loaded.definition.resolve_properties(r.name, attrdata.DataContext(node.inputs))
    if r.nested_kind == TEMPLATE:  # the child's parameters: a null is its zero value
        return template_params(loaded.definition, r.name, props)
    cls = registry.get(r.impl())
    if cls is not None:
        props = cls.validated_properties(props, ("resources", r.name, "properties"))
    return dict(props)


def template_params(definition: Any, name: str, props: dict[str, Any]) -> dict[str, Any]:
    """A template resource's resolved properties as its child's parameters (Heat's
    ``TemplateResource.child_params``: :func:`app.templates.properties.child_parameters`)."""
    schema = definition.type_schema_of(name) or {}
    return tproperties.child_parameters(schema.get("properties"), props)


def step(node: Node) -> Outcome:
    """One step of creating the node's resource: start it, or poll it."""
    r, loaded = node.resource, node.loaded
    polling = r.action == Action.CREATE and r.status == Status.IN_PROGRESS \
        and r.handle is not None
    try:  # its plugin: with the properties its create started with, or with new ones
        props = r.properties_data if polling else resolve(node)
        plugin: Any = nested.driver_for(r, node.stack, props, loaded)
        if not polling and not r.nested_kind:
            plugin.validate()
    except Exception as exc:
        return Failed(exc) if polling else not_started(r.name, exc, Action.CREATE)
    start: Start | None = None
    try:
        if polling:
            handle = r.stored_handle()
        else:
            if r.status != Status.IN_PROGRESS:
                paused = hooks.pause(node, "pre-create", "CREATE", plugin)
                if paused is not None:
                    return paused
            if r.status != Status.IN_PROGRESS:  # written with the outcome, in one transaction
                start = Start(Action.CREATE, props)
            # the row's first lock ever (check_resource's compare-and-swap bumps atomic_key; a
            # redelivered or retried step takes it again): no earlier attempt reached the cloud
            plugin.first_attempt = r.action == Action.INIT and r.atomic_key == 1
            if r.nested_kind:
                handle = plugin.handle_create(node.traversal_id)
            else:
                handle = plugin.handle_create()  # persisted with the outcome
        done = plugin.check_create_complete(handle)
    except Exception as exc:
        return Failed(exc, plugin=plugin, start=start,
                      attr_data=_failed_attr_data(plugin, node))
    if done:
        return Done(plugin, start=start)
    return unfinished.outcome(node, plugin, handle, start)


def not_started(name: str, exc: Exception, action: Action) -> Failed:
    """The outcome of a resource whose properties failed before its action started.

    A property check that fails on a value only known now (Heat's ``Resource.create`` /
    ``update`` run ``Properties.validate`` inside ``_action_recorder``) starts the action and
    fails it: IN_PROGRESS, then FAILED with :func:`~app.resource_types.failures.create_check_reasons`'
    reasons (a create's stack reason names the resource again, as ``Resource.create``
    re-raises it; an update's does not). Anything else (a function that cannot be resolved:
    Heat resolves before the recorder) leaves the resource untouched."""
    reasons = failures.create_check_reasons(exc, name) \
        if isinstance(exc, errors.StokerError) else None
    if reasons is None:
        return Failed(plugins.message_of(exc), record=Record.UNTOUCHED, action=action)
    reason, create_reason = reasons
    return Failed(reason, action=action, start=Start(action),
                  stack_reason=create_reason if action == Action.CREATE else None)


def _failed_attr_data(plugin: Any, node: Node) -> dict[str, Any] | None:
    """A failed nested stack still has outputs its parent may read (Heat); a group whose
    child stack was never made reads one null per member (``ResourceGroup.get_attribute``
    falls back to ``grouputils`` without a nested stack)."""
    if isinstance(plugin, nested.NestedResource) and node.loaded is not None \
            and (plugin.resource_id or plugin.data.get("nested") == GROUP):
        try:
            return plugin.attr_data(node.loaded.definition.referenced_attributes(
                node.resource.name))
        except Exception:
            return None
    return None


def adopt(node: Node, external_id: str) -> Outcome:
    """A resource with ``external_id`` is not created: the existing physical resource is
    adopted as is and checked (Heat: CHECK_COMPLETE, reference id = the external id)."""
    r, loaded = node.resource, node.loaded
    assert loaded is not None
    try:
        props = loaded.definition.resolve_properties(r.name, attrdata.DataContext({}))
    except Exception:
        props = {}
    plugin = nested.driver_for(r, node.stack, props)
    plugin.resource_id = external_id
    plugin.data[EXTERNAL_ID] = external_id
    r.physical_resource_id = external_id
    return Done(plugin, action=Action.CHECK, start=Start(Action.CHECK, props))
