"""OS::Nova::HostAggregate, OS::Nova::Quota, OS::Cinder::Quota, OS::Cinder::QoSSpecs and
OS::Cinder::QoSAssociation through the API with real workers: created, updated in place (hosts
by diff, metadata, zone, quotas, specs keys, associated types) and by replacement (QoS specs
renamed, their association with them), deleted with nothing left and the quotas back to the
defaults; a non-admin is refused each admin-only type of Heat's resource_types policy (those
of the Nova, Cinder, Neutron QoS/quota/segment and Octavia operator types) with Heat's 403."""
from __future__ import annotations

from typing import Any

import pytest
import requests

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  hosts: {type: comma_delimited_list, default: "sandbox-1,sandbox-2"}
  meta: {type: json, default: {ssd: "true", rack: "r1"}}
  zone: {type: string, default: fast}
  cores: {type: number, default: 30}
  volumes: {type: number, default: 20}
  specs: {type: json, default: {read_iops_sec: "100", write_iops_sec: "50"}}
  qos_name: {type: string, default: gold}
  types: {type: string, default: one, constraints: [allowed_values: [one, two]]}
conditions:
  two: {equals: [{get_param: types}, two]}
resources:
  aggregate:
    type: OS::Nova::HostAggregate
    properties:
      name: t-agg
      availability_zone: {get_param: zone}
      hosts: {get_param: hosts}
      metadata: {get_param: meta}
  nova_quota:
    type: OS::Nova::Quota
    properties: {project: demo, cores: {get_param: cores}, instances: 12}
  cinder_quota:
    type: OS::Cinder::Quota
    properties: {project: demo, volumes: {get_param: volumes}, gigabytes: 500}
  vt1:
    type: OS::Cinder::VolumeType
    properties: {name: t-vt1}
  vt2:
    type: OS::Cinder::VolumeType
    properties: {name: t-vt2}
  qos:
    type: OS::Cinder::QoSSpecs
    properties: {name: {get_param: qos_name}, specs: {get_param: specs}}
  assoc:
    type: OS::Cinder::QoSAssociation
    properties:
      qos_specs: {get_resource: qos}
      volume_types: {if: [two, [{get_resource: vt2}], [{get_resource: vt1}]]}
"""


def test_nova_and_cinder_admin_types(api: Any) -> None:
    compute, volume = api.cloud("compute"), api.cloud("volumev3")
    demo = api.sandbox("GET", "ids")["ids"]["project:demo"]

    def agg(agg_id: str) -> Any:
        return compute.get(f"/os-aggregates/{agg_id}").json()["aggregate"]

    def qos_types(spec: str) -> list[str]:
        return sorted(a["name"] for a in volume.get(f"/qos-specs/{spec}/associations").json()[
            "qos_associations"])

    stack = api.create(TEMPLATE)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    got = agg(res["aggregate"])
    assert (sorted(got["hosts"]), got["availability_zone"]) == (["sandbox-1", "sandbox-2"], "fast")
    assert got["metadata"] == {"availability_zone": "fast", "ssd": "true", "rack": "r1"}
    assert compute.get(f"/os-quota-sets/{demo}").json()["quota_set"]["cores"] == 30
    assert volume.get(f"/os-quota-sets/{demo}").json()["quota_set"]["volumes"] == 20
    spec = volume.get(f"/qos-specs/{res['qos']}").json()["qos_specs"]
    assert (spec["name"], spec["specs"]) == ("gold", {"read_iops_sec": "100",
                                                       "write_iops_sec": "50"})
    assert qos_types(res["qos"]) == ["t-vt1"]

    stack = api.update(stack, TEMPLATE, {
        "hosts": "sandbox-2,sandbox-3", "meta": {"ssd": "false"}, "zone": "slow", "cores": 40,
        "volumes": 25, "specs": {"read_iops_sec": "200"}, "types": "two"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert after == res                                   # all in place
    got = agg(res["aggregate"])
    assert (sorted(got["hosts"]), got["availability_zone"]) == (["sandbox-2", "sandbox-3"], "slow")
    assert got["metadata"] == {"availability_zone": "slow", "ssd": "false"}
    assert compute.get(f"/os-quota-sets/{demo}").json()["quota_set"]["cores"] == 40
    assert volume.get(f"/os-quota-sets/{demo}").json()["quota_set"]["volumes"] == 25
    assert volume.get(f"/qos-specs/{res['qos']}").json()["qos_specs"]["specs"] == {
        "read_iops_sec": "200"}
    assert qos_types(res["qos"]) == ["t-vt2"]

    stack = api.update(stack, TEMPLATE, {"qos_name": "silver", "types": "one"})
    again = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert again["qos"] != res["qos"] and again["aggregate"] == res["aggregate"]
    assert volume.get(f"/qos-specs/{res['qos']}", raise_exc=False).status_code == 404
    assert qos_types(again["qos"]) == ["t-vt1"]    # a type bound to one spec at a time
    assert sorted(agg(res["aggregate"])["hosts"]) == ["sandbox-1", "sandbox-2"]   # defaults

    api.delete(stack)
    assert compute.get(f"/os-quota-sets/{demo}").json()["quota_set"]["cores"] == 20
    assert volume.get(f"/os-quota-sets/{demo}").json()["quota_set"]["volumes"] == 10


@pytest.mark.parametrize("snippet", [
    "{type: OS::Nova::Quota, properties: {project: demo, cores: 1}}",
    "{type: OS::Cinder::Quota, properties: {project: demo, volumes: 1}}",
    "{type: OS::Octavia::Quota, properties: {project: demo, pool: 1}}",
    "{type: OS::Nova::HostAggregate, properties: {name: x}}",
    "{type: OS::Cinder::QoSSpecs, properties: {specs: {a: b}}}",
    "{type: OS::Octavia::FlavorProfile, properties: {flavor_data: '{}'}}",
    "{type: OS::Cinder::QoSAssociation, properties: {qos_specs: q, volume_types: [t]}}",
    "{type: OS::Neutron::Quota, properties: {project: demo, network: 1}}",
    "{type: OS::Neutron::Segment, properties: {network: private, network_type: vxlan}}",
    "{type: OS::Neutron::QoSPolicy, properties: {name: q}}",
    "{type: OS::Neutron::QoSBandwidthLimitRule, properties: {policy: q, max_kbps: 1}}",
    "{type: OS::Neutron::QoSDscpMarkingRule, properties: {policy: q, dscp_mark: 8}}",
    "{type: OS::Neutron::QoSMinimumBandwidthRule, properties: {policy: q, min_kbps: 1}}",
    "{type: OS::Neutron::QoSMinimumPacketRateRule, properties: {policy: q, min_kpps: 1}}",
    "{type: OS::Octavia::Flavor, properties: {flavor_profile: p}}",
    "{type: OS::Octavia::AvailabilityZone, properties: {availability_zone_profile: p}}",
    "{type: OS::Octavia::AvailabilityZoneProfile, properties: {availability_zone_data: '{}'}}",
])
def test_admin_only_types_are_refused_to_a_member(api: Any, snippet: str) -> None:
    type_name = snippet.split("type: ")[1].split(",")[0]
    template = f"heat_template_version: 2018-08-31\nresources:\n  r: {snippet}\n"
    resp = requests.post(f"http://127.0.0.1:{api.up.port}/v1/demo/stacks", timeout=30,
                         headers={"X-Auth-Project": "demo", "X-Roles": "member",
                                  "X-Auth-Token": "x"},
                         json={"stack_name": "refused", "template": template})
    assert resp.status_code == 403, resp.text
    assert resp.json()["error"]["message"] == f"You are not authorized to use {type_name}."


def test_a_quota_needs_a_limit(api: Any) -> None:
    from heatclient import exc
    template = ("heat_template_version: 2018-08-31\nresources:\n"
                "  q: {type: OS::Nova::Quota, properties: {project: demo}}\n")
    with pytest.raises(exc.HTTPBadRequest, match="At least one of the following properties must "
                       "be specified: cores, fixed_ips, floating_ips"):
        api.heat.stacks.create(stack_name="no-limit", template=template)
