"""An UPDATE settles at its start the nodes whose steps would do nothing
(:mod:`app.convergence.unchanged`): only what changes, and what comes after it, runs. The
outcome is Heat's convergence update's, where every node runs and the unchanged ones do
nothing."""
from __future__ import annotations

from sqlalchemy import select

from app import convergence
from app.context import RequestContext
from app.models import Resource, SyncPoint, read_session
from app.services import stacks, updates
from tests.fixtures.stacks import events, hot, knob, rows

CTX = RequestContext(tenant_id="unchanged")


def _template(c_value: str, replace: bool = False) -> dict:
    c = knob(c_value, update_replace=True) if replace else knob(c_value)
    c["properties"]["value"] = {"list_join": ["", [c_value, {"get_resource": "b"}]]}
    return hot({"a": knob("one"),
                "b": knob({"get_resource": "a"}),       # only a reference: settled with a
                "c": c,                                   # the change
                "d": knob({"get_resource": "c"}),       # after the change: runs
                "f": knob("k"),                           # unchanged, but an attribute of it
                "g": knob({"get_attr": ["f", "output"]}),  # is read: both run (read live)
                "h": knob("alone")},                      # unchanged, alone: settled
               {"d": {"value": {"get_attr": ["d", "output"]}}})


def _update(rec, st, template):
    """Run an update, :returns: the names of the nodes that ran, as ``(name, is_update)``."""
    updates.update_stack(CTX, st.name, st.id, template=template)
    ids = {r.id: n for n, r in rows(st.id).items()}
    ran = []
    while rec.queue:
        args = rec.queue.pop(0)
        ran.append((ids[args[2]], args[3]))
        convergence.check_resource(*args)
    return ran, stacks.get_by_id(CTX, st.id)


def test_only_the_change_and_what_follows_it_run_and_the_outcome_is_unchanged(rec):
    st = stacks.create_stack(CTX, stack_name="unchanged", template=_template("x"))
    rec.run_all()
    before = rows(st.id)
    n_events = len(events(st.id))
    ran, st = _update(rec, st, _template("y"))
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    forward = {n for n, upd in ran if upd}
    assert forward == {"c", "d", "f", "g"}  # a, b, h settled: their steps would do nothing
    # cleanup nodes that run: those that order something after them, or follow a change
    assert ("a", False) not in ran and ("h", False) not in ran
    after = rows(st.id)
    assert after["c"].action == "UPDATE" and after["c"].properties_data["value"] == \
        "y" + before["b"].physical_resource_id
    for name in ("a", "b", "h", "f", "g", "d"):  # untouched, as Heat leaves them
        assert (after[name].action, after[name].status) == (before[name].action, "COMPLETE")
        assert after[name].updated_at == before[name].updated_at
        assert after[name].physical_resource_id == before[name].physical_resource_id
        assert after[name].engine_id is None
    new = [(e.resource_name, e.action, e.status)
           for e in events(st.id)[n_events:] if e.resource_name != "unchanged"]
    assert new == [("c", "UPDATE", "IN_PROGRESS"), ("c", "UPDATE", "COMPLETE")]
    outputs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert outputs["d"] == after["c"].physical_resource_id


def test_a_replacement_moves_what_references_it_and_the_old_one_is_deleted(rec):
    st = stacks.create_stack(CTX, stack_name="unchanged-rep", template=_template("x", True))
    rec.run_all()
    before = rows(st.id)
    ran, st = _update(rec, st, _template("y", True))
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    after = rows(st.id)
    assert after["c"].physical_resource_id != before["c"].physical_resource_id
    assert after["d"].properties_data["value"] == after["c"].physical_resource_id
    assert after["d"].action == "UPDATE"
    assert ("c", False) in ran  # the cleanup node that deletes the replaced one
    deleted = [e for e in events(st.id) if e.resource_name == "c"
               and e.action == "DELETE" and e.status == "COMPLETE"]
    assert [e.physical_resource_id for e in deleted] == [before["c"].physical_resource_id]
    assert {n for n, upd in ran if upd} == {"c", "d", "f", "g"}


def test_an_update_that_changes_nothing_completes_with_no_node_of_its_own(rec):
    st = stacks.create_stack(CTX, stack_name="unchanged-all",
                             template=hot({"a": knob("one"), "b": knob({"get_resource": "a"})}))
    rec.run_all()
    ran, st = _update(rec, st, hot({"a": knob("one"), "b": knob({"get_resource": "a"})}))
    assert st.stack_status == "UPDATE_COMPLETE" and ran == []
    with read_session() as s:
        tid = s.execute(select(Resource.stack_id).limit(1)).scalar()
        assert tid == st.id
        assert not s.execute(select(SyncPoint).where(
            SyncPoint.traversal_id == st.current_traversal)).first()


def test_a_failed_resource_is_not_settled_and_is_tried_again(rec):
    template = hot({"a": knob("one", fail=True), "b": knob({"get_resource": "a"})})
    st = stacks.create_stack(CTX, stack_name="unchanged-failed", disable_rollback=True,
                             template=template)
    rec.run_all()
    assert rows(st.id)["a"].status == "FAILED"
    ran, st = _update(rec, st, template)  # the same template: Heat tries the failed one again
    assert ("a", True) in ran
    assert st.stack_status == "UPDATE_FAILED"


def test_a_row_locked_and_changed_since_it_was_judged_is_not_settled(rec):
    from sqlalchemy import update

    from app.convergence import unchanged
    from app.convergence.store import definitions
    from app.engine import update_plan
    from app.models import session
    st = stacks.create_stack(CTX, stack_name="unchanged-key",
                             template=hot({"a": knob("one"), "b": knob("two")}))
    rec.run_all()
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    with read_session() as s:  # judged with these rows...
        by_name = {r.name: r for r in s.execute(select(Resource).where(
            Resource.stack_id == st.id)).scalars()}
    with session() as s:  # ...then a step locks "a", changes it and lets go: its key moves
        s.execute(update(Resource).where(Resource.id == by_name["a"].id)
                  .values(atomic_key=Resource.atomic_key + 1))
    p = update_plan.plan({"a": set(), "b": set()}, {"a": set(), "b": set()})
    with session() as s:
        out = unchanged.settle(s, loaded, by_name, p)
    assert out.settled == {"b"}
    assert ("a", True) in out.plan.expected


def test_a_plugin_that_acts_on_every_update_is_not_settled(rec):
    """The settling gives the classifier's verdict: a plugin whose class may act with its
    properties unchanged (Heat's ``_needs_update`` overrides: an UpdateWaitConditionHandle is
    replaced on every update) keeps its node, and its step replaces it."""
    template = hot({"h": {"type": "OS::Heat::UpdateWaitConditionHandle"}, "a": knob("one")})
    st = stacks.create_stack(CTX, stack_name="unchanged-handle", template=template)
    rec.run_all()
    before = rows(st.id)
    ran, st = _update(rec, st, template)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert ("h", True) in ran and ("a", True) not in ran
    after = rows(st.id)
    assert after["h"].physical_resource_id != before["h"].physical_resource_id
    assert after["a"].updated_at == before["a"].updated_at
