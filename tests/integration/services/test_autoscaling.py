"""OS::Heat::AutoScalingGroup through the engine (SQLite, in-process dispatcher), as Heat's
autoscaling_group.py: created at desired_capacity, members named by 12-character short ids,
``adjust`` resizes the nested stack, shrinking removes the oldest members; bounds and the
cooldown as heat/scaling/scalingutil.py and cooldown.py."""
import re

import pytest
from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import scaling, stacks, updates

CTX = RequestContext(tenant_id="asg")


def T(desired=2, lo=1, hi=3, cooldown=0, value="m"):
    return {"heat_template_version": "2018-08-31", "resources": {
        "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": lo, "max_size": hi, "desired_capacity": desired, "cooldown": cooldown,
            "resource": {"type": "OS::Heat::Value", "properties": {"value": value}}}},
        "up": {"type": "OS::Heat::ScalingPolicy", "properties": {
            "auto_scaling_group_id": {"get_resource": "asg"},
            "adjustment_type": "change_in_capacity", "scaling_adjustment": 1}}},
        "outputs": {"size": {"value": {"get_attr": ["asg", "current_size"]}},
                    "values": {"value": {"get_attr": ["asg", "outputs_list", "value"]}},
                    "refs_map": {"value": {"get_attr": ["asg", "refs_map"]}}}}


def _outs(st):
    st = stacks.get_by_id(CTX, st.id)
    return {o["output_key"]: o["output_value"] for o in stacks.stack_outputs(st)}


def _members(st):
    """The child's live members, oldest first."""
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()
        rows = s.execute(select(Resource).where(Resource.stack_id == child.id)
                         .order_by(Resource.created_at, Resource.id)).scalars().all()
        return [r.name for r in rows if r.action != "DELETE" and r.action != "INIT"]


def test_created_at_desired_capacity_with_short_id_names(db):
    st = stacks.create_stack(CTX, stack_name="asg1", template=T(desired=2))
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = _outs(st)
    assert outs["size"] == 2 and outs["values"] == ["m", "m"]
    assert all(re.fullmatch(r"[a-z2-7]{12}", n) for n in outs["refs_map"])


def test_adjust_up_then_down_removes_the_oldest(db):
    st = stacks.create_stack(CTX, stack_name="asg2", template=T(desired=1))
    (first,) = _members(st)
    assert scaling.adjust(st.id, "asg", 1) == 2
    assert _outs(st)["size"] == 2
    assert scaling.adjust(st.id, "asg", 1) == 3
    members = _members(st)
    assert len(members) == 3 and members[0] == first
    assert scaling.adjust(st.id, "asg", -1) == 2
    left = _members(st)
    assert first not in left and left == members[1:]
    outs = _outs(st)
    assert outs["size"] == 2 and sorted(outs["refs_map"]) == sorted(left)


def test_bounds_and_no_change(db):
    st = stacks.create_stack(CTX, stack_name="asg3", template=T(desired=3))
    with pytest.raises(errors.NoActionRequired):
        scaling.adjust(st.id, "asg", 1)  # already at max_size: no change
    with pytest.raises(errors.NoActionRequired):
        scaling.adjust(st.id, "asg", 10, "exact_capacity")  # capped at max_size 3
    assert scaling.adjust(st.id, "asg", -50, "percent_change_in_capacity") == 2  # -1.5 -> -1
    assert scaling.adjust(st.id, "asg", 0, "exact_capacity") == 1  # min_size
    assert len(_members(st)) == 1


def test_cooldown_refuses_a_second_adjustment_and_changes_nothing(db):
    st = stacks.create_stack(CTX, stack_name="asg4", template=T(desired=1, cooldown=3600))
    # the create itself starts the cooldown (Heat's _finished_scaling after create)
    with pytest.raises(errors.NoActionRequired, match="due to cooldown, cooldown 3600"):
        scaling.adjust(st.id, "asg", 1)
    # a policy's own cooldown of 0 does not lift the group's cooldown_end
    with pytest.raises(errors.NoActionRequired, match="due to cooldown"):
        scaling.adjust(st.id, "asg", 1, cooldown=0)
    assert len(_members(st)) == 1


def test_policy_signal_adjusts_the_group(db):
    from app.resource_types import registry
    st = stacks.create_stack(CTX, stack_name="asg5", template=T(desired=1))
    with read_session() as s:
        asg = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                               Resource.name == "asg")).scalar_one()
    cls = registry.get("OS::Heat::ScalingPolicy")
    from app.convergence import runtime
    from app.convergence.store import definitions
    policy = cls("up", {"auto_scaling_group_id": asg.physical_resource_id,
                        "adjustment_type": "change_in_capacity", "scaling_adjustment": 1},
                 stack=definitions.identity(st.name, st.id, st.tenant))
    policy.adjuster = runtime.current().scaling_adjuster  # as the engine hands it
    assert policy.handle_signal({"current": "alarm"}) is None  # Heat's returns nothing
    assert _outs(st)["size"] == 2


def test_unknown_group_is_not_found(db):
    st = stacks.create_stack(CTX, stack_name="asg6", template=T(desired=1))
    with pytest.raises(errors.NotFound):
        scaling.adjust(st.id, "nope", 1)


def test_validation_of_sizes(db):
    with pytest.raises(errors.StokerError, match="DesiredCapacity must be between MinSize and MaxSize"):
        stacks.create_stack(CTX, stack_name="asg7", template=T(desired=5))
    with pytest.raises(errors.StokerError, match="MinSize can not be greater than MaxSize"):
        stacks.create_stack(CTX, stack_name="asg8", template=T(desired=None, lo=3, hi=2))


def test_stack_update_of_the_member_definition_rolls_it_out(db):
    st = stacks.create_stack(CTX, stack_name="asg9", template=T(desired=2))
    names = sorted(_outs(st)["refs_map"])
    updates.update_stack(CTX, st.name, st.id, template=T(desired=2, value="n"))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    outs = _outs(st)
    assert outs["values"] == ["n", "n"] and sorted(outs["refs_map"]) == names


def test_update_preview_of_a_group_resize(db, client):
    r = client.post("/v1/asg/stacks", json={"stack_name": "asgp", "template": T(desired=1)})
    assert r.status_code == 201, r.get_json()
    sid = r.get_json()["stack"]["id"]
    got = client.put(f"/v1/asg/stacks/asgp/{sid}/preview", json={"template": T(desired=2)})
    assert got.status_code == 200, got.get_json()
    changes = got.get_json()["resource_changes"]
    assert "asg" in [c["resource_name"] for c in changes["updated"]]


def _group_data(st):
    with read_session() as s:
        return s.execute(select(Resource).where(Resource.stack_id == st.id,
                                                Resource.name == "asg")).scalar_one()


def _set_data(st, data):
    from app.models import session
    with session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                               Resource.name == "asg")).scalar_one()
        row.rsrc_data = data


def test_a_scaling_whose_end_was_lost_is_settled_by_the_next_adjust(db):
    """The child's traversal ended but nothing settled the scaling (a worker died after the
    child's commit): the next adjust ends it first, as if it had ended, and goes on."""
    st = stacks.create_stack(CTX, stack_name="asg10", template=T(desired=1))
    row = _group_data(st)
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()
    data = dict(row.rsrc_data)
    data["scaling"] = {**data.get("scaling", {}), "scaling_in_progress": True}
    data["scaling_op"] = {"cooldown": 0, "reason": "change_in_capacity : 1",
                          "marked": "2026-01-01T00:00:00", "ct": child.current_traversal}
    _set_data(st, data)
    assert scaling.adjust(st.id, "asg", 1) == 2
    assert _group_data(st).rsrc_data["scaling"]["scaling_in_progress"] is False


def test_a_scaling_that_never_started_its_resize_is_given_up_after_a_while(db):
    st = stacks.create_stack(CTX, stack_name="asg11", template=T(desired=1))
    data = dict(_group_data(st).rsrc_data)
    data["scaling"] = {"scaling_in_progress": True}
    data["scaling_op"] = {"cooldown": 0, "reason": "x", "marked": "2000-01-01T00:00:00"}
    _set_data(st, data)
    assert scaling.adjust(st.id, "asg", 1) == 2
    # a fresh mark (its resize may still be starting) is respected
    data = dict(_group_data(st).rsrc_data)
    from app.models import utcnow
    data["scaling"] = {"scaling_in_progress": True}
    data["scaling_op"] = {"cooldown": 0, "reason": "x", "marked": utcnow().isoformat()}
    _set_data(st, data)
    with pytest.raises(errors.NoActionRequired, match="due to scaling activity"):
        scaling.adjust(st.id, "asg", 1)


def test_resource_show_gives_the_group_attributes(db, client):
    r = client.post("/v1/asg/stacks", json={"stack_name": "shw", "template": T(desired=2)})
    sid = r.get_json()["stack"]["id"]
    scaling.adjust(sid, "asg", 1)
    attrs = client.get(f"/v1/asg/stacks/shw/{sid}/resources/asg").get_json()["resource"][
        "attributes"]
    assert attrs["current_size"] == 3 and len(attrs["refs"]) == 3
    assert sorted(attrs["refs_map"].values()) == sorted(attrs["refs"])
    assert attrs["outputs"] is None and attrs["outputs_list"] is None


def test_an_unknown_or_invalid_member_is_refused_up_front(db):
    bad = T(desired=1)
    bad["resources"]["asg"]["properties"]["resource"] = {"type": "OS::Nope::Nothing"}
    with pytest.raises(errors.StokerError, match=r"The Resource Type \(OS::Nope::Nothing\) "
                                                 r"could not be found"):
        stacks.create_stack(CTX, stack_name="asg12", template=bad)
    bad["resources"]["asg"]["properties"]["resource"] = {
        "type": "OS::Heat::Value", "properties": {"nope": 1}}
    with pytest.raises(errors.StokerError, match="nope"):
        stacks.create_stack(CTX, stack_name="asg13", template=bad)
    with read_session() as s:
        assert s.execute(select(Stack).where(Stack.name.in_(["asg12", "asg13"]))).first() is None
