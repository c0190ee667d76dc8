"""The ``openstack stack ...`` commands (python-openstackclient + heatclient's OSC plugin,
unmodified, in process) for the stack actions, mark unhealthy and snapshots against the API
over HTTP (in-process engine on SQLite). Expected states are Heat's."""
from __future__ import annotations

import json

import yaml

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  rs: {type: OS::Heat::RandomString}
"""


def _show(osc, name):  # type: ignore[no-untyped-def]
    return json.loads(osc("stack", "show", name, "-f", "json"))


def test_openstack_stack_actions_mark_unhealthy_and_snapshots(osc, tmp_path):  # type: ignore[no-untyped-def]
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    osc("stack", "create", "-t", str(template), "--wait", "cli")
    osc("stack", "suspend", "cli")
    assert _show(osc, "cli")["stack_status"] == "SUSPEND_COMPLETE"
    osc("stack", "resume", "cli")
    assert _show(osc, "cli")["stack_status"] == "RESUME_COMPLETE"
    osc("stack", "check", "cli")
    st = _show(osc, "cli")
    assert (st["stack_status"], st["stack_status_reason"]) == (
        "CHECK_COMPLETE",
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")
    osc("stack", "resource", "mark", "unhealthy", "cli", "rs", "broken")
    rs = json.loads(osc("stack", "resource", "show", "cli", "rs", "-f", "json"))
    assert (rs["resource_status"], rs["resource_status_reason"]) == ("CHECK_FAILED", "broken")
    snap = json.loads(osc("stack", "snapshot", "create", "cli", "--name", "s1", "-f", "json"))
    listed = json.loads(osc("stack", "snapshot", "list", "cli", "-f", "json"))
    sid = snap["ID"]  # the CLI's create shows the id as "ID"
    assert [(s["id"], s["name"], s["status"]) for s in listed] == [(sid, "s1", "COMPLETE")]
    shown = yaml.safe_load(osc("stack", "snapshot", "show", "cli", sid))["snapshot"]
    assert (shown["id"], shown["name"], shown["status"]) == (sid, "s1", "COMPLETE")
    assert shown["data"]["resources"]["rs"]["type"] == "OS::Heat::RandomString"
    osc("stack", "snapshot", "restore", "cli", sid)
    assert _show(osc, "cli")["stack_status"] == "RESTORE_COMPLETE"
    osc("stack", "snapshot", "delete", "cli", sid, "-y")
    assert json.loads(osc("stack", "snapshot", "list", "cli", "-f", "json")) == []
