"""Mistral, Zun, Blazar and Ironic types through the API with real workers: one stack of all
seven types created, updated (in place and replacements) and deleted with nothing left; a
workflow signalled through the API starts an execution; an ExternalResource whose workflow
fails is CREATE_FAILED with the execution's error; bad input is refused as Heat refuses it."""
from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc

pytestmark = pytest.mark.usefixtures("api_no_leaks")

CORPUS = Path("/work/shared/corpus/heat-templates/hot")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  who: {type: string}
  cpu: {type: number}
  pxe: {type: boolean}
  lease_name: {type: string}
  start: {type: string}
  end: {type: string}
  count: {type: number}
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      input: {who: {get_param: who}}
      output: {greeting: <% $.greeting %>, resource_id: <% $.greeting %>}
      tasks:
        - name: greet
          action: std.echo output="hello <% $.who %>"
          publish: {greeting: <% task().result %>}
  ext:
    type: OS::Mistral::ExternalResource
    properties:
      input: {who: {get_param: who}}
      always_update: true
      actions:
        CREATE: {workflow: {get_resource: wf}}
        UPDATE: {workflow: {get_resource: wf}}
  trigger:
    type: OS::Mistral::CronTrigger
    properties:
      pattern: "0 0 1 1 *"
      count: {get_param: count}
      workflow: {get_attr: [wf, data]}
  box:
    type: OS::Zun::Container
    properties:
      image: nginx
      cpu: {get_param: cpu}
      memory: 256
      interactive: true
      networks: [{network: private}]
  host:
    type: OS::Blazar::Host
    properties: {name: sandbox-8, extra_capability: {gpu: "yes"}}
  lease:
    type: OS::Blazar::Lease
    depends_on: host
    properties:
      name: {get_param: lease_name}
      start_date: {get_param: start}
      end_date: {get_param: end}
      reservations:
        - {resource_type: physical:host, min: 1, max: 1, hypervisor_properties: "",
           resource_properties: ""}
  nic:
    type: OS::Ironic::Port
    properties:
      node: node-0
      address: "52:54:00:ab:cd:01"
      pxe_enabled: {get_param: pxe}
outputs:
  ext_output: {value: {get_attr: [ext, output]}}
  ext_id: {value: {get_resource: ext}}
  wf_name: {value: {get_resource: wf}}
  alarm_url: {value: {get_attr: [wf, alarm_url]}}
  remaining: {value: {get_attr: [trigger, remaining_executions]}}
  box_addresses: {value: {get_attr: [box, addresses]}}
  box_id: {value: {get_resource: box}}
  host_name: {value: {get_attr: [host, hypervisor_hostname]}}
  lease_id: {value: {get_resource: lease}}
  lease_status: {value: {get_attr: [lease, status]}}
  nic_id: {value: {get_resource: nic}}
  nic_node: {value: {get_attr: [nic, node_uuid]}}
"""


def _at(minutes: int) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M")


def _params(**over: Any) -> dict[str, Any]:
    return {"who": "heat", "cpu": 1, "pxe": True, "lease_name": "lease-a", "start": _at(30),
            "end": _at(90), "count": 3, **over}


HOST = """
heat_template_version: 2018-08-31
resources:
  host: {type: OS::Blazar::Host, properties: {name: sandbox-7}}
"""


def test_all_seven_types_are_created_updated_and_deleted(api: Any) -> None:
    # as in Heat, a lease validates only once Blazar has a host: one registered first
    hosts = api.create(HOST)
    stack = api.create(TEMPLATE, _params())
    assert json.loads(api.output(stack, "ext_output")) == {"greeting": "hello heat",
                                                           "resource_id": "hello heat"}
    assert api.output(stack, "ext_id") == "hello heat"      # the output's resource_id
    assert "/v1/signal/" in api.output(stack, "alarm_url")
    assert api.output(stack, "remaining") == 3
    assert api.output(stack, "host_name") == "sandbox-8"
    assert api.output(stack, "lease_status") == "PENDING"
    addresses = api.output(stack, "box_addresses")
    assert addresses["private"] and addresses["private"][0]["addr"].startswith("10.0.0.")
    box_id, lease_id, nic_id = (api.output(stack, k) for k in ("box_id", "lease_id", "nic_id"))
    wf = api.cloud("workflowv2").get(f"/workflows/{api.output(stack, 'wf_name')}").json()
    assert "std.echo" in wf["definition"] and wf["input"] == "who"
    zun = api.cloud("container")
    assert zun.get(f"/containers/{box_id}").json()["status"] == "Running"

    stack = api.update(stack, TEMPLATE, _params(cpu=2, pxe=False, lease_name="lease-b", count=5))
    assert api.output(stack, "box_id") == box_id                 # cpu: in place
    assert zun.get(f"/containers/{box_id}").json()["cpu"] == 2.0
    assert api.output(stack, "nic_id") == nic_id                 # pxe_enabled: in place
    port = api.cloud("baremetal").get(f"/v1/ports/{nic_id}",
                                      headers={"X-OpenStack-Ironic-API-Version": "1.53"}).json()
    assert port["pxe_enabled"] is False
    assert api.output(stack, "lease_id") != lease_id             # name: replaced
    assert api.output(stack, "remaining") == 5                   # count: replaced
    # always_update: the UPDATE workflow ran though the external resource's input is the same
    runs = api.cloud("workflowv2").get("/executions").json()["executions"]
    assert len([e for e in runs if e["workflow_name"] == wf["name"]]) == 2
    assert api.resources(stack)["ext"]["resource_status"] == "UPDATE_COMPLETE"
    api.delete(stack)
    api.delete(hosts)


def test_a_signalled_workflow_starts_an_execution(api: Any) -> None:
    stack = api.create(TEMPLATE.split("  ext:")[0] + "outputs: {}\n", {
        k: v for k, v in _params().items() if k == "who"} | {"cpu": 1, "pxe": True,
        "lease_name": "x", "start": "x", "end": "x", "count": 1})
    api.heat.resources.signal(stack["id"], "wf", data={"input": {"who": "signal"}})
    mistral = api.cloud("workflowv2")
    deadline = time.monotonic() + 10
    while True:
        runs = mistral.get("/executions").json()["executions"]
        mine = [e for e in runs if json.loads(e["input"]) == {"who": "signal"}]
        if mine and mine[0]["state"] != "RUNNING" or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert mine and mine[0]["state"] == "SUCCESS"
    assert json.loads(mine[0]["output"])["greeting"] == "hello signal"
    with pytest.raises(exc.HTTPBadRequest, match="Unknown input nope"):
        api.heat.resources.signal(stack["id"], "wf", data={"input": {"nope": 1}})
    api.delete(stack)
    assert mistral.get(f"/executions/{mine[0]['id']}", raise_exc=False).status_code == 404


FAILING = """
heat_template_version: 2018-08-31
resources:
  wf:
    type: OS::Mistral::Workflow
    properties:
      type: direct
      tasks:
        - {name: boom, action: std.fail}
  ext:
    type: OS::Mistral::ExternalResource
    properties:
      actions: {CREATE: {workflow: {get_resource: wf}}}
"""


def test_an_external_resource_whose_workflow_fails_is_create_failed(api: Any) -> None:
    stack = api.create(FAILING, expect="CREATE_FAILED")
    reason = api.resources(stack)["ext"]["resource_status_reason"]
    assert "Failure caused by error in tasks: boom" in reason
    assert "Fail action expected exception." in reason
    api.delete(stack)


def test_bad_input_is_refused_and_nothing_is_left(api: Any) -> None:
    missing = "heat_template_version: 2018-08-31\nresources:\n  c: {type: OS::Zun::Container}\n"
    with pytest.raises(exc.HTTPBadRequest, match="Property image not assigned"):
        api.create(missing)
    unknown = FAILING.replace("{get_resource: wf}", "no-such-workflow")
    with pytest.raises(exc.HTTPBadRequest,
                       match=r"The Workflow \(no-such-workflow\) could not be found"):
        api.create(unknown)
    bad_node = TEMPLATE.split("outputs:")[0].split("  wf:")[0] + (
        "  nic:\n    type: OS::Ironic::Port\n    properties: {node: node-9, address: "
        "'52:54:00:ab:cd:02'}\n")
    with pytest.raises(exc.HTTPBadRequest, match=r"The Node \(node-9\) could not be found"):
        api.create(bad_node, _params())


def test_corpus_templates_the_sandbox_can_run(api: Any) -> None:
    stack = api.create((CORPUS / "mistral_external.yaml").read_text())
    assert api.resources(stack)["external_resource"]["resource_status"] == "CREATE_COMPLETE"
    api.delete(stack)
    # the containers run; the floating IP cannot reach the sandbox's "private" network, which
    # no router joins to "public" (Neutron's refusal, as a cloud without that router gives)
    stack = api.create((CORPUS / "zun/webapp.yaml").read_text(), expect="CREATE_FAILED")
    resources = api.resources(stack)
    assert resources["db"]["resource_status"] == "CREATE_COMPLETE"
    assert resources["wordpress"]["resource_status"] == "CREATE_COMPLETE"
    assert "cannot associate Port" in resources["association"]["resource_status_reason"]
    api.delete(stack)
