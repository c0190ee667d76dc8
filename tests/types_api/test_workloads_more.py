"""Zun, Mistral and Blazar behaviour beyond create/update/delete, through the API with real
workers: a container's ``networks`` changed in place (Heat's network_detach / network_attach),
a cron trigger's executions started on schedule by the sandbox's Mistral, a signalled
workflow's ``executions`` attribute and the outputs that read it, the in-place update of a
workflow's definition and the replacement of a Blazar host."""
from __future__ import annotations

import json
import time
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

ZUN = """
heat_template_version: 2018-08-31
resources:
  net2: {type: OS::Neutron::Net}
  sub2:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net2}, cidr: 10.66.0.0/24}
  box:
    type: OS::Zun::Container
    depends_on: sub2
    properties: {image: nginx, name: NAME, networks: NETWORKS}
outputs:
  box: {value: {get_resource: box}}
  net2: {value: {get_resource: net2}}
  addresses: {value: {get_attr: [box, addresses]}}
"""


def _zun(networks: str, name: str = "web-a") -> str:
    return ZUN.replace("NETWORKS", networks).replace("NAME", name)


def test_a_containers_networks_change_in_place(api: Any) -> None:
    stack = api.create(_zun("[{network: private}]"))
    box, net2 = api.output(stack, "box"), api.output(stack, "net2")
    zun = api.cloud("container")
    private = api.cloud("network").get("/v2.0/networks?name=private").json()["networks"][0]["id"]

    def nets() -> list[str]:
        listed = zun.get(f"/containers/{box}/network_list").json()["networks"]
        return sorted(n["net_id"] for n in listed)

    first_port = zun.get(f"/containers/{box}/network_list").json()["networks"][0]["port_id"]
    stack = api.update(stack, _zun("[{network: private}, {network: {get_resource: net2}}]",
                                   name="web-b"))
    assert api.output(stack, "box") == box                     # networks and name: in place
    assert nets() == sorted([private, net2])
    listed = zun.get(f"/containers/{box}/network_list").json()["networks"]
    assert first_port in {n["port_id"] for n in listed}        # the kept entry keeps its port
    assert zun.get(f"/containers/{box}").json()["name"] == "web-b"
    assert set(api.output(stack, "addresses")) >= {private, net2}
    events = [e for e in api.events(stack) if e["resource_name"] == "box"]
    assert not [e for e in events if e["resource_status"] == "DELETE_COMPLETE"]

    time.sleep(1)   # the harness tells a new update by updated_time, which counts seconds
    stack = api.update(stack, _zun("[{network: {get_resource: net2}}]", name="web-b"))
    assert api.output(stack, "box") == box
    assert nets() == [net2]
    ports = api.cloud("network").get(f"/v2.0/ports?device_id={box}").json()["ports"]
    assert [p["network_id"] for p in ports] == [net2]          # the private port was deleted
    assert api.cloud("network").get(f"/v2.0/ports/{first_port}",
                                    raise_exc=False).status_code == 404
    api.delete(stack)


def test_the_sandbox_zun_network_api_answers_as_zun(api: Any) -> None:
    stack = api.create(_zun("[{network: private}]"))
    box, net2 = api.output(stack, "box"), api.output(stack, "net2")
    zun = api.cloud("container")
    assert zun.post(f"/containers/{box}/network_attach?network=private",
                    raise_exc=False).status_code == 409
    assert zun.post(f"/containers/{box}/network_detach?network={net2}",
                    raise_exc=False).status_code == 400
    assert zun.post(f"/containers/{box}/network_attach?network={net2}").status_code == 200
    assert zun.post(f"/containers/{box}/network_detach?network={net2}").status_code == 202
    assert zun.get("/containers/nope/network_list", raise_exc=False).status_code == 404
    api.delete(stack)


MISTRAL = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hello}
  host: {type: string, default: sandbox-6}
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: heat}
      output: {said: <% $.said %>}
      tasks:
        - name: say
          action: {list_join: ['', ['std.echo output="', {get_param: greeting}, ' <% $.who %>"']]}
          publish: {said: <% task().result %>}
  cron:
    type: OS::Mistral::CronTrigger
    properties:
      pattern: "* * * * * */1"
      count: 2
      workflow: {name: {get_resource: wf}, input: {who: cron}}
  host:
    type: OS::Blazar::Host
    properties: {name: {get_param: host}}
outputs:
  wf: {value: {get_resource: wf}}
  executions: {value: {get_attr: [wf, executions]}}
  remaining: {value: {get_attr: [cron, remaining_executions]}}
  host: {value: {get_resource: host}}
  hostname: {value: {get_attr: [host, hypervisor_hostname]}}
"""


def _runs(api: Any, workflow: str, count: int) -> list[dict[str, Any]]:
    """The workflow's executions once ``count`` of them have ended (or after 10 s)."""
    mistral = api.cloud("workflowv2")
    deadline = time.monotonic() + 10
    while True:
        runs = [e for e in mistral.get("/executions").json()["executions"]
                if e["workflow_name"] == workflow and e["state"] != "RUNNING"]
        if len(runs) >= count or time.monotonic() > deadline:
            return runs
        time.sleep(0.2)


def test_cron_trigger_starts_executions_and_signals_show_in_executions(api: Any) -> None:
    stack = api.create(MISTRAL)
    wf = api.output(stack, "wf")
    cron = [e for e in _runs(api, wf, 2) if json.loads(e["input"]) == {"who": "cron"}]
    assert [json.loads(e["output"])["said"] for e in cron] == ["hello cron", "hello cron"]
    assert "cron trigger" in cron[0]["description"]
    assert api.output(stack, "executions") == []

    api.heat.resources.signal(stack["id"], "wf", data={"input": {"who": "signal"}})
    shown = api.output(stack, "executions")          # the output reads the new execution
    assert len(shown) == 1 and shown[0]["workflow_name"] == wf
    assert shown[0]["input"] == {"who": "signal"}
    _runs(api, wf, 3)
    ended = api.output(stack, "executions")          # the output follows the execution's state
    assert ended[0]["state"] == "SUCCESS" and ended[0]["output"] == {"said": "hello signal"}
    assert api.output(stack, "remaining") is None    # the spent trigger is gone from Mistral
    attrs = api.heat.resources.get(stack["id"], "wf").attributes
    assert attrs["executions"][0]["state"] == "SUCCESS"
    assert attrs["executions"][0]["output"] == {"said": "hello signal"}
    api.delete(stack)


def test_a_workflow_is_updated_in_place_and_a_blazar_host_replaced(api: Any) -> None:
    stack = api.create(MISTRAL)
    wf, host = api.output(stack, "wf"), api.output(stack, "host")
    _runs(api, wf, 2)
    stack = api.update(stack, MISTRAL, {"greeting": "hi", "host": "sandbox-5"})
    assert api.output(stack, "wf") == wf                       # tasks: in place (PUT)
    definition = api.cloud("workflowv2").get(f"/workflows/{wf}").json()["definition"]
    assert 'std.echo output="hi <% $.who %>"' in definition
    assert api.output(stack, "host") != host                   # name: replaced
    assert api.output(stack, "hostname") == "sandbox-5"
    reservation = api.cloud("reservation")
    names = [h["hypervisor_hostname"] for h in reservation.get("/os-hosts").json()["hosts"]]
    assert "sandbox-5" in names and "sandbox-6" not in names
    api.heat.resources.signal(stack["id"], "wf", data={"input": {"who": "you"}})
    assert any(json.loads(e["output"]).get("said") == "hi you" for e in _runs(api, wf, 3))
    api.delete(stack)
