"""Neutron's RBAC sharing and subnet allocation from a subnet pool, as a user sees them through
the API with real workers: an OS::Neutron::RBACPolicy shares a network with the project it
targets (that project sees it as shared and can put a port on it; the policy cannot be removed
while it does; once the policy is gone the network is invisible to it again), and an
OS::Neutron::Subnet that names a subnetpool and a prefixlen but no cidr gets its CIDR from the
pool, as Neutron's subnet allocator gives it; a prefixlen outside the pool's bounds fails the
subnet with Neutron's message and leaves nothing behind."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

SHARED = """
heat_template_version: 2018-08-31
parameters:
  target: {type: string}
resources:
  net: {type: OS::Neutron::Net, properties: {name: rbac-shared}}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.70.0.0/24}
  rbac:
    type: OS::Neutron::RBACPolicy
    properties: {object_type: network, object_id: {get_resource: net}, action: access_as_shared,
                 target_tenant: {get_param: target}}
"""


def test_rbac_policy_shares_a_network_with_its_target_project(api: Any) -> None:
    ids = api.sandbox("GET", "ids")["ids"]
    admin_project, demo = ids["project:admin"], ids["project:demo"]
    as_admin, as_demo = api.cloud("network"), api.cloud("network", project="demo", user="demo")
    stack = api.create(SHARED, {"target": admin_project})
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert as_demo.get(f"/v2.0/networks/{res['net']}", raise_exc=False).status_code == 404

    stack = api.update(stack, SHARED, {"target": demo})
    assert api.resources(stack)["rbac"]["physical_resource_id"] == res["rbac"]    # in place
    seen = as_demo.get(f"/v2.0/networks/{res['net']}").json()["network"]
    assert seen["shared"] is True and seen["subnets"] == [res["subnet"]]
    assert res["net"] in {n["id"] for n in as_demo.get("/v2.0/networks").json()["networks"]}
    assert as_admin.get(f"/v2.0/networks/{res['net']}").json()["network"]["shared"] is False
    port = as_demo.post("/v2.0/ports", json={"port": {"network_id": res["net"]}}).json()["port"]
    assert port["project_id"] == demo and port["fixed_ips"][0]["subnet_id"] == res["subnet"]

    refused = as_admin.delete(f"/v2.0/rbac-policies/{res['rbac']}", raise_exc=False)
    assert refused.status_code == 409 and refused.json()["NeutronError"]["type"] == "RbacPolicyInUse"
    as_demo.delete(f"/v2.0/ports/{port['id']}")
    api.delete(stack)
    assert as_demo.get(f"/v2.0/networks/{res['net']}", raise_exc=False).status_code == 404


POOLED = """
heat_template_version: 2018-08-31
parameters:
  prefixes: {type: comma_delimited_list, default: 10.210.0.0/16}
  pool_name: {type: string, default: pool-a}
  scope_name: {type: string, default: scope-a}
  small: {type: number, default: 26}
resources:
  scope:
    type: OS::Neutron::AddressScope
    properties: {name: {get_param: scope_name}, ip_version: 4}
  pool:
    type: OS::Neutron::SubnetPool
    properties: {name: {get_param: pool_name}, prefixes: {get_param: prefixes}, default_prefixlen: 24,
                 max_prefixlen: 28, address_scope: {get_resource: scope}}
  net: {type: OS::Neutron::Net}
  small:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, subnetpool: {get_resource: pool},
                 prefixlen: {get_param: small}}
  default:
    type: OS::Neutron::Subnet
    depends_on: small
    properties: {network: {get_resource: net}, subnetpool: {get_resource: pool}}
outputs:
  small: {value: {get_attr: [small, cidr]}}
  default: {value: {get_attr: [default, cidr]}}
"""


def test_a_subnet_gets_its_cidr_from_the_subnet_pool(api: Any) -> None:
    net = api.cloud("network")
    stack = api.create(POOLED)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert api.output(stack, "small") == "10.210.0.0/26"
    assert api.output(stack, "default") == "10.210.1.0/24"     # the lowest free /24
    subnet = net.get(f"/v2.0/subnets/{res['small']}").json()["subnet"]
    assert (subnet["subnetpool_id"], subnet["gateway_ip"]) == (res["pool"], "10.210.0.1")

    stack = api.update(stack, POOLED, {"prefixes": "10.210.0.0/16,10.211.0.0/16",
                                       "pool_name": "pool-b", "scope_name": "scope-b"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert after == res                                          # pool and scope in place
    pool = net.get(f"/v2.0/subnetpools/{res['pool']}").json()["subnetpool"]
    assert (pool["name"], pool["prefixes"]) == ("pool-b", ["10.210.0.0/15"])   # Neutron collapses them
    assert net.get(f"/v2.0/address-scopes/{res['scope']}").json()["address_scope"]["name"] == "scope-b"
    api.delete(stack)


def test_a_prefixlen_beyond_the_pool_fails_with_neutrons_message(api: Any) -> None:
    stack = api.create(POOLED, {"small": 30}, expect="CREATE_FAILED")
    reason = api.resources(stack)["small"]["resource_status_reason"]
    assert "Unable to allocate subnet with prefix length 30, maximum allowed prefix is 28." in reason
    api.delete(stack)


def test_subnetpool_and_cidr_together_are_refused_as_heat_does(api: Any) -> None:
    from heatclient import exc
    net = api.cloud("network")
    pool = net.post("/v2.0/subnetpools", json={"subnetpool": {"name": "t-refused-pool",
                                                               "prefixes": ["10.230.0.0/16"]}}).json()
    try:
        for extra, message in (("cidr: 10.230.9.0/24", "subnetpool, cidr."), ("", None)):
            template = ("heat_template_version: 2018-08-31\nresources:\n  s:\n    type: OS::Neutron::Subnet\n"
                        f"    properties: {{network: private, subnetpool: t-refused-pool, {extra}}}\n")
            if message is None:
                template = template.replace("subnetpool: t-refused-pool, ", "")
                message = "At least one of the following properties must be specified: subnetpool, cidr."
            else:
                message = "Cannot define the following properties at the same time: " + message
            with pytest.raises(exc.HTTPBadRequest) as refused:
                api.heat.stacks.create(stack_name="t-refused", template=template)
            assert message in str(refused.value)
    finally:
        net.delete(f"/v2.0/subnetpools/{pool['subnetpool']['id']}")
