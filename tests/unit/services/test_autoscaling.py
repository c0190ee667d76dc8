"""OS::Heat::AutoScalingGroup's pure parts, as Heat's autoscaling_group.py and
heat/scaling/: which members a scale-down removes, ISO 8601 durations and update batches,
where a rolling update then a resize pause."""
import pytest


def test_scale_down_drops_failed_members_first_then_the_oldest():
    from app.convergence.nested import scaling_group
    d = {"type": "OS::Heat::Value"}
    old = [("failed", d, True), ("oldest", d, False), ("middle", d, False), ("newest", d, False)]
    _, names = scaling_group.template(d, old, 2, 0, set())
    assert names == ["middle", "newest"]
    _, names = scaling_group.template(d, old, 3, 0, set())
    assert names == ["oldest", "middle", "newest"]


def test_iso_durations_and_update_batches_of_the_group_types():
    from app.convergence.nested import scaling_group as sg
    assert sg.iso_seconds("PT1M30S") == 90 and sg.iso_seconds("PT0S") == 0
    assert sg.iso_seconds("PT2H") == 7200
    with pytest.raises(ValueError, match="PT#H#M#S"):
        sg.iso_seconds("P1D")
    d = {"type": "X"}
    old = [(n, d, False) for n in "abc"]
    # OS group: a changed resource rolls out in rolling_updates batches, then stays at 3
    new = {"min_size": 1, "max_size": 5, "resource": {"type": "Y"},
           "rolling_updates": {"max_batch_size": 2, "pause_time": 4}}
    assert sg.update_batches(sg.OS_ASG, new, {**new, "resource": d}, old) == \
        ([(3, 2), (3, 1)], 4.0, 2)
    # unchanged resource, desired_capacity 5: one resize
    assert sg.update_batches(sg.OS_ASG, {**new, "desired_capacity": 5}, new, old) == \
        ([(5, 0)], 0.0, 0)
    # an instance group rolls out only with a RollingUpdate policy and a new launch config
    ig = {"Size": 3, "LaunchConfigurationName": "lc2"}
    policy = {"RollingUpdate": {"MaxBatchSize": 1, "PauseTime": "PT1S"}}
    assert sg.update_batches(sg.INSTANCE_GROUP, ig, {**ig, "LaunchConfigurationName": "lc1"},
                             old, policy) == ([(3, 1), (3, 1), (3, 1)], 1.0, 3)
    assert sg.update_batches(sg.INSTANCE_GROUP, ig, {**ig, "LaunchConfigurationName": "lc1"},
                             old) == ([(3, 0)], 0.0, 0)


def test_a_rollout_then_resize_pauses_only_between_rollout_batches():
    from types import SimpleNamespace

    from app.convergence.nested import group_batches
    from app.engine.states import Status
    handle = group_batches.plan([(2, 1), (2, 1), (4, 0)], 30, 3600, paused=2)
    child = SimpleNamespace(current_traversal="t", status=Status.COMPLETE)
    handle["ct"] = "t"
    assert group_batches.batch_state(handle, child) == "pause"  # after the 1st rollout batch
    handle["resume"] = 0  # the pause is over
    assert group_batches.batch_state(handle, child) == "next"
    handle["i"] = 1
    assert group_batches.batch_state(handle, child) == "next"  # no pause before the resize
    handle["i"] = 2
    assert group_batches.batch_state(handle, child) == "done"
    with pytest.raises(ValueError, match="stack update timeout"):
        group_batches.plan([(2, 1), (2, 1), (4, 0)], 1800, 3600, paused=3)
