"""Resource plugins for rows: building one, its error message, whether it always updates.

A plugin (``app.resource_types``) is built per step from the row and the resolved properties,
with the stack's cloud client (a scaling policy also with the process's scaling adjuster,
:mod:`app.convergence.runtime`); persisting what it did is the runtime's job (STYLE lesson 7).
Nested-stack resources have their own driver (:mod:`app.convergence.nested.stacks`).
"""
from __future__ import annotations

from typing import Any

from app import auth, errors
from app.convergence import runtime
from app.convergence.steps import software, waits
from app.convergence.store import definitions, stack_lookups
from app.convergence.store.rows import ResourceRow
from app.resource_types import registry


def registry_plugin(r: ResourceRow, st: Any, properties: dict[str, Any] | None) -> Any:
    """The registry plugin of row ``r`` (a built-in type) with ``properties``.

    :raises errors.ResourceFailure: Heat's "The Resource Type (X) could not be found."."""
    cls = registry.get(r.impl())
    if cls is None:
        raise errors.ResourceFailure(f"The Resource Type ({r.type}) could not be found.")
    ident = definitions.identity(st.name, st.id, st.tenant)
    plugin: Any = cls(r.name, dict(properties or {}), resource_id=r.physical_resource_id,
                      data=dict(r.rsrc_data or {}), stack=ident,
                      clients=auth.clients_for(ident), uuid=r.uuid)
    if hasattr(cls, "adjuster"):  # a scaling policy: what its signal resizes the group with
        plugin.adjuster = runtime.current().scaling_adjuster
    return stack_lookups.attach(software.attach(waits.attach(plugin, st.id), st.tenant), st.id)


def message_of(exc: BaseException) -> str:
    """An exception's message (a Stoker error's ``message``, else ``str``)."""
    return str(getattr(exc, "message", None) or exc)


def always_updates(plugin: Any) -> bool:
    """Whether ``plugin`` asks to be updated even when its properties are unchanged (Heat's
    ``_needs_update`` returning True, e.g. an ExternalResource with ``always_update``)."""
    check = getattr(plugin, "always_updates", None)
    return bool(check()) if callable(check) else False
