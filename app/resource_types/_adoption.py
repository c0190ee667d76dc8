"""Adoption of what an earlier try of a create made (DESIGN invariant 1: a redelivered or
retried step must not make a second cloud object), mixed into ``CloudResource``.

An earlier try's object is found by Heat's physical name when the resource has no name of its
own (unique to it), otherwise by the intent marker the type put on it before the POST
(:meth:`Adoption.marked`, :meth:`Adoption.find_marked`; :mod:`app.clients.intent`). It is
asked for in a later run of the step (:meth:`Adoption.adopt`, skipped on a ``first_attempt``)
and before the client sends a failed create again (:meth:`Adoption.lookup`).
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.clients import status


class Adoption:
    """The lookups of a cloud type's create (``cloud()``, ``physical_resource_name()``,
    ``properties``, ``stack``, ``resource_id`` and ``first_attempt`` are the resource's)."""

    properties: dict[str, Any]
    stack: Any
    resource_id: str | None
    first_attempt: bool
    cloud: Any                     # the resource's methods
    physical_resource_name: Any

    def adopt(self, find: Any, prop: str = "name") -> bool:
        """Adopt the object an earlier attempt of this create made (DESIGN invariant 1: a
        redelivered task must not create a second one): :meth:`earlier` finds it. Sets
        ``resource_id`` and returns ``True`` if found. Nothing is asked of the cloud on a
        ``first_attempt`` (no earlier attempt can have made one)."""
        if self.resource_id or self.stack is None or self.first_attempt:
            return bool(self.resource_id)
        found = self.earlier(find, prop)
        if found is not None:
            self.resource_id = found
        return found is not None

    def earlier(self, find: Any, prop: str = "name") -> str | None:
        """The id of the object an earlier try of this create made, or None. With Heat's
        physical name (unique to this resource; no ``prop`` given) ``find(name,
        ignore_missing=True)`` finds it (``find``: an SDK ``find_*``, or a
        :class:`app.clients.status.Kind` whose list is asked by name); an object with a
        user-given name is found by its intent marker (:meth:`find_marked`).

        :raises errors.CloudError: a transient error of the lookup."""
        if self.stack is None:
            return None
        if self.properties.get(prop) or find is None:
            return self.find_marked()
        try:
            if isinstance(find, status.Kind):
                named = status.find_named(self.cloud(), find, self.physical_resource_name())
                return None if named is None else str(named["id"])
            found = find(self.physical_resource_name(), ignore_missing=True)
        except errors.CloudError as exc:
            if exc.transient:
                raise
            return None    # e.g. several objects of that name: not ours to choose
        return None if found is None else str(found.id)

    def lookup(self, find: Any, get: Any, prop: str = "name") -> Any:
        """The ``find`` of :meth:`app.clients.retry.Cloud.create` for this create: asked before
        a failed POST is sent again, it returns what :meth:`earlier` finds as ``get(id)`` (the
        create's answer) or None. None when nothing can tell an earlier try's object apart (a
        user-given name without a marker): then only a 503 is retried."""
        if self.stack is None or ((self.properties.get(prop) or find is None)
                                  and not self.marked()):
            return None

        def earlier_object() -> Any:
            found = self.earlier(find, prop)
            return None if found is None else get(found)
        return earlier_object

    def marked(self) -> bool:
        """Whether what this create makes carries the intent marker
        (:mod:`app.clients.intent`); False for types that put none."""
        return False

    def find_marked(self) -> str | None:
        """The id of the object an earlier try made that carries this resource's intent marker
        (:mod:`app.clients.intent`); None: none, or this type puts no marker on what it makes."""
        return None
