"""Stack UPDATE with two real Celery worker processes, real Redis and real PostgreSQL:
in-place updates, replacements, added and removed resources converge; a worker SIGKILLed in the
middle of an update neither loses nor doubles any action."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from sqlalchemy import select

from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import stacks, updates
from tests.fixtures.stacks import events, final, rows, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest-upd")


def _final(stack_id: str, timeout: float = 180) -> Stack:
    return final(CTX, stack_id, timeout)


_rows, _events = rows, events


def _count(stack_id: str, action: str) -> int:
    """Resources of the stack whose ``action`` is COMPLETE."""
    with read_session() as s:
        return len(s.execute(select(Resource.id).where(
            Resource.stack_id == stack_id, Resource.status == "COMPLETE",
            Resource.action == action)).all())


def layers(levels: int, width: int, version: str, *, wait: float = 0.0,
           replace_every: int = 4, drop_last: bool = False) -> dict[str, Any]:
    """``levels`` x ``width`` TestResources; each of level k>0 joins its two parents' outputs
    with ``version``, so a changed version updates every resource in place except every
    ``replace_every``-th, which is replaced (``update_replace``)."""
    res: dict[str, Any] = {}
    for k in range(levels):
        for i in range(width):
            if k == 0:
                value: Any = f"{version}-{i}"
            else:
                a, b = f"l{k - 1}_{i}", f"l{k - 1}_{(i + 1) % width}"
                value = {"list_join": ["+", [{"get_attr": [a, "output"]},
                                             {"get_attr": [b, "output"]}]]}
            res[f"l{k}_{i}"] = {"type": "OS::Heat::TestResource", "properties": {
                "value": value, "wait_secs": wait if i % 5 == 0 else 0,
                "update_replace": i % replace_every == 0}}
    if drop_last:
        for i in range(width):
            res.pop(f"l{levels - 1}_{i}")
    res[f"extra_{version}"] = {"type": "OS::Heat::RandomString"}
    return {"heat_template_version": "2018-08-31", "resources": res,
            "outputs": {"first": {"value": {"get_attr": ["l1_0", "output"]}}}}


def _check_converged(st: Stack, before: dict[str, Resource], width: int, n_before: int) -> None:
    rows = _rows(st.id)
    for name, r in rows.items():
        if name.startswith("extra"):
            continue
        k, i = (int(x) for x in name[1:].split("_"))
        if k == 0:
            assert r.rsrc_data["value"] == f"v2-{i}"
        else:  # built from the parents' final (updated) values, never a stale one
            a, b = rows[f"l{k - 1}_{i}"], rows[f"l{k - 1}_{(i + 1) % width}"]
            assert r.rsrc_data["value"] == f"{a.rsrc_data['value']}+{b.rsrc_data['value']}"
        replaced = i % 4 == 0
        same = r.physical_resource_id == before[name].physical_resource_id
        assert same != replaced, name
    kinds = Counter((e.resource_name, e.action, e.status, e.physical_resource_id)
                    for e in _events(st.id)[n_before:] if e.resource_name != st.name)
    assert set(kinds.values()) == {1}, [k for k, v in kinds.items() if v > 1]
    for name, old in before.items():
        if name in rows and rows[name].physical_resource_id == old.physical_resource_id:
            continue
        # every replaced or removed physical resource was deleted exactly once
        assert kinds[(name, "DELETE", "COMPLETE", old.physical_resource_id)] == 1, name


def test_update_converges_on_two_workers(workers):
    st = stacks.create_stack(CTX, stack_name="upd-two", template=layers(4, 8, "v1"))
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    before = _rows(st.id)
    n_before = len(_events(st.id))
    updates.update_stack(CTX, st.name, st.id, template=layers(4, 8, "v2", drop_last=True))
    st = _final(st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert set(_rows(st.id)) == {f"l{k}_{i}" for k in range(3) for i in range(8)} | {"extra_v2"}
    _check_converged(st, before, 8, n_before)
    first = {o["output_key"]: o["output_value"] for o in st.outputs}["first"]
    assert first == "v2-0+v2-1"


def test_sigkilled_worker_mid_update_loses_and_doubles_nothing(workers):
    st = stacks.create_stack(CTX, stack_name="upd-kill", template=layers(8, 20, "v1"))
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    before = _rows(st.id)
    n_before = len(_events(st.id))
    updates.update_stack(CTX, st.name, st.id, template=layers(8, 20, "v2", wait=0.3))

    wait_for(lambda: _count(st.id, "UPDATE") >= 30, 90, 0.02, "30 resources updated")
    workers.kill(0)
    st = _final(st.id, timeout=240)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    _check_converged(st, before, 20, n_before)


def test_an_update_supersedes_a_create_in_progress_on_two_workers(workers):
    st = stacks.create_stack(CTX, stack_name="upd-race", template=layers(5, 10, "v1", wait=0.3))

    wait_for(lambda: _count(st.id, "CREATE") >= 10, 60, 0.02, "10 resources created")
    updates.update_stack(CTX, st.name, st.id, template=layers(5, 10, "v2", wait=0.3))
    st = _final(st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    rows = _rows(st.id)
    assert set(rows) == {f"l{k}_{i}" for k in range(5) for i in range(10)} | {"extra_v2"}
    for name, r in rows.items():
        if name.startswith("extra"):
            continue
        k, i = (int(x) for x in name[1:].split("_"))
        if k == 0:
            assert r.rsrc_data["value"] == f"v2-{i}", name
        else:
            a, b = rows[f"l{k - 1}_{i}"], rows[f"l{k - 1}_{(i + 1) % 10}"]
            assert r.rsrc_data["value"] == f"{a.rsrc_data['value']}+{b.rsrc_data['value']}"
    kinds = Counter((e.resource_name, e.action, e.status, e.physical_resource_id)
                    for e in _events(st.id) if e.resource_name != st.name
                    and e.physical_resource_id)
    assert set(kinds.values()) == {1}, [k for k, v in kinds.items() if v > 1]
