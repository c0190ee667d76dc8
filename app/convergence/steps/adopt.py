"""The step of a forward node of an ADOPT traversal (Heat's ``Resource.adopt`` /
``handle_adopt``, reached through ``create_convergence`` when the stack has adopt data).

More in docs/code/convergence.md (app.convergence.steps.adopt).
"""
from __future__ import annotations

from typing import Any

from app.convergence import plugins
from app.convergence.nested import stacks as nested
from app.convergence.outcome import Done, Failed, Node, Outcome, Record, Start, Wait
from app.convergence.steps import create
from app.convergence.traversal import ADOPT_DATA
from app.engine.states import Action, Status
from app.resource_types import _wait


def forward(node: Node) -> Outcome:
    """One step of adopting the node's resource."""
    r = node.resource
    if r.action == Action.CREATE and r.status == Status.IN_PROGRESS:
        return create.step(node)  # a row started by an earlier version of this step
    if r.status == Status.COMPLETE and r.action == Action.ADOPT:
        return Done()  # a redelivery after the row was written
    if r.nested_kind:
        return _nested(node)
    try:
        props = create.resolve(node)
        plugin: Any = plugins.registry_plugin(r, node.stack, props)
    except Exception as exc:  # resolution failed: the resource never started (Heat)
        return Failed(plugins.message_of(exc), action=Action.ADOPT, record=Record.UNTOUCHED)
    start = Start(Action.ADOPT, props)
    entry = plugin.data.pop(ADOPT_DATA, None) or {}
    resource_id = entry.get("resource_id") if isinstance(entry, dict) else None
    if not resource_id and not _cloud_free_entry(plugin, entry, r.type):
        return Failed(Exception("Resource ID was not provided."),
                      plugin=plugin, action=Action.ADOPT, start=start)
    plugin.resource_id = str(resource_id) if resource_id else None
    data = entry.get("resource_data")
    if isinstance(data, dict):
        plugin.data.update(data)
    metadata = entry.get("metadata")
    if getattr(plugin, "is_wait_condition_handle", False) and isinstance(metadata, dict) \
            and metadata:
        plugin.data[_wait.METADATA] = metadata  # the signals it had received
    return Done(plugin, action=Action.ADOPT, start=start)


def _cloud_free_entry(plugin: Any, entry: Any, type_name: str) -> bool:
    """Whether ``entry`` is the abandon data of a resource of this type that never had a
    physical id because it makes no cloud object (a wait condition): it is adopted as it was.
    Heat fails it ("Resource ID was not provided."), so that its own abandon data of a stack
    with a wait condition cannot be adopted."""
    return isinstance(entry, dict) and "resource_id" in entry and entry.get("type") == type_name \
        and not getattr(plugin, "cloud_validation", False)


def child_adopt_data(entry: Any) -> dict[str, Any] | None:
    """What a nested resource's child is adopted from: its entry when it is a non-empty
    mapping (Heat adopts from it, failing the child's resources it does not hold), None (the
    child is created) otherwise. Pure."""
    return dict(entry) if isinstance(entry, dict) and entry else None


def _nested(node: Node) -> Outcome:
    r = node.resource
    polling = r.action == Action.ADOPT and r.status == Status.IN_PROGRESS \
        and r.handle is not None
    try:  # its driver: with the properties its adoption started with, or with new ones
        props = r.properties_data if polling else create.resolve(node)
        plugin: Any = nested.driver_for(r, node.stack, props, node.loaded)
    except Exception as exc:  # resolution failed: the resource never started (Heat)
        return Failed(exc, action=Action.ADOPT) if polling else Failed(
            plugins.message_of(exc), action=Action.ADOPT, record=Record.UNTOUCHED)
    start: Start | None = None
    try:
        if polling:
            handle = r.stored_handle()
        else:
            entry = child_adopt_data(plugin.data.pop(ADOPT_DATA, None))
            if r.status != Status.IN_PROGRESS:
                start = Start(Action.ADOPT, props)
            handle = plugin.handle_create(node.traversal_id, adopt=entry)
        done = plugin.check_create_complete(handle)
    except Exception as exc:
        return Failed(exc, plugin=plugin, action=Action.ADOPT,
                      start=start)
    if done:
        return Done(plugin, action=Action.ADOPT, start=start)
    return Wait(plugin.wait_event(), node.deadline(), handle, plugin, start)
