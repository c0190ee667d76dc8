"""Shared by the ``test_update_through_engine*`` modules: stacks of cloud resources driven
through the in-process engine (``app.services.stacks`` / ``app.services.updates`` with the inline
dispatcher) against the session's sandbox cloud, and a table format for "one type: create, read
an attribute, update in place, replace, delete".

A :class:`Case` names the resource under test ``r``; ``needs`` are the resources it refers to.
Physical objects are observed in the sandbox's own store (``find(store, physical_id)``), which is
the cloud's state, not the engine's idea of it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from app.context import RequestContext
from app.models import Event, read_session
from app.services import resources, stacks, updates

CTX = RequestContext(tenant_id="admin", is_admin=True)   # noauth's default role is admin
HOT = "2018-08-31"

Finder = Callable[[Any, str], "dict[str, Any] | None"]


def by_id(collection: str) -> Finder:
    """A finder for objects stored under their physical id."""
    return lambda store, pid: store.get(collection, pid)


def by_field(collection: str, key: str) -> Finder:
    """A finder for objects whose physical id is another field (a key pair's name)."""
    def find(store: Any, pid: str) -> dict[str, Any] | None:
        found = store.find(collection, **{key: pid})
        return found[0] if found else None
    return find


@dataclass(frozen=True)
class Case:
    """One resource type through the engine.

    ``allowed``: property changes that are all ``update_allowed`` (``None``: the type has
    none), ``seen(store, obj)`` proves them in the sandbox object afterwards. ``replacing``: a change
    of a property that is not ``update_allowed`` (``None``: every property is), or of an
    ``immutable`` one when ``immutable`` (then UPDATE_FAILED with Heat's NotSupported).
    ``attr`` is read through an output and checked with ``attr_ok`` (after (a), with
    ``attr_updated`` when given: the output shows the change)."""
    type: str
    props: dict[str, Any]
    find: Finder
    attr: str
    attr_ok: Callable[[Any], bool] = bool
    allowed: dict[str, Any] | None = None
    seen: Callable[[Any, dict[str, Any]], bool] | None = None
    attr_updated: Callable[[Any], bool] | None = None
    replacing: dict[str, Any] | None = None
    immutable: bool = False
    needs: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.type.replace("::", "_")


def template(res: dict[str, Any], outputs: dict[str, Any] | None = None,
             params: dict[str, str] | None = None) -> dict[str, Any]:
    """A HOT template of ``res``; ``params``: string parameters with their defaults."""
    tmpl: dict[str, Any] = {"heat_template_version": HOT, "resources": res}
    if params:
        tmpl["parameters"] = {k: {"type": "string", "default": v} for k, v in params.items()}
    if outputs:
        tmpl["outputs"] = {k: {"value": v} for k, v in outputs.items()}
    return tmpl


def store(sandbox: Any) -> Any:
    """The sandbox's state store (``app.sandbox.store.Store``)."""
    return sandbox.app.extensions["sandbox"].store


def create(name: str, tmpl: dict[str, Any]) -> Any:
    st = stacks.create_stack(CTX, stack_name=name, template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    return st


def update(st: Any, tmpl: dict[str, Any], expect: str = "UPDATE_COMPLETE") -> Any:
    updates.update_stack(CTX, st.name, st.id, template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == expect, st.status_reason
    return st


def rows(st: Any) -> dict[str, Any]:
    return {r.name: r for r, _ in resources.list_resources(CTX, st)}


def pid(st: Any, name: str = "r") -> str:
    value = rows(st)[name].physical_resource_id
    assert value, f"{name} has no physical id"
    return str(value)


def outputs(st: Any) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in stacks.stack_outputs(st)}


def events(st: Any, name: str | None = None) -> list[Any]:
    """The stack's events in the order written (``name``: one resource's)."""
    with read_session() as s:
        q = select(Event).where(Event.stack_id == st.id)
        if name is not None:
            q = q.where(Event.resource_name == name)
        return list(s.execute(q.order_by(Event.id)).scalars())


def settle(check: Callable[[], Any], timeout: float = 5.0, what: str = "condition") -> Any:
    """Poll ``check`` until truthy (the sandbox deletes some objects asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} not reached"
        time.sleep(0.05)


def delete_and_check_empty(st: Any, sandbox: Any, before: dict[str, set[str]]) -> None:
    """Delete ``st``: DELETE_COMPLETE, and the sandbox's inventory is back to ``before``."""
    stacks.delete_stack(CTX, st.name, st.id)
    done = stacks.get_by_id(CTX, st.id)
    assert done.stack_status == "DELETE_COMPLETE", done.status_reason

    def left() -> dict[str, set[str]]:
        now = sandbox.created()
        return {k: v - before.get(k, set()) for k, v in now.items() if v - before.get(k, set())}
    try:
        settle(lambda: not left())
    except AssertionError:
        raise AssertionError(f"objects left behind: {left()}") from None


def check_case(case: Case, sandbox: Any) -> None:
    """Create, attribute, update in place (a), replace (b), delete — see :class:`Case`.
    Templates get the parameter ``demo_project`` (the sandbox's ``demo`` project id)."""
    before = sandbox.created()
    db = store(sandbox)
    params = {"demo_project": sandbox.admin("GET", "ids")["ids"]["project:demo"]}
    outs = {"attr": {"get_attr": ["r", case.attr]}}

    def tmpl(props: dict[str, Any]) -> dict[str, Any]:
        return template({**case.needs, "r": {"type": case.type, "properties": props}}, outs,
                        params)

    props = dict(case.props)
    st = create(f"upd-{case.id.lower().replace('_', '-')}", tmpl(props))
    try:
        first = pid(st)
        assert case.find(db, first) is not None, f"{first} not in the sandbox"
        value = outputs(st)["attr"]
        assert case.attr_ok(value), f"{case.attr} = {value!r}"
        if case.allowed is not None:
            props = {**props, **case.allowed}
            st = update(st, tmpl(props))
            assert pid(st) == first, "an update_allowed change replaced the resource"
            obj = case.find(db, first)
            assert obj is not None and case.seen is not None and case.seen(db, obj), obj
            assert [(e.action, e.status) for e in events(st, "r")][-2:] == [
                ("UPDATE", "IN_PROGRESS"), ("UPDATE", "COMPLETE")]
            if case.attr_updated is not None:
                value = outputs(st)["attr"]
                assert case.attr_updated(value), f"{case.attr} after the update = {value!r}"
        if case.replacing is not None:
            new = tmpl({**props, **case.replacing})
            if case.immutable:
                st = update(st, new, expect="UPDATE_FAILED")
                names = ", ".join(sorted(case.replacing))
                assert st.status_reason.endswith(
                    f"NotSupported: resources.r: Update to properties {names} of r "
                    f"({case.type}) is not supported."), st.status_reason
                assert pid(st) == first and case.find(db, first) is not None
            else:
                mark = len(events(st, "r"))
                st = update(st, new)
                second = pid(st)
                assert second != first, "a replacing change kept the physical resource"
                steps = [(e.action, e.status, e.physical_resource_id)
                         for e in events(st, "r")[mark:]]
                assert ("CREATE", "COMPLETE", second) in steps, steps
                assert steps[-1] == ("DELETE", "COMPLETE", first), steps
                assert case.find(db, second) is not None
                settle(lambda: case.find(db, first) is None, what=f"old {first} deleted")
                value = outputs(st)["attr"]
                assert case.attr_ok(value), f"{case.attr} = {value!r}"
    finally:
        delete_and_check_empty(st, sandbox, before)
