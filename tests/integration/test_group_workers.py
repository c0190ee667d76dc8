"""Groups with two real Celery worker processes, real Redis and PostgreSQL: ResourceGroup
removal_policies and rolling updates in batches (Heat's resource_group.py), the order of the
member updates read from the child stack's events (not from timing)."""
from __future__ import annotations

import itertools
from typing import Any

import pytest

from app.services import stacks, updates
from tests.fixtures.groups import CTX, asg, child_of, live_members, outputs, scaled
from tests.fixtures.stacks import events, final
from tests.integration.conftest import module_fleet

pytestmark = pytest.mark.integration


def group(count: int, value: str = "v%index%", **extra: Any) -> dict[str, Any]:
    policy = extra.pop("update_policy", None)
    g: dict[str, Any] = {"type": "OS::Heat::ResourceGroup", "properties": {
        "count": count, "resource_def": {"type": "OS::Heat::TestResource",
                                         "properties": {"value": value, "wait_secs": 0.2}},
        **extra}}
    if policy:
        g["update_policy"] = policy
    return {"heat_template_version": "2018-08-31", "resources": {"g": g},
            "outputs": {"vals": {"value": {"get_attr": ["g", "output"]}},
                        "refs_map": {"value": {"get_attr": ["g", "refs_map"]}},
                        "removed": {"value": {"get_attr": ["g", "removed_rsrc_list"]}}}}


# one database and fleet for the module: every test works on a group of its own (the tests that
# kill workers are in test_group_workers_alone.py)
engine_settings, workers = module_fleet("groups")


def test_removal_policies_remove_the_named_member_and_the_name_stays_removed(workers):
    st = stacks.create_stack(CTX, stack_name="grp-rm", template=group(3))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    updates.update_stack(CTX, st.name, st.id,
                         template=group(2, removal_policies=[{"resource_list": ["0"]}]))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    outs = outputs(st)
    assert sorted(outs["refs_map"]) == ["1", "2"]
    assert outs["vals"] == ["v1", "v2"] and outs["removed"] == ["0"]
    child = child_of(st)
    assert ("0", "DELETE", "COMPLETE") in {(e.resource_name, e.action, e.status)
                                           for e in events(child.id)}
    updates.update_stack(CTX, st.name, st.id, template=group(3))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert outputs(st)["vals"] == ["v1", "v2", "v3"] and outputs(st)["removed"] == ["0"]



def test_rolling_update_changes_members_in_batches_with_a_pause(workers):
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 1}}
    st = stacks.create_stack(CTX, stack_name="grp-roll", template=group(5, update_policy=policy))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    child = child_of(st)
    before = len(events(child.id))
    updates.update_stack(CTX, st.name, st.id, template=group(5, "w%index%", update_policy=policy))
    st = final(CTX, st.id, 240)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert outputs(st)["vals"] == [f"w{i}" for i in range(5)]
    evs = events(child.id)[before:]
    members = [e for e in evs if e.resource_name in {"0", "1", "2", "3", "4"}]
    # batches of 2, highest index first: {4, 3}, then {2, 1}, then {0}; no member of a batch
    # starts before every member of the previous one completed
    batches = [{"4", "3"}, {"2", "1"}, {"0"}]
    for earlier, later in itertools.pairwise(batches):
        last_done = max(i for i, e in enumerate(members)
                        if e.resource_name in earlier and e.status == "COMPLETE")
        first_start = min(i for i, e in enumerate(members)
                          if e.resource_name in later and e.status == "IN_PROGRESS")
        assert last_done < first_start, [(e.resource_name, e.action, e.status) for e in members]
    child_updates = [e for e in evs if e.resource_name == child.name
                     and e.action == "UPDATE" and e.status == "COMPLETE"]
    assert len(child_updates) == 3



def test_autoscaling_group_created_at_desired_capacity_and_adjusted(workers):
    from app.services import scaling
    st = stacks.create_stack(CTX, stack_name="asg-adj", template=asg(2))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    assert outputs(st)["size"] == 2 and len(live_members(st)) == 2
    oldest = live_members(st)
    assert scaling.adjust(st.id, "asg", 1) == 3
    st = scaled(st, 3)
    grown = live_members(st)
    assert grown[:2] == oldest and len(grown) == 3
    child = final(CTX, child_of(st).id, 60)
    assert child.stack_status == "UPDATE_COMPLETE", child.status_reason
    assert scaling.adjust(st.id, "asg", -2) == 1
    st = scaled(st, 1)
    assert live_members(st) == grown[2:]  # the two oldest went
    assert sorted(outputs(st)["refs_map"]) == grown[2:]
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id, 180).stack_status == "DELETE_COMPLETE"
