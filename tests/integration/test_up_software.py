"""Software configs and deployments end to end on ``stoker up`` (embedded default, the sandbox cloud and
its server agent), driven with python-heatclient: a ``script`` SoftwareConfig deployed to a
SOFTWARE_CONFIG server returns its output file's text, status code 0 and its stdout (the
agent runs the script with its inputs as environment variables and ``heat_outputs_path``, as
heat-config's script hook, and signals back as heat-config-notify); a script that exits 3 ends
CREATE_FAILED with 3 in the reason (Heat's "Deployment exited with non-zero status code: 3");
a script that hangs is killed at its timeout and its deployment fails. The first stack polls
through the Orchestration API and signals the resource (POLL_SERVER_HEAT, HEAT_SIGNAL); the
others through the CFN API and its pre-signed URL (Heat's defaults, POLL_SERVER_CFN and
CFN_SIGNAL)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.fixtures.procs import settled, stoker_up
from tests.integration.test_up import home  # noqa: F401

pytestmark = pytest.mark.integration


def _template(script: str, heat: bool = False, timeout: int | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"group": "script", "config": script,
                              "inputs": [{"name": "foo"}], "outputs": [{"name": "result"}]}
    if timeout is not None:
        config["options"] = {"timeout": timeout}
    server: dict[str, Any] = {"image": "cirros", "flavor": "m1.tiny",
                              "networks": [{"network": "private"}],
                              "user_data_format": "SOFTWARE_CONFIG"}
    deployment: dict[str, Any] = {"config": {"get_resource": "config"},
                                  "server": {"get_resource": "server"},
                                  "input_values": {"foo": "bar"}}
    if heat:
        server["software_config_transport"] = "POLL_SERVER_HEAT"
        deployment["signal_transport"] = "HEAT_SIGNAL"
    return {"heat_template_version": "2016-10-14", "resources": {
        "config": {"type": "OS::Heat::SoftwareConfig", "properties": config},
        "server": {"type": "OS::Nova::Server", "properties": server},
        "deployment": {"type": "OS::Heat::SoftwareDeployment", "properties": deployment}},
        "outputs": {"result": {"value": {"get_attr": ["deployment", "result"]}},
                    "stdout": {"value": {"get_attr": ["deployment", "deploy_stdout"]}},
                    "code": {"value": {"get_attr": ["deployment", "deploy_status_code"]}}}}


OK = "#!/bin/sh\necho \"configuring $foo\"\nprintf 'the result is %s' \"$foo\" > $heat_outputs_path.result\n"
EXIT_3 = "#!/bin/sh\necho failing >&2\nexit 3\n"
HANGS = "#!/bin/sh\nsleep 600\n"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "software-deployment.yaml"


def test_script_deployments_run_on_a_sandbox_server(home: Path) -> None:  # noqa: F811
    with stoker_up(home) as up:
        heat, log = up.heat(), up.log
        ok = heat.stacks.create(stack_name="sc-ok", template=yaml.safe_dump(
            _template(OK, heat=True)))["stack"]["id"]
        failing = heat.stacks.create(stack_name="sc-exit3", template=yaml.safe_dump(
            _template(EXIT_3)))["stack"]["id"]
        hanging = heat.stacks.create(stack_name="sc-hang", template=yaml.safe_dump(
            _template(HANGS, timeout=2)))["stack"]["id"]
        example = heat.stacks.create(stack_name="sc-example", template=EXAMPLE.read_text(),
                                     parameters={"name": "stoker"})["stack"]["id"]

        stack = settled(heat, ok)
        assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                          log.read_text()[-3000:])
        outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
        assert outs == {"result": "the result is bar", "stdout": "configuring bar\n",
                        "code": 0}
        server = heat.resources.get(ok, "server")
        meta = heat.resources.metadata(ok, "server")
        (deployed,) = meta["deployments"]
        assert deployed["group"] == "script" and deployed["config"] == OK
        assert meta["os-collect-config"]["collectors"] == ["heat", "local"]
        assert meta["os-collect-config"]["heat"]["resource_name"] == "server"
        assert server.physical_resource_id

        stack = settled(heat, failing)
        assert stack.stack_status == "CREATE_FAILED", log.read_text()[-3000:]
        assert stack.stack_status_reason == (
            "Resource CREATE failed: Error: resources.deployment: Deployment to server "
            "failed: deploy_status_code : Deployment exited with non-zero status code: 3")

        stack = settled(heat, hanging)
        assert stack.stack_status == "CREATE_FAILED", log.read_text()[-3000:]
        assert stack.stack_status_reason.endswith(
            "Deployment exited with non-zero status code: 124")
        stderr = heat.resources.get(hanging, "deployment").attributes["deploy_stderr"]
        assert "Killed: the config ran longer than its timeout of 2 s" in stderr

        stack = settled(heat, example)  # the README's example
        assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
        outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
        assert outs == {"greeting": "hello, stoker", "stdout": "deploying for stoker\n",
                        "status_code": 0}

        for sid in (ok, failing, hanging, example):
            heat.stacks.delete(sid)
        for sid in (ok, failing, hanging, example):
            deadline = time.monotonic() + 90
            while heat.stacks.get(sid).stack_status != "DELETE_COMPLETE":
                assert time.monotonic() < deadline
                time.sleep(0.5)
