"""What Heat accepts without listing it: hidden deprecated properties (``network_id``...), the
``description`` property (lost from the reference data with the description texts) and the
Server's hidden ``first_address`` attribute pass stack validation, while ``GET
/resource_types/{type}`` still shows Heat's reference schema without them."""
from __future__ import annotations

from typing import Any

TEMPLATE = """
heat_template_version: 2013-05-23
resources:
  sg:
    type: OS::Neutron::SecurityGroup
    properties: {description: web, rules: [{protocol: icmp}]}
  port:
    type: OS::Neutron::Port
    properties:
      network_id: private
      fixed_ips: [{subnet_id: private-subnet}]
      security_groups: [{get_resource: sg}]
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network_id: public, port_id: {get_resource: port}}
  server:
    type: OS::Nova::Server
    properties: {image: cirros, flavor: m1.tiny, networks: [{port: {get_resource: port}}]}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1, description: data}
outputs:
  ip: {value: {get_attr: [server, first_address]}}
"""


def test_stack_validation_accepts_them(client: Any) -> None:
    resp = client.post("/v1/admin/validate", json={"template": TEMPLATE, "environment": {},
                                                    "files": {}})
    assert resp.status_code == 200, resp.get_data(as_text=True)


def test_resource_type_schemas_do_not_list_them(client: Any) -> None:
    def show(type_name: str) -> dict[str, Any]:
        resp = client.get(f"/v1/admin/resource_types/{type_name}")
        assert resp.status_code == 200
        return dict(resp.get_json())
    assert "network_id" not in show("OS::Neutron::Port")["properties"]
    assert "floating_network_id" not in show("OS::Neutron::FloatingIP")["properties"]
    assert "description" not in show("OS::Neutron::SecurityGroup")["properties"]
    assert "first_address" not in show("OS::Nova::Server")["attributes"]
