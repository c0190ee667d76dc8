"""python-heatclient's snapshots (``stacks.snapshot``, ``snapshot_list``, ``snapshot_show``,
``snapshot_delete``, ``restore``) against the API with the in-process engine. Shapes, states
and faults as Heat's (heat/engine/service.py stack_snapshot & co, heat/engine/api.py
format_snapshot)."""
from __future__ import annotations

import pytest
from heatclient import exc

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  len: {type: number, default: 10}
resources:
  rs:
    type: OS::Heat::RandomString
    properties: {length: {get_param: len}}
outputs:
  value: {value: {get_attr: [rs, value]}}
"""


def _value(heat, sid):  # type: ignore[no-untyped-def]
    return {o["output_key"]: o["output_value"] for o in heat.stacks.get(sid).outputs}["value"]


def test_snapshot_list_show_restore_delete(heat):  # type: ignore[no-untyped-def]
    sid = heat.stacks.create(stack_name="snap", template=TEMPLATE)["stack"]["id"]
    original = _value(heat, sid)
    snap = heat.stacks.snapshot(sid, "first")
    assert set(snap) == {"id", "name", "action", "status", "status_reason", "data",
                         "creation_time"}
    shown = heat.stacks.snapshot_show(sid, snap["id"])["snapshot"]
    assert (shown["name"], shown["action"], shown["status"], shown["status_reason"]) == (
        "first", "CREATE", "COMPLETE", "Stack SNAPSHOT completed successfully")
    assert shown["data"]["resources"]["rs"]["type"] == "OS::Heat::RandomString"
    st = heat.stacks.get(sid)
    assert (st.stack_status, st.stack_status_reason) == (
        "SNAPSHOT_COMPLETE", "Stack SNAPSHOT completed successfully")
    res = heat.resources.get(sid, "rs")
    assert res.resource_status == "SNAPSHOT_COMPLETE"
    assert [s["id"] for s in heat.stacks.snapshot_list(sid)["snapshots"]] == [snap["id"]]

    # an update replaces the string (new length), then the restore brings the template back
    heat.stacks.update(sid, template=TEMPLATE, parameters={"len": 20})
    assert len(_value(heat, sid)) == 20
    heat.stacks.restore(sid, snap["id"])
    st = heat.stacks.get(sid)
    assert (st.stack_status, st.stack_status_reason) == (
        "RESTORE_COMPLETE", "Stack RESTORE completed successfully")
    # better than Heat (which generates a new string on restore): the snapshot's value is back
    assert _value(heat, sid) == original
    assert heat.resources.get(sid, "rs").attributes["value"] == original

    heat.stacks.snapshot_delete(sid, snap["id"])
    assert heat.stacks.snapshot_list(sid)["snapshots"] == []
    with pytest.raises(exc.HTTPNotFound) as err:
        heat.stacks.snapshot_show(sid, snap["id"])
    assert f"The Snapshot ({snap['id']}) for Stack (snap) could not be found." in str(err.value)


def test_restore_keeps_generated_values_of_unchanged_resources(heat):  # type: ignore[no-untyped-def]
    """A resource the snapshot has as it is now is left alone by the restore."""
    sid = heat.stacks.create(stack_name="keepval", template=TEMPLATE)["stack"]["id"]
    value = _value(heat, sid)
    snap = heat.stacks.snapshot(sid, "s")
    heat.stacks.restore(sid, snap["id"])
    assert heat.stacks.get(sid).stack_status == "RESTORE_COMPLETE"
    assert _value(heat, sid) == value


def test_snapshot_of_another_stack_is_a_404(heat):  # type: ignore[no-untyped-def]
    a = heat.stacks.create(stack_name="sa", template=TEMPLATE)["stack"]["id"]
    b = heat.stacks.create(stack_name="sb", template=TEMPLATE)["stack"]["id"]
    snap = heat.stacks.snapshot(a, "of-a")
    for call in (lambda: heat.stacks.snapshot_show(b, snap["id"]),
                 lambda: heat.stacks.restore(b, snap["id"]),
                 lambda: heat.stacks.snapshot_delete(b, snap["id"])):
        with pytest.raises(exc.HTTPNotFound) as err:
            call()
        assert f"The Snapshot ({snap['id']}) for Stack (sb) could not be found." \
            in str(err.value)
    assert heat.stacks.snapshot_show(a, snap["id"])["snapshot"]["status"] == "COMPLETE"


def test_snapshot_and_restore_refused_in_the_wrong_state(db):  # type: ignore[no-untyped-def]
    """Heat's ActionInProgress (409) while the stack is in progress; NotSupported (400) for
    deleting a snapshot being taken or restoring an incomplete one."""
    from app import errors
    from app.context import RequestContext
    from app.models import Snapshot, Stack, session
    from app.services import snapshots, stacks
    ctx = RequestContext(tenant_id="t1")
    st = stacks.create_stack(ctx, stack_name="busy", template=TEMPLATE)
    snap = snapshots.create_snapshot(ctx, "busy", st.id, "ok")
    with session() as s:
        s.get(Snapshot, snap["id"]).status = "IN_PROGRESS"
    with pytest.raises(errors.BadRequest) as err:
        snapshots.delete_snapshot(ctx, "busy", st.id, snap["id"])
    assert (err.value.heat_type, err.value.message) == (
        "NotSupported", "Deleting in-progress snapshot is not supported.")
    with pytest.raises(errors.BadRequest) as err:
        snapshots.restore_snapshot(ctx, "busy", st.id, snap["id"])
    assert err.value.message == "Restoring incomplete snapshot is not supported."
    with session() as s:
        row = s.get(Stack, st.id)
        row.action, row.status = "UPDATE", "IN_PROGRESS"
    with pytest.raises(errors.Conflict) as err:
        snapshots.create_snapshot(ctx, "busy", st.id, "again")
    assert (err.value.http_status, err.value.heat_type) == (409, "ActionInProgress")
    assert len(snapshots.list_snapshots(ctx, "busy", st.id)) == 1
