"""Heat's Zaqar transports through the API with real workers: a ZAQAR_SIGNAL wait condition
handle's ``signal`` names its queue (with the stack user's credentials) and a message posted
there completes the wait condition with its data; a ZAQAR_SIGNAL deployment to a
``ZAQAR_MESSAGE`` server gets a ``deploy_queue_id`` input, the server's metadata is posted to
the server's queue (its ``os-collect-config`` says ``zaqar``), and a message posted to the
deployment's queue completes the deployment with its outputs. Queues go with their resources."""
from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

WAIT = """
heat_template_version: 2013-05-23
resources:
  wait_condition:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: wait_handle}
      timeout: 60
  wait_handle:
    type: OS::Heat::WaitConditionHandle
    properties:
      signal_transport: ZAQAR_SIGNAL
outputs:
  wait_data:
    value: {'Fn::Select': ['data_id', {get_attr: [wait_condition, data]}]}
"""

DEPLOY = """
heat_template_version: 2013-05-23
resources:
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.tiny
      user_data_format: SOFTWARE_CONFIG
      software_config_transport: ZAQAR_MESSAGE
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      config: echo foo
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: ZAQAR_SIGNAL
outputs:
  data:
    value: {get_attr: [deployment, deploy_stdout]}
"""


def _queue(api: Any, name: str) -> Any:
    """The sandbox's Zaqar as the stack's project (noauth: the stack-user project is it)."""
    return api.cloud("messaging"), {"Client-ID": str(uuid.uuid4())}, f"/v2/queues/{name}"


def _queue_names(zaqar: Any, headers: dict[str, str]) -> set[str]:
    """Every queue of the project (Zaqar's paged listing)."""
    names: set[str] = set()
    url = "/v2/queues?limit=20"
    while True:
        page = zaqar.get(url, headers=headers).json()
        if not page["queues"]:
            return names
        names |= {q["name"] for q in page["queues"]}
        url = "/v2" + page["links"][0]["href"].removeprefix("/v2")


def _until(api: Any, stack: dict[str, Any], status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        got = api.heat.stacks.get(stack["id"])
        if got.stack_status == status:
            return dict(got.to_dict())
        assert not got.stack_status.endswith("FAILED"), got.stack_status_reason
        assert time.monotonic() < deadline, got.stack_status
        time.sleep(0.5)


def test_wait_condition_signalled_through_its_queue(api: Any) -> None:
    stack = api.heat.stacks.create(stack_name=f"zw-{uuid.uuid4().hex[:8]}", template=WAIT)["stack"]
    deadline = time.monotonic() + 30
    while (handle := api.heat.resources.get(stack["id"], "wait_handle")).resource_status \
            != "CREATE_COMPLETE":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    signal = json.loads(handle.attributes["signal"])
    assert {"auth_url", "user_id", "password", "project_id", "queue_id"} <= set(signal)
    zaqar, headers, path = _queue(api, signal["queue_id"])
    zaqar.post(f"{path}/messages", headers=headers, json={"messages": [
        {"body": {"data": "here!", "id": "data_id"}, "ttl": 600}]})
    stack = _until(api, stack, "CREATE_COMPLETE")
    assert api.output(stack, "wait_data") == "here!"
    # the message was consumed, and the queue goes with the handle
    assert zaqar.get(f"{path}/messages", headers=headers).json().get("messages", []) == []
    assert signal["queue_id"] in _queue_names(zaqar, headers)
    api.delete(stack)
    assert signal["queue_id"] not in _queue_names(zaqar, headers)


def test_deployment_to_a_zaqar_server_signalled_through_its_queue(api: Any) -> None:
    stack = api.heat.stacks.create(stack_name=f"zd-{uuid.uuid4().hex[:8]}", template=DEPLOY)["stack"]
    deadline = time.monotonic() + 30
    while not (meta := api.heat.resources.metadata(stack["id"], "server")).get("deployments"):
        assert time.monotonic() < deadline
        time.sleep(0.3)
    occ = meta["os-collect-config"]
    assert occ["collectors"] == ["zaqar", "local"]
    zaqar, headers, server_path = _queue(api, occ["zaqar"]["queue_id"])
    # what os-collect-config pops: the metadata at create, then with the deployment
    posted = zaqar.get(f"{server_path}/messages?echo=true", headers=headers).json()["messages"]
    assert posted[0]["body"]["os-collect-config"]["zaqar"] == occ["zaqar"]
    assert posted[-1]["body"]["deployments"] == meta["deployments"]
    inputs = {i["name"]: i["value"] for i in meta["deployments"][0]["inputs"]}
    assert inputs["deploy_signal_transport"] == "ZAQAR_SIGNAL"
    _, _, path = _queue(api, inputs["deploy_queue_id"])
    zaqar.post(f"{path}/messages", headers=headers, json={"messages": [
        {"body": {"deploy_stdout": "here!", "deploy_status_code": 0}, "ttl": 600}]})
    stack = _until(api, stack, "CREATE_COMPLETE")
    assert api.output(stack, "data") == "here!"
    queues = {occ["zaqar"]["queue_id"], inputs["deploy_queue_id"]}
    assert queues <= _queue_names(zaqar, headers)
    api.delete(stack)
    assert not queues & _queue_names(zaqar, headers)
