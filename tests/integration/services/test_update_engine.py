"""Stack UPDATE through the engine, stepped by hand (SQLite, a recording dispatcher): update in
place, UpdateReplace, added and removed resources, ordering of the cleanup, redelivery, a crash
mid-replacement, refusals, rollback, nested stacks — Heat's convergence update semantics."""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from sqlalchemy import func, select

from app import convergence, errors
from app.context import RequestContext
from app.convergence.steps import create
from app.convergence.store.rows import REPLACED
from app.models import Event, RawTemplate, Stack, read_session
from app.services import stacks, updates
from tests.fixtures.stacks import events, hot, knob, rows
from tests.integration.services.conftest import Recorder

CTX = RequestContext(tenant_id="upd")
HOT = "2018-08-31"


T = hot

_rows = rows
_events = events


def _outputs(st: Stack) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in st.outputs or []}


def _after(events: list[Event], first: tuple[str, ...], then: tuple[str, ...]) -> bool:
    keys = [(e.resource_name, e.action, e.status) for e in events]
    return keys.index(first) < keys.index(then)


BASE = T({"a": knob("one"),
          "b": knob({"get_attr": ["a", "output"]}),
          "rep": knob("x", update_replace=True),
          "gone": {"type": "OS::Heat::RandomString", "properties": {"length": 6}},
          "user": knob({"get_attr": ["gone", "value"]})},
         {"b": {"value": {"get_attr": ["b", "output"]}},
          "rep": {"value": {"get_resource": "rep"}}})
NEW = T({"a": knob("two"),
         "b": knob({"get_attr": ["a", "output"]}),
         "rep": knob("y", update_replace=True),
         "rep_user": knob({"get_resource": "rep"}),
         "user": knob("fixed"),
         "added": {"type": "OS::Heat::RandomString", "properties": {"length": 6}}},
        {"b": {"value": {"get_attr": ["b", "output"]}},
         "rep": {"value": {"get_resource": "rep"}}})


def _update_twice_delivered(rec: Recorder, st: Stack, template: dict[str, Any]) -> Stack:
    updates.update_stack(CTX, st.name, st.id, template=template)
    while rec.queue:  # every message is delivered twice (at-least-once delivery)
        args = rec.queue.pop(0)
        convergence.check_resource(*args)
        convergence.check_resource(*args)
    return stacks.get_by_id(CTX, st.id)


def test_update_in_place_replace_add_remove_with_every_message_delivered_twice(rec):
    st = stacks.create_stack(CTX, stack_name="upd", template=BASE)
    rec.run_all()
    before = _rows(st.id)
    n_created = len(_events(st.id))
    st = _update_twice_delivered(rec, st, NEW)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert st.status_reason == "Stack UPDATE completed successfully"
    after = _rows(st.id)
    assert set(after) == {"a", "b", "rep", "rep_user", "user", "added"}  # "gone" row dropped
    states = {n: f"{r.action}_{r.status}" for n, r in after.items()}
    assert states == {"a": "UPDATE_COMPLETE", "b": "UPDATE_COMPLETE", "rep": "CREATE_COMPLETE",
                      "rep_user": "CREATE_COMPLETE", "user": "UPDATE_COMPLETE",
                      "added": "CREATE_COMPLETE"}
    for name in ("a", "b", "user"):  # updated in place: the same physical resource
        assert after[name].physical_resource_id == before[name].physical_resource_id
    assert after["rep"].physical_resource_id != before["rep"].physical_resource_id
    assert "_replaced" not in after["rep"].rsrc_data
    assert _outputs(st) == {"b": "two", "rep": after["rep"].physical_resource_id}
    assert after["rep_user"].properties_data["value"] == after["rep"].physical_resource_id
    ev = Counter((e.resource_name, e.action, e.status, e.physical_resource_id)
                 for e in _events(st.id)[n_created:] if e.resource_name != st.name)
    assert set(ev.values()) == {1}, [k for k, v in ev.items() if v > 1]
    old_rep = before["rep"].physical_resource_id
    assert ev[("rep", "DELETE", "COMPLETE", old_rep)] == 1
    assert ev[("gone", "DELETE", "COMPLETE", before["gone"].physical_resource_id)] == 1


def test_dependents_move_to_the_replacement_before_the_old_one_is_deleted(rec):
    st = stacks.create_stack(CTX, stack_name="order", template=BASE)
    rec.run_all()
    st = _update_twice_delivered(rec, st, NEW)
    ev = _events(st.id)
    assert _after(ev, ("rep", "CREATE", "COMPLETE"), ("rep_user", "CREATE", "IN_PROGRESS"))
    assert _after(ev, ("rep_user", "CREATE", "COMPLETE"), ("rep", "DELETE", "IN_PROGRESS"))
    # a removed resource goes only after its former dependent stopped using it
    assert _after(ev, ("user", "UPDATE", "COMPLETE"), ("gone", "DELETE", "IN_PROGRESS"))


def test_unchanged_resources_write_no_events_and_keep_their_state(rec):
    st = stacks.create_stack(CTX, stack_name="same", template=BASE)
    rec.run_all()
    n_before = len(_events(st.id))
    touched = {n: r.updated_at for n, r in _rows(st.id).items()}
    st = _update_twice_delivered(rec, st, BASE)
    assert st.stack_status == "UPDATE_COMPLETE"
    assert {n: r.updated_at for n, r in _rows(st.id).items()} == touched
    names = [e.resource_name for e in _events(st.id)[n_before:]]
    assert names == [st.name, st.name]  # UPDATE_IN_PROGRESS and UPDATE_COMPLETE of the stack
    assert {f"{r.action}_{r.status}" for r in _rows(st.id).values()} == {"CREATE_COMPLETE"}


def test_a_crash_after_the_replacement_was_queued_creates_one_replacement(rec, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="crash", template=BASE)
    rec.run_all()
    old = _rows(st.id)["rep"].physical_resource_id
    real = create.step
    crashed = []

    def crash_once(node):
        if node.resource.name == "rep" and not crashed:
            crashed.append(node.resource.name)
            raise RuntimeError("worker died")
        return real(node)

    monkeypatch.setattr(create, "step", crash_once)
    updates.update_stack(CTX, st.name, st.id, template=NEW)
    while rec.queue:
        args = rec.queue.pop(0)
        try:
            convergence.check_resource(*args)
        except RuntimeError:
            rec.queue.append(args)  # redelivered (acks_late)
    st = stacks.get_by_id(CTX, st.id)
    assert crashed and st.stack_status == "UPDATE_COMPLETE", st.status_reason
    ev = [e for e in _events(st.id) if e.resource_name == "rep"]
    assert [(e.action, e.status) for e in ev if e.physical_resource_id == old][-2:] == \
        [("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE")]
    assert sum(1 for e in ev if (e.action, e.status) == ("CREATE", "COMPLETE")) == 2  # create+1


def test_an_update_supersedes_a_create_in_progress(rec):
    slow = {"create": 0.2}
    first = T({"a": knob("one", action_wait_secs=slow),
               "b": knob({"get_attr": ["a", "output"]}),
               "c": knob("c1", action_wait_secs=slow)},
              {"b": {"value": {"get_attr": ["b", "output"]}}})
    st = stacks.create_stack(CTX, stack_name="busy", template=first)
    for _ in range(2):  # a and c start creating and wait: their handles are the create's
        convergence.check_resource(*rec.queue.pop(0))
    assert {r.status for n, r in _rows(st.id).items() if n != "b"} == {"IN_PROGRESS"}
    second = T({"a": knob("two", action_wait_secs=slow),
                "b": knob({"get_attr": ["a", "output"]}),
                "c": knob("c1", action_wait_secs=slow)},
               {"b": {"value": {"get_attr": ["b", "output"]}}})
    updates.update_stack(CTX, st.name, st.id, template=second)  # newest traversal wins
    rec.run_all(limit=100000)  # the create's own polls stop; the update's go on
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert _outputs(st) == {"b": "two"}
    rows = _rows(st.id)
    assert rows["a"].rsrc_data["value"] == "two" and rows["c"].rsrc_data["value"] == "c1"
    creates = Counter(e.resource_name for e in _events(st.id)
                      if (e.action, e.status) == ("CREATE", "COMPLETE") and e.resource_name != st.name)
    assert creates == {"a": 1, "b": 1, "c": 1}  # nothing was created twice
    assert not [e for e in _events(st.id) if e.action == "DELETE"]


def test_an_update_supersedes_an_update_in_progress(rec):
    st = stacks.create_stack(CTX, stack_name="twice", template=T({"a": knob("one")}))
    rec.run_all()
    physical = _rows(st.id)["a"].physical_resource_id
    updates.update_stack(CTX, st.name, st.id, template=T({"a": knob(
        "two", action_wait_secs={"update": 0.2})}))
    convergence.check_resource(*rec.queue.pop(0))  # the update of a starts and waits
    assert _rows(st.id)["a"].status == "IN_PROGRESS"
    updates.update_stack(CTX, st.name, st.id, template=T({"a": knob("three")}))
    rec.run_all(limit=100000)
    st = stacks.get_by_id(CTX, st.id)
    a = _rows(st.id)["a"]
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert (a.physical_resource_id, a.rsrc_data["value"]) == (physical, "three")
    assert stacks.get_template(CTX, st)["resources"]["a"]["properties"]["value"] == "three"


def test_update_of_a_deleted_stack_is_not_found(rec):
    st = stacks.create_stack(CTX, stack_name="gone", template=BASE)
    rec.run_all()
    stacks.delete_stack(CTX, st.name, st.id)
    rec.run_all()
    with pytest.raises(errors.NotFound):
        updates.update_stack(CTX, st.name, st.id, template=NEW)


def test_a_bad_update_writes_nothing(rec):
    st = stacks.create_stack(CTX, stack_name="bad", template=BASE)
    rec.run_all()
    with read_session() as s:
        n_raw = s.execute(select(func.count()).select_from(RawTemplate)).scalar()
    n_events = len(_events(st.id))
    bad = T({"a": {"type": "OS::Heat::TestResource", "properties": {"nope": 1}}})
    with pytest.raises(errors.StokerError) as err:
        updates.update_stack(CTX, st.name, st.id, template=bad)
    assert err.value.http_status == 400
    with pytest.raises(errors.StokerError):
        updates.update_stack(CTX, st.name, st.id, template=NEW, parameters={"undeclared": 1})
    after = stacks.get_by_id(CTX, st.id)
    assert (after.stack_status, after.raw_template_id) == ("CREATE_COMPLETE", st.raw_template_id)
    with read_session() as s:
        assert s.execute(select(func.count()).select_from(RawTemplate)).scalar() == n_raw
    assert len(_events(st.id)) == n_events and not rec.queue


def test_changing_an_immutable_property_fails_with_heats_not_supported(rec, frozen_type):
    t = T({"f": {"type": "Test::Frozen", "properties": {"size": 1, "label": "a"}}})
    st = stacks.create_stack(CTX, stack_name="frozen", template=t)
    rec.run_all()
    t2 = T({"f": {"type": "Test::Frozen", "properties": {"size": 2, "label": "b"}}})
    updates.update_stack(CTX, st.name, st.id, template=t2)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    reason = "NotSupported: resources.f: Update to properties size of f (Test::Frozen) is " \
             "not supported."
    assert st.stack_status == "UPDATE_FAILED"
    assert st.status_reason == f"Resource UPDATE failed: {reason}"
    f = _rows(st.id)["f"]
    assert (f.action, f.status, f.status_reason) == ("UPDATE", "FAILED", reason)


def test_a_failed_update_rolls_back_to_the_previous_template_when_asked(rec):
    t = T({"a": knob({"get_param": "v"}), "b": knob("keep")},
          {"a": {"value": {"get_attr": ["a", "output"]}}},
          {"v": {"type": "string", "default": "first"}})
    st = stacks.create_stack(CTX, stack_name="rb", template=t, disable_rollback=False)
    rec.run_all()
    broken = T({"a": knob("second", fail=True), "b": knob("keep"),
                "extra": {"type": "OS::Heat::None"}},
               {"a": {"value": {"get_attr": ["a", "output"]}}})
    updates.update_stack(CTX, st.name, st.id, template=broken)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE", st.status_reason
    assert _outputs(st) == {"a": "first"}
    assert set(_rows(st.id)) == {"a", "b"}  # what the update added went with the rollback
    kinds = [(e.resource_name, e.action, e.status) for e in _events(st.id)]
    assert ("rb", "UPDATE", "FAILED") in kinds and ("rb", "ROLLBACK", "COMPLETE") in kinds
    assert stacks.get_template(CTX, st)["parameters"] == t["parameters"]


def test_update_from_a_failed_create_replaces_the_failed_resource(rec):
    t = T({"a": knob("v", fail=True)})
    st = stacks.create_stack(CTX, stack_name="fromfail", template=t)
    rec.run_all()
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_FAILED"
    updates.update_stack(CTX, st.name, st.id, template=T({"a": knob("v")}))
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    a = _rows(st.id)["a"]
    assert (a.action, a.status, a.rsrc_data.get("value")) == ("CREATE", "COMPLETE", "v")


def test_patch_keeps_the_template_and_merges_parameters(rec):
    t = T({"a": knob({"get_param": "v"})}, {"a": {"value": {"get_attr": ["a", "output"]}}},
          {"v": {"type": "string", "default": "d"}, "w": {"type": "string", "default": "x"}})
    st = stacks.create_stack(CTX, stack_name="patch", template=t, parameters={"w": "kept"},
                             timeout_mins=7, tags=["t1"])
    rec.run_all()
    updates.update_stack(CTX, st.name, st.id, existing=True, parameters={"v": "patched"})
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE"
    assert _outputs(st) == {"a": "patched"}
    assert st.parameters == {"w": "kept", "v": "patched"}
    assert (st.timeout_mins, st.tags) == (7, ["t1"])
    updates.update_stack(CTX, st.name, st.id, existing=True, clear_parameters=["v"])
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert _outputs(st) == {"a": "d"} and st.parameters == {"w": "kept"}


def test_delete_during_an_update_supersedes_it(rec):
    st = stacks.create_stack(CTX, stack_name="supersede", template=BASE)
    rec.run_all()
    updates.update_stack(CTX, st.name, st.id, template=NEW)
    convergence.check_resource(*rec.queue.pop(0))
    stale = list(rec.queue)
    rec.queue.clear()
    stacks.delete_stack(CTX, st.name, st.id)
    for args in stale:
        convergence.check_resource(*args)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason
    assert {f"{r.action}_{r.status}" for r in _rows(st.id).values()} <= {"DELETE_COMPLETE",
                                                                        "INIT_COMPLETE"}


CHILD = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string}
resources:
  r: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
outputs:
  out: {value: {get_attr: [r, output]}}
"""


def _nested(count: int, v: str) -> dict[str, Any]:
    return T({"g": {"type": "OS::Heat::ResourceGroup", "properties": {
                  "count": count, "resource_def": {"type": "OS::Heat::TestResource",
                                                   "properties": {"value": "m%index%"}}}},
              "n": {"type": "child.yaml", "properties": {"v": v}}},
             {"outs": {"value": {"get_attr": ["g", "output"]}},
              "refs": {"value": {"get_attr": ["g", "refs"]}},
              "n": {"value": {"get_attr": ["n", "out"]}}})


def test_nested_stacks_are_updated_in_place_and_groups_scale(db):
    files = {"child.yaml": CHILD}
    st = stacks.create_stack(CTX, stack_name="nest", template=_nested(2, "a"), files=files)
    st = stacks.get_by_id(CTX, st.id)
    refs = _outputs(st)["refs"]
    children = {r.name: r.physical_resource_id for r in _rows(st.id).values()}
    updates.update_stack(CTX, st.name, st.id, template=_nested(3, "b"), files=files)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    out = _outputs(st)
    assert out["outs"] == ["m0", "m1", "m2"] and out["n"] == "b"
    assert out["refs"][:2] == refs  # existing members kept
    assert {r.name: r.physical_resource_id for r in _rows(st.id).values()} == children
    updates.update_stack(CTX, st.name, st.id, template=_nested(1, "b"), files=files)
    st = stacks.get_by_id(CTX, st.id)
    assert _outputs(st)["outs"] == ["m0"] and _outputs(st)["refs"] == refs[:1]
    group = stacks.get_by_id(CTX, children["g"])
    assert group.stack_status == "UPDATE_COMPLETE"
    assert set(_rows(group.id)) == {"0"}
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, children["n"]).stack_status == "DELETE_COMPLETE"


def test_the_cleanup_of_a_retained_replacement_leaves_it(rec):
    t = T({"rep": {**knob("x", update_replace=True), "deletion_policy": "Retain"}})
    st = stacks.create_stack(CTX, stack_name="retain", template=t)
    rec.run_all()
    old = _rows(st.id)["rep"].physical_resource_id
    t2 = T({"rep": {**knob("y", update_replace=True), "deletion_policy": "Retain"}})
    updates.update_stack(CTX, st.name, st.id, template=t2)
    rec.run_all()
    ev = [(e.action, e.status) for e in _events(st.id)
          if e.resource_name == "rep" and e.physical_resource_id == old]
    assert ev[-2:] == [("DELETE", "IN_PROGRESS"), ("DELETE", "COMPLETE")]
    assert REPLACED not in _rows(st.id)["rep"].rsrc_data


def test_a_timed_out_update_rolls_back_and_a_timed_out_create_is_deleted(rec):
    forever = T({"slow": knob("v", action_wait_secs={"create": -1})})
    st = stacks.create_stack(CTX, stack_name="late", template=forever, disable_rollback=False)
    convergence.check_resource(*rec.queue.pop(0))  # starts the create, which never ends
    rec.queue.clear()
    convergence.stack_timeout(st.id, stacks.get_by_id(CTX, st.id).current_traversal)
    assert stacks.get_by_id(CTX, st.id).stack_status == "ROLLBACK_IN_PROGRESS"
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE"
    assert _rows(st.id)["slow"].action == "DELETE"

    st = stacks.create_stack(CTX, stack_name="late2", template=T({"r": knob("one")}),
                             disable_rollback=False)
    rec.run_all()
    updates.update_stack(CTX, st.name, st.id,
                         template=T({"r": knob(
                             "two", action_wait_secs={"update": -1})}))
    convergence.check_resource(*rec.queue.pop(0))  # the in-place update never ends
    rec.queue.clear()
    convergence.stack_timeout(st.id, stacks.get_by_id(CTX, st.id).current_traversal)
    kinds = [(e.action, e.status, e.status_reason) for e in _events(st.id)
             if e.resource_name == st.name]
    assert ("UPDATE", "FAILED", "Timed out") in kinds
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE", st.status_reason
    assert _rows(st.id)["r"].rsrc_data["value"] == "one"


def test_an_unchanged_resource_has_its_attributes_read_again(rec):
    """Nothing to update, but what dependents and outputs read is current (Heat resolves
    attributes live): here the physical resource's data changed behind the stack's back."""
    t = T({"a": knob("v"), "b": knob({"get_attr": ["a", "output"]})},
          {"a": {"value": {"get_attr": ["a", "output"]}}})
    st = stacks.create_stack(CTX, stack_name="fresh", template=t)
    rec.run_all()
    from app.models import Resource, session
    with session() as s:
        row = s.get(Resource, _rows(st.id)["a"].id)
        row.rsrc_data = {**row.rsrc_data, "value": "changed outside"}
    st = _update_twice_delivered(rec, st, t)
    assert st.stack_status == "UPDATE_COMPLETE"
    assert _outputs(st) == {"a": "changed outside"}
    b = _rows(st.id)["b"]  # b's property now differs: b was updated with the current value
    assert (b.action, b.rsrc_data["value"]) == ("UPDATE", "changed outside")


def test_rollback_restores_the_resource_an_update_replaced(rec):
    t = T({"a": knob("x", update_replace=True)},
          {"a": {"value": {"get_attr": ["a", "output"]}}})
    st = stacks.create_stack(CTX, stack_name="restore", template=t, disable_rollback=False)
    rec.run_all()
    original = _rows(st.id)["a"].physical_resource_id
    broken = T({"a": knob("y", update_replace=True), "f": knob("z", fail=True)},
               {"a": {"value": {"get_attr": ["a", "output"]}}})
    updates.update_stack(CTX, st.name, st.id, template=broken)
    rec.run_all()  # a is replaced, f fails, a's cleanup keeps the original: a rollback follows
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE", st.status_reason
    a = _rows(st.id)["a"]
    assert a.physical_resource_id == original and a.rsrc_data["value"] == "x"
    assert _outputs(st) == {"a": "x"}
    deleted = [e.physical_resource_id for e in _events(st.id)
               if (e.resource_name, e.action, e.status) == ("a", "DELETE", "COMPLETE")]
    assert len(deleted) == 1 and deleted[0] != original  # the replacement went, not the original
    assert "_replaced" not in a.rsrc_data


NESTED_FAIL = """
heat_template_version: 2018-08-31
parameters:
  broken: {type: boolean, default: false}
resources:
  ok: {type: OS::Heat::TestResource, properties: {value: fine}}
  bad: {type: OS::Heat::TestResource, properties: {value: {get_param: broken}, fail: {get_param: broken}}}
"""


def test_a_failed_nested_stack_is_updated_not_replaced(db):
    files = {"child.yaml": NESTED_FAIL}
    t = T({"n": {"type": "child.yaml", "properties": {"broken": False}}})
    st = stacks.create_stack(CTX, stack_name="nfail", template=t, files=files)
    child = _rows(st.id)["n"].physical_resource_id
    ok = _rows(child)["ok"].physical_resource_id
    updates.update_stack(CTX, st.name, st.id, files=files,
                         template=T({"n": {"type": "child.yaml", "properties": {"broken": True}}}))
    assert stacks.get_by_id(CTX, st.id).stack_status == "UPDATE_FAILED"
    updates.update_stack(CTX, st.name, st.id, template=t, files=files)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert _rows(st.id)["n"].physical_resource_id == child  # the same child stack, updated
    assert _rows(child)["ok"].physical_resource_id == ok    # its healthy resource untouched


def test_patch_with_a_template_that_drops_a_parameter_drops_its_value(rec):
    """Heat's update with ``existing``: values of parameters the new template does not declare
    are dropped (kept ones and newly sent ones alike), not an UnknownUserParameter error."""
    t = T({"a": knob({"get_param": "p"})}, {"a": {"value": {"get_attr": ["a", "output"]}}},
          {"p": {"type": "string"}, "q": {"type": "string", "default": "dq"}})
    st = stacks.create_stack(CTX, stack_name="dropped", template=t,
                             parameters={"p": "kept", "q": "gone"})
    rec.run_all()
    slim = T({"a": knob({"get_param": "p"})}, {"a": {"value": {"get_attr": ["a", "output"]}}},
             {"p": {"type": "string"}})
    updates.update_stack(CTX, st.name, st.id, template=slim, existing=True,
                         parameters={"stray": "x"})
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert st.parameters == {"p": "kept"} and _outputs(st) == {"a": "kept"}


def test_an_update_failing_the_plugins_check_keeps_the_properties_it_had(rec):
    """The new properties fail the plugin's own check only in the engine (they read an
    attribute): UPDATE_FAILED, and the row keeps the properties its resource really has, so an
    update back to them changes nothing (Heat validates before the stored properties change)."""
    def template(**extra):
        return T({"src": knob("8"),
                  "rs": {"type": "OS::Heat::RandomString",
                         "properties": {"length": {"get_attr": ["src", "output"]}, **extra}}})
    st = stacks.create_stack(CTX, stack_name="upd-check", template=template(),
                             disable_rollback=True)
    rec.run_all()
    before = _rows(st.id)["rs"]
    updates.update_stack(CTX, st.name, st.id, template=template(
        character_sequences=[{"sequence": "ab", "min": 10}]))
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    rs = _rows(st.id)["rs"]
    assert st.stack_status == "UPDATE_FAILED"
    assert (rs.action, rs.status) == ("UPDATE", "FAILED")
    assert "Length property cannot be smaller" in rs.status_reason
    assert rs.properties_data == before.properties_data
    assert rs.physical_resource_id == before.physical_resource_id
