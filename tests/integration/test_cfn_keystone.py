"""The CFN API (``gunicorn 'app.cli.wsgi:create_cfn_app()'``, a real process) in keystone mode, with real
workers on PostgreSQL and Redis and the sandbox cloud's Keystone: EC2 credentials made with
``openstack ec2 credentials create`` sign boto3's requests (Signature V4, and V2), verified
through Keystone's ``/v3/ec2tokens``, as heat-api-cfn's EC2Token middleware does; the CFN
scenario runs in the credential's project; wrong secrets and unknown keys are refused with
heat-api-cfn's codes, nothing written; Heat's ``cloudformation:<Action>`` policy applies to the
token's roles (a reader cannot create, a stack user can only DescribeStackResource); CancelUpdateStack rolls an update in progress back."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import func, select

from app import config
from tests.fixtures import cfn
from tests.fixtures import osc as openstack_cli
from tests.integration.conftest import REPO, Workers, module_engine, worker_env
from tests.sandbox.conftest import SandboxHandle, start_sandbox

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:app.cfn.gunicorn_conf",
             "app.cli.wsgi:create_cfn_app()", "--bind",
             f"127.0.0.1:{port}", "--workers", "1", "--threads", "4"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 60
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        assert proc.poll() is None and time.time() < deadline, log.read_text()[-2000:]
        time.sleep(0.2)
    return proc, f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def world(pg_template: str, redis_url: str,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The sandbox cloud, two workers and beat, and the CFN API twice: keystone and noauth, on a
    database of their own, shared by this module's tests (each works in its own stacks, users
    and credentials, and counts stacks only before and after its own calls)."""
    tmp_path = tmp_path_factory.mktemp("cfn-keystone")
    with module_engine(pg_template, redis_url, tmp_path) as engine_settings:
        yield from _world(engine_settings, tmp_path)


def _world(engine_settings: config.Settings, tmp_path: Path) -> Iterator[dict[str, Any]]:
    sandbox: SandboxHandle = start_sandbox(delays={})
    # keystone mode keeps each stack's trust encrypted (app.auth.crypto): the key is required
    env = dict(worker_env(engine_settings), STOKER_CLOUD_AUTH_URL=sandbox.auth_url,
               STOKER_KEYSTONE_URL=sandbox.auth_url,
               STOKER_AUTH_ENCRYPTION_KEY=Fernet.generate_key().decode())
    workers = Workers(env, tmp_path)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        workers.start(2)
        workers.start_beat()
        keystone, keystone_url = _serve(dict(env, STOKER_AUTH_STRATEGY="keystone"),
                                        tmp_path / "cfn-keystone.log")
        procs.append(keystone)
        noauth, noauth_url = _serve(env, tmp_path / "cfn-noauth.log")
        procs.append(noauth)
        yield {"sandbox": sandbox, "keystone": keystone_url, "noauth": noauth_url,
               "tmp": tmp_path}
    finally:
        for p in procs:
            p.terminate()
            p.wait(20)
        workers.stop()
        sandbox.server.shutdown()


def _openstack(sandbox: SandboxHandle, tmp: Path, user: str, project: str,
               *args: str) -> str:
    """``openstack <args> -f json`` as ``user`` in ``project`` (in this process:
    :mod:`tests.fixtures.osc`); its standard output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(OS_AUTH_URL=sandbox.auth_url, OS_USERNAME=user, OS_PASSWORD="sandbox",
               OS_PROJECT_NAME=project, OS_USER_DOMAIN_NAME="Default",
               OS_PROJECT_DOMAIN_NAME="Default", OS_IDENTITY_API_VERSION="3", HOME=str(tmp))
    out = openstack_cli.run(list(args), env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _ec2_credential(sandbox: SandboxHandle, tmp: Path, user: str,
                    project: str | None = None) -> dict[str, str]:
    """``openstack ec2 credentials create`` as ``user`` in ``project`` (default: its own)."""
    cred = json.loads(_openstack(sandbox, tmp, user, project or user, "ec2", "credentials",
                                 "create", "-f", "json"))
    return {"access": cred["access"], "secret": cred["secret"],
            "project": cred.get("project_id") or cred["project"]}


def _stack_count() -> int:
    from app.models import Stack, read_session
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(Stack)).scalar() or 0)


def test_keystone_ec2_credentials_drive_the_scenario(world: dict[str, Any]) -> None:
    admin = _ec2_credential(world["sandbox"], world["tmp"], "admin")
    demo = _ec2_credential(world["sandbox"], world["tmp"], "demo")
    cf = cfn.client(world["keystone"], admin["access"], admin["secret"])
    arn = cfn.scenario(cf, "ks-stack", admin["project"])
    assert arn.split(":")[4] == admin["project"]

    # Signature V2 is verified the same way
    v2 = cfn.client(world["keystone"], admin["access"], admin["secret"],
                    signature_version="v2")
    assert v2.describe_stacks(StackName=arn)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"

    # another project's credential does not see the stack (tenants are isolated)
    other = cfn.client(world["keystone"], demo["access"], demo["secret"])
    with pytest.raises(other.exceptions.ClientError) as hidden:
        other.describe_stacks(StackName=arn)
    assert hidden.value.response["Error"]["Code"] == "ValidationError"

    before = _stack_count()
    body = json.dumps(cfn.TEMPLATE)
    for access, secret, code in ((admin["access"], "wrong-secret", "SignatureDoesNotMatch"),
                                 ("no-such-key", "x", "InvalidClientTokenId")):
        bad = cfn.client(world["keystone"], access, secret)
        with pytest.raises(bad.exceptions.ClientError) as refused:
            bad.create_stack(StackName="never", TemplateBody=body)
        assert refused.value.response["Error"]["Code"] == code
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
        with pytest.raises(bad.exceptions.ClientError):
            bad.list_stacks()
    assert _stack_count() == before


def test_unsigned_requests_and_unknown_actions_are_refused(world: dict[str, Any]) -> None:
    from xml.etree import ElementTree as ET

    import requests
    for url in (world["keystone"], world["noauth"]):
        resp = requests.post(url, data={"Action": "ListStacks", "Version": "2010-05-15"},
                             timeout=30)
        assert resp.status_code == 400
        assert ET.fromstring(resp.content).findtext("Error/Code") == "IncompleteSignature"
    cf = cfn.client(world["noauth"])
    with pytest.raises(cf.exceptions.ClientError) as missing:
        cf.describe_stack_resource(StackName="nope", LogicalResourceId="x")
    assert missing.value.response["Error"]["Code"] == "ValidationError"
    resp = requests.post(world["noauth"], data={"Action": "Nope", "AWSAccessKeyId": "k",
                                                "Signature": "s"}, timeout=30)
    assert resp.status_code == 400
    assert ET.fromstring(resp.content).findtext("Error/Code") == "InvalidAction"
    # what gunicorn turns away (a request line over 8190 bytes) is AWS XML too
    resp = requests.get(world["noauth"], params={"Action": "ListStacks", "X": "y" * 9000},
                        timeout=30)
    assert resp.status_code == 414
    assert ET.fromstring(resp.content).findtext("Error/Code") == "InvalidQueryParameter"
    # a body over max_json_body_size, signed: RequestLimitExceeded, nothing written
    before = _stack_count()
    with pytest.raises(cf.exceptions.ClientError) as big:
        cf.create_stack(StackName="big", TemplateBody="x" * (1048576 + 10))
    assert big.value.response["Error"]["Code"] == "RequestLimitExceeded"
    assert _stack_count() == before


def test_cloudformation_policy_follows_the_tokens_roles(world: dict[str, Any]) -> None:
    """Users made by the admin in project ``demo``: ``reader`` only, and ``heat_stack_user``
    only, beside ``demo`` (member and reader). Heat's defaults: a reader lists but is refused
    CreateStack (AccessDenied, 403, nothing created); a member creates; a stack user may only
    DescribeStackResource."""
    sandbox, tmp = world["sandbox"], world["tmp"]
    for user, role in (("cfn-reader", "reader"), ("cfn-stack-user", "heat_stack_user")):
        _openstack(sandbox, tmp, "admin", "admin", "user", "create", "--password", "sandbox",
                   "--project", "demo", "--domain", "default", user, "-f", "json")
        _openstack(sandbox, tmp, "admin", "admin", "role", "add", "--user", user,
                   "--project", "demo", role)
    creds = {user: _ec2_credential(sandbox, tmp, user, "demo")
             for user in ("demo", "cfn-reader", "cfn-stack-user")}
    reader, member, stack_user = (cfn.client(world["keystone"], creds[u]["access"],
                                             creds[u]["secret"])
                                  for u in ("cfn-reader", "demo", "cfn-stack-user"))
    # no cloud resources: this fixture's workers act in noauth mode (the cloud's admin project)
    body = json.dumps({"AWSTemplateFormatVersion": "2010-09-09",
                       "Resources": {"Password": {"Type": "OS::Heat::RandomString"}}})

    assert reader.list_stacks()["StackSummaries"] == []
    before = _stack_count()
    with pytest.raises(reader.exceptions.ClientError) as refused:
        reader.create_stack(StackName="policed", TemplateBody=body)
    err = refused.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert err["Error"]["Code"] == "AccessDenied"
    assert err["Error"]["Message"] == ("User is not authorized to perform action:"
                                       "Action CreateStack not allowed for user")
    assert _stack_count() == before

    member.create_stack(StackName="policed", TemplateBody=body)
    deadline = time.time() + 120
    while (stack := member.describe_stacks(StackName="policed")["Stacks"][0])[
            "StackStatus"] == "CREATE_IN_PROGRESS":
        assert time.time() < deadline
        time.sleep(0.5)
    assert stack["StackStatus"] == "CREATE_COMPLETE", stack.get("StackStatusReason")
    assert [s["StackName"] for s in reader.list_stacks()["StackSummaries"]] == ["policed"]

    detail = stack_user.describe_stack_resource(StackName="policed",
                                                LogicalResourceId="Password")
    assert detail["StackResourceDetail"]["ResourceStatus"] == "CREATE_COMPLETE"
    for denied in (lambda: stack_user.list_stacks(),
                   lambda: stack_user.describe_stacks(StackName="policed"),
                   lambda: stack_user.delete_stack(StackName="policed")):
        with pytest.raises(stack_user.exceptions.ClientError) as no:
            denied()
        assert no.value.response["Error"]["Code"] == "AccessDenied"
    assert member.describe_stacks(StackName="policed")["Stacks"][0]["StackStatus"] == \
        "CREATE_COMPLETE"
    member.delete_stack(StackName="policed")
    member.get_waiter("stack_delete_complete").wait(StackName="policed", WaiterConfig=cfn.FAST)


WAITING = {"heat_template_version": "2016-10-14",
           "parameters": {"wait": {"type": "number", "default": 0}},
           "resources": {"slow": {"type": "OS::Heat::TestResource",
                                  "properties": {"value": {"get_param": "wait"},
                                                 "action_wait_secs": {
                                                     "update": {"get_param": "wait"}}}}}}


def test_cancel_update_rolls_the_update_back(world: dict[str, Any]) -> None:
    """Heat's ``stack_cancel_update(cancel_with_rollback=True)``: an update in progress is
    cancelled and the stack rolls back to its previous template (ROLLBACK_COMPLETE).

    The update's resource takes 5 s: a convergence rollback, as Heat's (``Stack.rollback`` ->
    ``converge_stack``, no cancel message to the worker), lets an action the superseded
    traversal already started end before it takes the resource over; whether the worker started
    the update before the cancel arrived would be a race (the test waits until it has), and an
    update that never ended would hold the rollback until the stack timeout (Heat's too)."""
    cf = cfn.client(world["noauth"])
    body = json.dumps(WAITING)
    cf.create_stack(StackName="slow", TemplateBody=body)
    cf.get_waiter("stack_create_complete").wait(StackName="slow", WaiterConfig=cfn.FAST)
    cf.update_stack(StackName="slow", TemplateBody=body,
                    Parameters=[{"ParameterKey": "wait", "ParameterValue": "5"}])
    assert cf.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"] == \
        "UPDATE_IN_PROGRESS"
    deadline = time.time() + 60  # the worker has started the update: the harder path
    while cf.describe_stack_resource(StackName="slow", LogicalResourceId="slow")[
            "StackResourceDetail"]["ResourceStatus"] != "UPDATE_IN_PROGRESS":
        assert time.time() < deadline
        time.sleep(0.1)
    cf.cancel_update_stack(StackName="slow")
    # bounded, not timed: at most the 5 s update, then the update back
    deadline = time.time() + 120
    while (status := cf.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"]) \
            == "ROLLBACK_IN_PROGRESS" or status == "UPDATE_IN_PROGRESS":
        assert time.time() < deadline, status
        time.sleep(0.5)
    assert status == "ROLLBACK_COMPLETE"
    params = {p["ParameterKey"]: p["ParameterValue"]
              for p in cf.describe_stacks(StackName="slow")["Stacks"][0]["Parameters"]}
    assert params["wait"] == "0"
    with pytest.raises(cf.exceptions.ClientError) as again:
        cf.cancel_update_stack(StackName="slow")
    assert again.value.response["Error"]["Message"].endswith(
        "Cancelling update when stack is ROLLBACK_COMPLETE is not supported.")
    cf.delete_stack(StackName="slow")
    cf.get_waiter("stack_delete_complete").wait(StackName="slow", WaiterConfig=cfn.FAST)
