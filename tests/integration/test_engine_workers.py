"""The engine with two real Celery worker processes, real Redis and real PostgreSQL: one fleet
and one database for the module's tests, each on stacks of its own."""
from __future__ import annotations

from collections import Counter

import pytest

from app import convergence
from app.context import RequestContext
from app.models import Stack
from app.services import stacks
from tests.fixtures.stacks import events, final, layered_random_stack, none_stack, rows, wait_for
from tests.integration.conftest import module_fleet

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")


def _final(stack_id: str, timeout: float = 180) -> Stack:
    return final(CTX, stack_id, timeout)


_resources = _rows = rows
_events = events


# one database and fleet for the module: every test works on stacks of its own (the tests that
# kill workers, flush Redis or count timed-out stacks are in test_engine_workers_alone.py)
engine_settings, workers = module_fleet("engine")


def test_create_and_delete_converge_on_two_workers(workers):
    tmpl = layered_random_stack(levels=3, width=6)
    tmpl["outputs"] = {"first": {"value": {"get_attr": ["l0_0", "value"]}},
                       "joined": {"value": {"get_attr": ["l1_0", "value"]}}}
    st = stacks.create_stack(CTX, stack_name="two-workers", template=tmpl)
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert st.status_reason == "Stack CREATE completed successfully"
    res = _resources(st.id)
    assert {r.action + "_" + r.status for r in res.values()} == {"CREATE_COMPLETE"}
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    a, b = res["l0_0"].attr_data["attrs"]["value"], res["l0_1"].attr_data["attrs"]["value"]
    assert outs == {"first": a, "joined": f"{a}-{b}"}
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE"
    assert st.deleted_at is not None
    kinds = Counter((e.resource_name, e.action, e.status) for e in _events(st.id))
    for name in res:
        assert kinds[(name, "CREATE", "COMPLETE")] == 1
        assert kinds[(name, "DELETE", "COMPLETE")] == 1



def test_failure_stops_dependents_but_not_independent_branches(workers):
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "boom": {"type": "OS::Heat::TestResource", "properties": {"fail": True}},
        "after": {"type": "OS::Heat::None", "depends_on": ["boom"]},
        "slow": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 1}},
        "independent": {"type": "OS::Heat::None", "depends_on": ["slow"]}}}
    st = _final(stacks.create_stack(CTX, stack_name="fails", template=tmpl).id)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == \
        "Resource CREATE failed: ValueError: resources.boom: Test Resource failed boom"
    res = _resources(st.id)
    got = {n: f"{r.action}_{r.status}" for n, r in res.items()}
    assert got == {"boom": "CREATE_FAILED", "after": "INIT_COMPLETE",
                   "slow": "CREATE_COMPLETE", "independent": "CREATE_COMPLETE"}



def test_wide_and_chained_none_stacks(workers):
    for chain in (False, True):
        st = stacks.create_stack(CTX, stack_name=f"none-{int(chain)}",
                                 template=none_stack(60, chain=chain))
        st = _final(st.id)
        assert st.stack_status == "CREATE_COMPLETE"
        stacks.delete_stack(CTX, st.name, st.id)
        assert _final(st.id).stack_status == "DELETE_COMPLETE"



def test_a_nested_stack_node_is_woken_by_its_child_not_polled(workers):
    """Two real workers: the parent's node of a template resource parks (``Wait``: its event
    stored, no poll of its own but the slow safety poll) while its child runs for 10 s, and the
    child's end wakes it; create and delete both converge."""
    child = ("heat_template_version: 2018-08-31\nresources:\n"
             "  slow: {type: OS::Heat::TestResource, properties: {action_wait_secs: {create: 10}}}\n"
             "outputs:\n  out: {value: {get_attr: [slow, output]}}\n")
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"top": {"type": "child.yaml"},
                          "after": {"type": "OS::Heat::Value",
                                    "properties": {"value": {"get_attr": ["top", "out"]}}}}}
    st = stacks.create_stack(CTX, stack_name="woken", template=tmpl, files={"child.yaml": child})

    def parked() -> bool:
        top = _rows(st.id)["top"]
        return isinstance(top.handle, dict) and "wait" in top.handle
    wait_for(parked, 60, 0.02, "the parent's node parks")
    top = _rows(st.id)["top"]
    # a Wait, not a Poll: the node holds the event it waits for and no task of its own
    assert top.handle["wait"] == convergence.child_stack_event(top.physical_resource_id)
    assert stacks.get_by_id(CTX, top.physical_resource_id).status == "IN_PROGRESS"
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason



def test_a_wide_fan_out_goes_out_in_batches_and_converges(workers, monkeypatch):
    """60 leaves on a fleet of 2 x 4 threads: the API sends them as ``stoker.check_resources``
    messages of several steps (not one message a leaf); the real workers create each leaf once,
    the fan-in after all of them, then delete everything once."""
    from app.tasks import celery_app
    sent: list[tuple[str, int]] = []
    real = celery_app.send_task

    def recording(name, args=None, **kw):  # type: ignore[no-untyped-def]
        sent.append((name, len(args[2]) if name == "stoker.check_resources" else 1))
        return real(name, args, **kw)

    monkeypatch.setattr(celery_app, "send_task", recording)
    leaves = {f"leaf{i}": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}
              for i in range(60)}
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        **leaves, "all": {"type": "OS::Heat::Value", "properties": {"value": {
            "list_join": ["", [{"get_attr": [n, "value"]} for n in leaves]]}}}},
        "outputs": {"all": {"value": {"get_attr": ["all", "value"]}}}}
    st = _final(stacks.create_stack(CTX, stack_name="wide-batches", template=tmpl).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    batches = [n for name, n in sent if name == "stoker.check_resources"]
    assert batches and sum(batches) == 60 and max(batches) > 1
    res = _resources(st.id)
    joined = "".join(res[n].attr_data["attrs"]["value"] for n in leaves)
    assert {o["output_key"]: o["output_value"] for o in st.outputs} == {"all": joined}
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE"
    kinds = Counter((e.resource_name, e.action, e.status) for e in _events(st.id))
    for name in res:
        assert kinds[(name, "CREATE", "COMPLETE")] == 1
        assert kinds[(name, "DELETE", "COMPLETE")] == 1
