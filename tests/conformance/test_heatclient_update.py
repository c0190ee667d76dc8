"""Stack update with python-heatclient, unmodified, over HTTP (a werkzeug server on a loopback
port, as :mod:`tests.conformance.test_heatclient`): ``stacks.update`` (PUT, and PATCH with
``existing``), ``stacks.preview_update``, and the ``openstack stack update`` command itself
(``heatclient.osc.v1.stack.UpdateStack``: ``-t``, ``--existing``, ``--dry-run``, ``--wait``)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from heatclient import exc
from heatclient.osc.v1 import stack as osc_stack

from tests.fixtures.engine import Dropper
from tests.fixtures.stacks import GREETING
from tests.fixtures.wiring import dispatching

V1 = GREETING
V2 = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
resources:
  msg:
    type: OS::Heat::TestResource
    properties: {value: {list_join: [" ", [{get_param: greeting}, world]]}}
  new:
    type: OS::Heat::RandomString
    properties: {length: 6}
outputs:
  msg: {value: {get_attr: [msg, output]}}
  new: {value: {get_attr: [new, value]}}
"""


def outputs(heat: Any, ident: str) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in heat.stacks.get(ident).outputs}


def test_update_put_and_patch_through_heatclient(heat):
    sid = heat.stacks.create(stack_name="up", template=V1)["stack"]["id"]
    before = {r.resource_name: r for r in heat.resources.list(sid)}
    heat.stacks.update("up", template=V2, parameters={"greeting": "hi"})  # by name: 302 + PUT
    st = heat.stacks.get("up")
    assert (st.id, st.stack_status) == (sid, "UPDATE_COMPLETE"), st.stack_status_reason
    outs = outputs(heat, sid)
    assert outs["msg"] == "hi world" and len(outs["new"]) == 6
    res = {r.resource_name: r for r in heat.resources.list(sid)}
    assert set(res) == {"msg", "new"}
    assert res["msg"].physical_resource_id == before["msg"].physical_resource_id
    assert res["msg"].resource_status == "UPDATE_COMPLETE"
    assert res["new"].resource_status == "CREATE_COMPLETE"
    statuses = [e.resource_status for e in heat.events.list(sid, resource_name="msg")]
    assert {"UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"} <= set(statuses)

    heat.stacks.update(sid, existing=True, parameters={"greeting": "hey"})  # PATCH, no template
    assert heat.stacks.get(sid).stack_status == "UPDATE_COMPLETE"
    assert outputs(heat, sid)["msg"] == "hey world"
    assert heat.stacks.template(sid)["outputs"]["new"] == {"value": {"get_attr": ["new",
                                                                                 "value"]}}
    heat.stacks.update(sid, existing=True, clear_parameters=["greeting"])
    assert outputs(heat, sid)["msg"] == "hello world"


def test_preview_update_through_heatclient(heat):
    sid = heat.stacks.create(stack_name="pv", template=V1)["stack"]["id"]
    body = heat.stacks.preview_update("pv", template=V2, parameters={"greeting": "hi"})
    changes = body["resource_changes"]
    assert sorted(changes) == ["added", "deleted", "replaced", "unchanged", "updated"]
    assert [e["resource_name"] for e in changes["added"]] == ["new"]
    assert [e["resource_name"] for e in changes["deleted"]] == ["old"]
    assert [e["resource_name"] for e in changes["updated"]] == ["msg"]
    assert changes["updated"][0]["resource_identity"]["stack_id"] == sid
    body = heat.stacks.preview_update(sid, existing=True, parameters={"greeting": "hello"},
                                      show_nested=True)
    assert [e["resource_name"] for e in body["resource_changes"]["unchanged"]] == ["msg", "old"]
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"  # nothing was written


def test_update_errors_are_heat_faults(heat):
    with pytest.raises(exc.HTTPNotFound) as err:
        heat.stacks.update("nosuch", template=V1)
    assert str(err.value) == "ERROR: The Stack (nosuch) could not be found."
    sid = heat.stacks.create(stack_name="gone", template=V1)["stack"]["id"]
    heat.stacks.delete(sid)
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.update(sid, template=V1)  # the id still resolves; the stack is deleted
    sid = heat.stacks.create(stack_name="bad", template=V1)["stack"]["id"]
    with pytest.raises(exc.HTTPBadRequest) as bad:
        heat.stacks.update(sid, template={"heat_template_version": "2018-08-31",
                                          "resources": {"x": {"type": "OS::Nope"}}})
    assert "OS::Nope" in str(bad.value)
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"
    # Heat's convergence: an update supersedes the create in progress
    with dispatching(Dropper()):
        busy = heat.stacks.create(stack_name="busy", template=V1)["stack"]["id"]
        heat.stacks.update("busy", template=V2)
        assert heat.stacks.get("busy").stack_status == "UPDATE_IN_PROGRESS"
        heat.stacks.delete(busy)  # ...but not a delete in progress
        with pytest.raises(exc.HTTPBadRequest) as deleting:
            heat.stacks.update(busy, template=V2)
    assert str(deleting.value) == "ERROR: Updating a stack when it is deleting is not supported."


def _osc(heat: Any, *argv: str) -> tuple[Any, Any]:
    """Run ``openstack stack update ARGV`` (heatclient's OSC command) against ``heat``."""
    app = SimpleNamespace(client_manager=SimpleNamespace(orchestration=heat))
    cmd = osc_stack.UpdateStack(app, None)
    parsed = cmd.get_parser("openstack stack update").parse_args(list(argv))
    return cmd.take_action(parsed)


def test_openstack_stack_update_command(heat, tmp_path: Path):
    v1, v2 = tmp_path / "v1.yaml", tmp_path / "v2.yaml"
    v1.write_text(V1)
    v2.write_text(V2)
    sid = heat.stacks.create(stack_name="osc", template=V1)["stack"]["id"]

    columns, data = _osc(heat, "osc", "-t", str(v2), "--parameter", "greeting=yo", "--dry-run")
    assert list(columns) == ["added", "deleted", "replaced", "unchanged", "updated"]
    shown = dict(zip(columns, (d.machine_readable() for d in data), strict=True))
    assert [e["resource_name"] for e in shown["added"]] == ["new"]
    assert [e["resource_name"] for e in shown["updated"]] == ["msg"]
    assert '"resource_name": "old"' in data[1].human_readable()
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"

    columns, data = _osc(heat, "osc", "-t", str(v2), "--parameter", "greeting=yo", "--wait")
    row = dict(zip(columns, data, strict=True))
    assert row["stack_status"] == "UPDATE_COMPLETE" and row["id"] == sid
    assert outputs(heat, sid)["msg"] == "yo world"

    columns, data = _osc(heat, "osc", "--existing", "--parameter", "greeting=again",
                         "--rollback", "enabled", "--wait")
    assert dict(zip(columns, data, strict=True))["stack_status"] == "UPDATE_COMPLETE"
    st = heat.stacks.get(sid)
    assert outputs(heat, sid)["msg"] == "again world" and st.disable_rollback is False
    assert {r.resource_name for r in heat.resources.list(sid)} == {"msg", "new"}


REPLACING = """
heat_template_version: 2021-04-16
parameters:
  len: {type: number, default: 8}
resources:
  a: {type: OS::Heat::RandomString, properties: {length: {get_param: len}}}
  b: {type: OS::Heat::Value, properties: {value: {get_attr: [a, value]}}}
  f: {type: OS::Heat::RandomString, properties: {salt: {get_attr: [a, value]}}}
  d: {type: OS::Heat::Value, properties: {value: static}}
"""


def test_dry_run_lists_the_dependents_of_a_replaced_resource_as_heat(heat, tmp_path: Path):
    """``openstack stack update --dry-run`` with ``a`` replaced (a new length): its dependents
    are updated (Value's value may change in place) or replaced (RandomString's salt may not),
    as Heat 27.0.1's preview_update_stack lists them (recorded from the reference Heat)."""
    tmpl = tmp_path / "r.yaml"
    tmpl.write_text(REPLACING)
    sid = heat.stacks.create(stack_name="dry", template=REPLACING)["stack"]["id"]
    columns, data = _osc(heat, "dry", "-t", str(tmpl), "--parameter", "len=9", "--dry-run")
    shown = dict(zip(columns, (d.machine_readable() for d in data), strict=True))
    assert {k: sorted(e["resource_name"] for e in v) for k, v in shown.items()} == {
        "added": [], "deleted": [], "replaced": ["a", "f"], "unchanged": ["d"],
        "updated": ["b"]}
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"
