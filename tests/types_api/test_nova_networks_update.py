"""Updates of OS::Nova::Server ``networks`` through the API: the interfaces a new entry still
describes are kept, as Heat's ``calculate_networks`` keeps them (a ``network`` entry swapped for
its ``subnet``, its ``port`` or its own ``fixed_ip`` keeps the port; reordered entries keep
theirs); an entry on another network detaches the old port and attaches a new one."""
from __future__ import annotations

import time
from typing import Any

import pytest

pytestmark = pytest.mark.integration

TEMPLATE = """
heat_template_version: 2016-04-08
resources:
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: net}
      cidr: 11.11.11.0/24
  other_net:
    type: OS::Neutron::Net
  other_subnet:
    type: OS::Neutron::Subnet
    properties:
      network: {get_resource: other_net}
      cidr: 12.12.12.0/24
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.tiny
      networks: $NETWORKS
outputs:
  ports:
    value: {get_attr: [server, addresses]}
"""


def _ports(api: Any, stack: dict[str, Any]) -> list[str]:
    """The server's port ids, in Nova's interface order."""
    server = api.resources(stack)["server"]["physical_resource_id"]
    found = api.cloud("compute").get(f"/servers/{server}/os-interface").json()
    return [i["port_id"] for i in found["interfaceAttachments"]]


def _update(api: Any, stack: dict[str, Any], networks: str) -> dict[str, Any]:
    time.sleep(1)   # the harness tells updates apart by updated_time, to the second
    return api.update(stack, TEMPLATE.replace("$NETWORKS", networks))


def test_swapped_entries_keep_their_ports(api: Any, api_no_leaks: None) -> None:
    stack = api.create(TEMPLATE.replace("$NETWORKS", "[{network: {get_resource: net}}]"))
    [port] = _ports(api, stack)
    ip = api.cloud("network").get(f"/v2.0/ports/{port}").json()["port"]["fixed_ips"][0]
    for networks in ("[{subnet: {get_resource: subnet}}]",
                     "[{network: {get_resource: net}}]",
                     f"[{{port: {port}}}]",
                     f"[{{network: {{get_resource: net}}, fixed_ip: {ip['ip_address']}}}]",
                     "[{network: {get_resource: net}, subnet: {get_resource: subnet}}]"):
        stack = _update(api, stack, networks)
        assert _ports(api, stack) == [port], networks
    api.delete(stack)


def test_reordered_entries_keep_all_ports(api: Any, api_no_leaks: None) -> None:
    stack = api.create(TEMPLATE.replace("$NETWORKS", """
        - network: {get_resource: net}
        - network: {get_resource: net}
          fixed_ip: 11.11.11.33
        - subnet: {get_resource: subnet}
"""))
    before = _ports(api, stack)
    assert len(before) == 3
    stack = _update(api, stack, """
        - subnet: {get_resource: subnet}
        - network: {get_resource: net}
        - network: {get_resource: net}
          subnet: {get_resource: subnet}
""")
    assert _ports(api, stack) == before
    api.delete(stack)


def test_entry_on_another_network_replaces_the_port(api: Any, api_no_leaks: None) -> None:
    stack = api.create(TEMPLATE.replace("$NETWORKS", "[{network: {get_resource: net}}]"))
    [old] = _ports(api, stack)
    stack = _update(api, stack, "[{network: {get_resource: other_net}}]")
    [new] = _ports(api, stack)
    assert new != old
    port = api.cloud("network").get(f"/v2.0/ports/{new}").json()["port"]
    assert port["fixed_ips"][0]["ip_address"].startswith("12.12.12.")
    # the internal port of the detached entry is deleted with the detach, as Heat deletes it
    assert api.cloud("network").get(f"/v2.0/ports/{old}", raise_exc=False).status_code == 404
    api.delete(stack)
