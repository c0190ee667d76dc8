"""The CFN API end to end: on ``stoker up`` (embedded default: SQLite, private Redis, workers,
the sandbox cloud, noauth), the CFN API on its own port serves boto3's cloudformation client with
any keys through the whole scenario (:mod:`tests.fixtures.cfn`), every action through the AWS
CLI unchanged (``aws cloudformation ... --endpoint-url``), and stacks made through it are
visible through the Orchestration API."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.fixtures import cfn
from tests.fixtures.procs import stop_groups
from tests.integration.test_up import _free_port, _port_open, _stoker, home  # noqa: F401

pytestmark = pytest.mark.integration
AWS = Path(sys.executable).parent / "aws"


def _aws(env: dict[str, str], endpoint: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(AWS), "cloudformation", *args, "--endpoint-url", endpoint,
                           "--output", "json"], env=env, capture_output=True, text=True,
                          timeout=240)


def _ok(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def _aws_cli_every_action(env: dict[str, str], endpoint: str, home_dir: Path) -> None:
    template = home_dir / "t.json"
    template.write_text(json.dumps(cfn.TEMPLATE))
    body = f"file://{template}"
    aws = lambda *a: _aws(env, endpoint, *a)
    assert _ok(aws("validate-template", "--template-body", body))["Parameters"][0][
        "ParameterKey"] == "Length"
    assert _ok(aws("estimate-template-cost", "--template-body", body))["Url"] == \
        "http://en.wikipedia.org/wiki/Gratis"
    arn = _ok(aws("create-stack", "--stack-name", "cli", "--template-body", body,
                  "--parameters", "ParameterKey=Length,ParameterValue=12",
                  "--timeout-in-minutes", "20", "--disable-rollback",
                  "--capabilities", "CAPABILITY_IAM"))["StackId"]
    assert arn.startswith("arn:openstack:heat::admin:stacks/cli/")
    _ok(aws("wait", "stack-create-complete", "--stack-name", "cli"))
    stack = _ok(aws("describe-stacks", "--stack-name", "cli"))["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE" and stack["TimeoutInMinutes"] == 20
    assert stack["DisableRollback"] is True
    assert len(stack["Outputs"][0]["OutputValue"].split("|")[1]) == 12
    assert "cli" in [s["StackName"] for s in _ok(aws("list-stacks"))["StackSummaries"]]
    names = {r["LogicalResourceId"] for r in _ok(aws("list-stack-resources", "--stack-name",
                                                     "cli"))["StackResourceSummaries"]}
    assert names == {"Group", "Password"}
    detail = _ok(aws("describe-stack-resource", "--stack-name", "cli",
                     "--logical-resource-id", "Password"))["StackResourceDetail"]
    assert detail["ResourceStatus"] == "CREATE_COMPLETE"
    assert len(_ok(aws("describe-stack-resources", "--stack-name", "cli"))[
        "StackResources"]) == 2
    assert _ok(aws("describe-stack-events", "--stack-name", "cli"))["StackEvents"]
    assert _ok(aws("get-template", "--stack-name", arn))["TemplateBody"] == cfn.TEMPLATE
    _ok(aws("update-stack", "--stack-name", "cli", "--use-previous-template",
            "--parameters", "ParameterKey=Length,ParameterValue=14"))
    _ok(aws("wait", "stack-update-complete", "--stack-name", "cli"))
    stack = _ok(aws("describe-stacks", "--stack-name", "cli"))["Stacks"][0]
    assert len(stack["Outputs"][0]["OutputValue"].split("|")[1]) == 14
    refused = aws("cancel-update-stack", "--stack-name", "cli")
    assert refused.returncode != 0 and "ValidationError" in refused.stderr
    assert "Cancelling update when stack is UPDATE_COMPLETE is not supported." in refused.stderr
    unknown = aws("describe-stacks", "--stack-name", "no-such-stack")
    assert unknown.returncode != 0 and "(ValidationError)" in unknown.stderr
    twice = aws("create-stack", "--stack-name", "cli", "--template-body", body)
    assert twice.returncode != 0 and "(AlreadyExistsException)" in twice.stderr
    _ok(aws("delete-stack", "--stack-name", "cli"))
    _ok(aws("wait", "stack-delete-complete", "--stack-name", "cli"))


def test_cfn_api_on_stoker_up(home: Path) -> None:  # noqa: F811
    port, cfn_port, sandbox_port = _free_port(), _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("STOKER_", "AWS_"))}
    env.update(HOME=str(home), STOKER_API_PORT=str(port), STOKER_CFN_PORT=str(cfn_port),
               STOKER_SANDBOX_PORT=str(sandbox_port))
    log_path = home / "up.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([*_stoker(), "up", "--workers", "1"], cwd=home, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        t0 = time.time()
        while not (_port_open(port) and _port_open(cfn_port)):
            assert proc.poll() is None, log_path.read_text()[-2000:]
            assert time.time() - t0 < 90, log_path.read_text()[-2000:]
            time.sleep(0.3)
        line = f"CloudFormation API: http://127.0.0.1:{cfn_port}/v1"
        while line not in log_path.read_text():  # the banner follows the ports by a moment
            assert proc.poll() is None and time.time() - t0 < 90, log_path.read_text()[-2000:]
            time.sleep(0.2)
        endpoint = f"http://127.0.0.1:{cfn_port}/v1"
        cf = cfn.client(endpoint, "whatever", "anything")
        arn = cfn.scenario(cf, "boto", "admin")

        # one path: a stack made through the CFN API is a stack of the Orchestration API
        arn2 = cf.create_stack(StackName="both", TemplateBody=json.dumps(cfn.TEMPLATE))["StackId"]
        stack_id = arn2.rsplit("/", 1)[1]
        shown = requests.get(f"http://127.0.0.1:{port}/v1/admin/stacks/both/{stack_id}",
                             headers={"X-Auth-Token": "x"}, timeout=30)
        assert shown.status_code == 200 and shown.json()["stack"]["id"] == stack_id
        assert arn.rsplit("/", 1)[1] != stack_id
        cf.delete_stack(StackName=arn2)
        cf.get_waiter("stack_delete_complete").wait(StackName="both", WaiterConfig=cfn.FAST)

        aws_env = dict(env, AWS_ACCESS_KEY_ID="any", AWS_SECRET_ACCESS_KEY="any",
                       AWS_DEFAULT_REGION="RegionOne",
                       AWS_CONFIG_FILE=str(home / "no-config"),
                       AWS_SHARED_CREDENTIALS_FILE=str(home / "no-credentials"))
        _aws_cli_every_action(aws_env, endpoint, home)
    finally:
        stop_groups([proc], grace=40)
    assert proc.returncode == 0, log_path.read_text()[-2000:]
    assert not _port_open(cfn_port)
