"""Signals end to end on ``stoker up`` (embedded default, sandbox cloud), driven with
python-heatclient as a user would: a sandbox server whose RAW user data runs its wait condition
handle's ``curl_cli`` (``wc_notify`` through ``str_replace``, the Heat idiom) completes an
``OS::Heat::WaitCondition`` whose ``data`` is ``{"1": "hello"}`` (Heat numbers a signal without
an id from 1, heat/engine/resources/openstack/heat/wait_condition_handle.py); a handle nobody
signals fails its condition at the timeout with Heat's reason."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from tests.fixtures.procs import settled, stoker_up
from tests.integration.test_up import home  # noqa: F401

pytestmark = pytest.mark.integration

SIGNALLED = {
    "heat_template_version": "2016-10-14",
    "parameters": {"timeout": {"type": "number", "default": 120}},
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {"type": "OS::Heat::WaitCondition",
                 "properties": {"handle": {"get_resource": "handle"},
                                "timeout": {"get_param": "timeout"}}},
        "server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}],
            "user_data_format": "RAW",
            "user_data": {"str_replace": {
                "template": "#!/bin/sh\necho configuring\n"
                            "wc_notify --data-binary '{\"status\": \"SUCCESS\", \"data\": \"hello\"}'\n",
                "params": {"wc_notify": {"get_attr": ["handle", "curl_cli"]}}}}}}},
    "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}},
}
UNSIGNALLED = {
    "heat_template_version": "2016-10-14",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {"type": "OS::Heat::WaitCondition",
                 "properties": {"handle": {"get_resource": "handle"}, "timeout": 5}}}}


def test_a_server_signals_its_wait_condition_from_user_data(home: Path) -> None:  # noqa: F811
    with stoker_up(home) as up:
        heat, log = up.heat(), up.log
        created = heat.stacks.create(stack_name="signalled", template=yaml.safe_dump(SIGNALLED))
        stack = settled(heat, created["stack"]["id"])
        assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                          log.read_text()[-3000:])
        (output,) = [o for o in stack.outputs if o["output_key"] == "data"]
        assert json.loads(output["output_value"]) == {"1": "hello"}
        events = [e.resource_status_reason for e in heat.events.list(
            created["stack"]["id"], resource_name="handle")]
        assert any(r and r.startswith("Signal:") for r in events), events

        lonely = heat.stacks.create(stack_name="lonely", template=yaml.safe_dump(UNSIGNALLED))
        failed = settled(heat, lonely["stack"]["id"], 60)
        assert failed.stack_status == "CREATE_FAILED"
        assert "WaitConditionTimeout: resources.wait: 0 of 1 received" in \
            failed.stack_status_reason
        for sid in (created["stack"]["id"], lonely["stack"]["id"]):
            heat.stacks.delete(sid)
        for sid in (created["stack"]["id"], lonely["stack"]["id"]):
            deadline = time.monotonic() + 90
            while heat.stacks.get(sid).stack_status != "DELETE_COMPLETE":
                assert time.monotonic() < deadline
                time.sleep(0.5)
