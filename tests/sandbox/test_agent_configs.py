"""The sandbox agent's software-config half (app/sandbox/agent_configs.py), without a cloud:
the os-collect-config settings read from Heat's SOFTWARE_CONFIG user data, a script config run
as heat-config's script hook runs it (inputs as environment variables, outputs from
``$heat_outputs_path.<name>``), a hanging one killed at its timeout, and the EC2 v2 signature
of its CFN polls checked by the verifier the CFN API uses."""
from __future__ import annotations

import base64
import time
from types import SimpleNamespace

from app.resource_types import _ec2sign, _userdata
from app.sandbox import agent_configs


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_collector_settings_come_from_the_cfn_init_data_part() -> None:
    occ = {"collectors": ["heat", "local"], "heat": {"resource_name": "server"}}
    user_data = _userdata.build("", "SOFTWARE_CONFIG",
                                metadata={"deployments": [], "os-collect-config": occ})
    assert agent_configs.collector_settings(_b64(user_data)) == occ
    local_only = _userdata.build("", "SOFTWARE_CONFIG", metadata={
        "os-collect-config": {"collectors": ["local"]}})
    assert agent_configs.collector_settings(_b64(local_only)) is None
    assert agent_configs.collector_settings(_b64("#!/bin/sh\necho raw")) is None
    assert agent_configs.collector_settings("not base64!") is None
    assert agent_configs.collector_settings(None) is None


def test_a_script_runs_with_its_inputs_and_writes_its_outputs() -> None:
    script = ("#!/bin/sh\necho \"hello $foo\"\necho warn >&2\n"
              "printf '%s' \"$deploy_action\" > $heat_outputs_path.action\nexit 0\n")
    body = agent_configs.run_script(script, {"foo": "bar", "deploy_action": "CREATE",
                                             "n": 2}, ["action", "missing"], 30)
    assert body == {"deploy_stdout": "hello bar\n", "deploy_stderr": "warn\n",
                    "deploy_status_code": 0, "action": "CREATE"}
    assert agent_configs.run_script("exit 3", {}, [], 30)["deploy_status_code"] == 3


def test_a_hanging_script_is_killed_at_its_timeout() -> None:
    started = time.monotonic()
    body = agent_configs.run_script("#!/bin/sh\nsleep 60 &\nwait\n", {}, [], 0.5)
    assert time.monotonic() - started < 30  # not the sleep's 60 s: killed with its group
    assert body["deploy_status_code"] == agent_configs.TIMEOUT_STATUS == 124
    assert "Killed: the config ran longer than its timeout of 0.5 s" in body["deploy_stderr"]


def test_cfn_polls_are_signed_as_the_cfn_api_verifies() -> None:
    url = "http://127.0.0.1:8000/v1/"
    params = agent_configs.sign_v2("secret", "GET", url, {"Action": "DescribeStackResource",
                                                          "AWSAccessKeyId": "AK",
                                                          "StackName": "s t"})
    assert _ec2sign.verify("secret", "GET", "127.0.0.1:8000", "/v1/", params)
    assert not _ec2sign.verify("other", "GET", "127.0.0.1:8000", "/v1/", params)


def test_not_running_configs_records_and_reports_success(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sandbox = SimpleNamespace(options={"agent": {"run_configs": False}}, extra_catalog=[],
                              store=SimpleNamespace(lock=_Lock(), get=lambda *a: None))
    sent: list[dict] = []
    monkeypatch.setattr(agent_configs, "notify", lambda sb, inputs, body: sent.append(body) or {})
    agent_configs.deploy(sandbox, "srv", {"id": "c", "group": "script",
                                          "config": "#!/bin/sh\nexit 7", "inputs": []})
    assert sent == [{"deploy_stdout": "", "deploy_stderr": "", "deploy_status_code": 0}]


class _Lock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_restarted_sandbox_resumes_its_servers_agents_without_redeploying(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A sandbox started again from its state file polls its SOFTWARE_CONFIG servers again
    (os-collect-config restarts with the server) and runs only deployments it has not recorded."""
    from app.sandbox import create_app
    state = str(tmp_path / "sandbox.json")
    first = create_app(state).extensions["sandbox"]
    occ = {"collectors": ["heat"], "heat": {"resource_name": "server"}}
    user_data = _b64(_userdata.build("", "SOFTWARE_CONFIG",
                                     metadata={"deployments": [], "os-collect-config": occ}))
    first.store.add("servers", {"id": "srv", "status": "ACTIVE",
                                "OS-EXT-SRV-ATTR:user_data": user_data,
                                "_agent": [{"deployment": "old", "group": "script"}]})
    first.store.add("servers", {"id": "built", "status": "BUILD",
                                "OS-EXT-SRV-ATTR:user_data": user_data})
    first.store.save()
    deployed: list[tuple[str, str]] = []
    monkeypatch.setattr(agent_configs, "fetch_metadata", lambda sb, o: {"deployments": [
        {"id": "old", "group": "script"}, {"id": "new", "group": "script"}]})
    monkeypatch.setattr(agent_configs, "deploy",
                        lambda sb, server_id, item: deployed.append((server_id, item["id"])))
    second = create_app(state).extensions["sandbox"]
    deadline = time.monotonic() + 30
    while not deployed and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # a second poll would run "old" now if it were not recorded
    assert deployed == [("srv", "new")]
    second.store.remove("servers", "srv")  # the poller ends with its server
    second.store.remove("servers", "built")


def test_an_image_without_the_config_agent_never_polls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """devstack's cirros (``sandbox_config_agent: none``, as in Heat's gate) has no
    os-collect-config: a SOFTWARE_CONFIG server booted from it runs no deployments; the other
    images have the agent."""
    from app.sandbox import create_app
    sb = create_app(str(tmp_path / "sandbox.json")).extensions["sandbox"]
    images = {i["name"]: i["id"] for i in sb.store.all("images")}
    occ = {"collectors": ["heat"], "heat": {"resource_name": "server"}}
    user_data = _b64(_userdata.build("", "SOFTWARE_CONFIG",
                                     metadata={"deployments": [], "os-collect-config": occ}))
    bare = {"id": "bare", "status": "BUILD", "OS-EXT-SRV-ATTR:user_data": user_data,
            "_image_id": images["cirros-0.6.2-x86_64-disk"]}
    assert not agent_configs.has_config_agent(sb, bare)
    assert agent_configs.boot(sb, bare, 0.0, lambda n: None) is False
    assert agent_configs.has_config_agent(sb, {**bare, "_image_id": images["cirros"]})
