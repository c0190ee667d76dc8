"""Update previews through the API with real workers: the preview of an update that replaces a
resource others reference (directly, inside a group's member definition, from a nested stack)
lists what Heat's ``preview_update_stack`` lists, validates what it cannot know yet as the
update does (not at all until it exists), and the same update then completes."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

NET = """
heat_template_version: 2018-08-31
parameters:
  cidr: {type: string, default: 10.50.0.0/24}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: {get_param: cidr}}
"""

GROUP = NET + """
  ports:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Neutron::Port
        properties:
          network: {get_resource: net}
          fixed_ips: [{subnet: {get_resource: subnet}}]
"""

PORT = """
heat_template_version: 2018-08-31
parameters:
  network: {type: string}
  subnet: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: network}, fixed_ips: [{subnet: {get_param: subnet}}]}
outputs:
  ip: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
"""

NESTED = NET + """
  inline:
    type: OS::Heat::Stack
    properties:
      template: {get_file: port.yaml}
      parameters: {network: {get_resource: net}, subnet: {get_resource: subnet}}
  provided:
    type: port.yaml
    properties: {network: {get_resource: net}, subnet: {get_resource: subnet}}
outputs:
  ips:
    value: [{get_attr: [inline, outputs, ip]}, {get_attr: [provided, ip]}]
"""

SERVER = """
heat_template_version: 2018-08-31
parameters:
  side: {type: string, default: a}
conditions:
  on_b: {equals: [{get_param: side}, b]}
resources:
  net_a: {type: OS::Neutron::Net}
  sub_a:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net_a}, cidr: 10.52.0.0/24}
  net_b: {type: OS::Neutron::Net}
  sub_b:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net_b}, cidr: 10.53.0.0/24}
  port:
    type: OS::Neutron::Port
    properties:
      network: {if: [on_b, {get_resource: net_b}, {get_resource: net_a}]}
      fixed_ips: [{subnet: {if: [on_b, {get_resource: sub_b}, {get_resource: sub_a}]}}]
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
"""

NEW_CIDR = {"cidr": "10.51.0.0/24"}


def names(preview: dict[str, Any]) -> dict[str, list[str]]:
    return {k: sorted(e["resource_name"] for e in v)
            for k, v in preview["resource_changes"].items()}


def update_existing(api: Any, stack: dict[str, Any], parameters: dict[str, Any]) -> None:
    """``openstack stack update --existing --parameter ...`` (PATCH), waited for."""
    ended = api._updates_ended(stack)
    api.heat.stacks.update(stack["id"], existing=True, parameters=parameters)
    api._settled(stack["id"], "UPDATE_COMPLETE", 120, updates=(stack, ended))


def test_group_members_reading_a_replaced_subnet(api):
    """Heat lists the replaced subnet as replaced and the group as updated (a nested stack is
    always updated, its members decide); with show_nested each member port, whose subnet
    changes and whose ``fixed_ips`` may change in place, is updated too. The member
    definition's subnet is not known until the update makes it: not checked (the update
    checks it then), where the preview used to look the placeholder up and fail."""
    stack = api.create(GROUP)
    got = api.heat.stacks.preview_update(stack["id"], existing=True, parameters=NEW_CIDR)
    assert names(got) == {"added": [], "deleted": [], "replaced": ["subnet"],
                          "unchanged": ["net"], "updated": ["ports"]}
    nested = api.heat.stacks.preview_update(stack["id"], existing=True, parameters=NEW_CIDR,
                                            show_nested=True)
    assert names(nested) == {"added": [], "deleted": [], "replaced": ["subnet"],
                             "unchanged": ["net"], "updated": ["0", "1", "ports"]}
    members = {e["resource_name"]: e for e in nested["resource_changes"]["updated"]}
    assert members["0"]["parent_resource"] == "ports"
    before = api.resources(stack, nested_depth=1)
    update_existing(api, stack, NEW_CIDR)
    after = api.resources(stack, nested_depth=1)
    assert after["subnet"]["physical_resource_id"] != before["subnet"]["physical_resource_id"]
    assert after["0"]["physical_resource_id"] == before["0"]["physical_resource_id"]
    port = api.cloud("network").get(f"/v2.0/ports/{after['0']['physical_resource_id']}").json()
    assert port["port"]["fixed_ips"][0]["subnet_id"] == after["subnet"]["physical_resource_id"]
    api.delete(stack)


def test_a_member_value_known_to_be_wrong_is_reported_by_the_preview(api):
    """What the preview knows is checked as the update checks it when it updates the group's
    members: a member network that does not exist is the preview's 400, and the reason the
    update's group fails with."""
    from heatclient import exc
    stack = api.create(GROUP)
    bad = GROUP.replace("network: {get_resource: net}\n          fixed_ips",
                        "network: no-such-net\n          fixed_ips")
    with pytest.raises(exc.HTTPBadRequest) as preview_err:
        api.heat.stacks.preview_update(stack["id"], template=bad, parameters=NEW_CIDR)
    assert "Unable to find network with name or id 'no-such-net'" in str(preview_err.value)
    ended = api._updates_ended(stack)
    api.heat.stacks.update(stack["id"], template=bad, parameters=NEW_CIDR)
    failed = api._settled(stack["id"], "UPDATE_FAILED", 120, updates=(stack, ended))
    assert "Unable to find network with name or id 'no-such-net'" in \
        api.failures(failed)["ports"]
    api.delete(stack)


def test_nested_stacks_given_a_replaced_subnet(api):
    """An OS::Heat::Stack and a template resource whose parameters are the replaced subnet:
    updated (their ports, with show_nested, updated too); the child's parameter is not known
    before the update, so it is not looked up."""
    files = {"port.yaml": PORT}
    stack = api.create(NESTED, files=files)
    got = api.heat.stacks.preview_update(stack["id"], existing=True, parameters=NEW_CIDR)
    assert names(got) == {"added": [], "deleted": [], "replaced": ["subnet"],
                          "unchanged": ["net"], "updated": ["inline", "provided"]}
    nested = api.heat.stacks.preview_update(stack["id"], existing=True, parameters=NEW_CIDR,
                                            show_nested=True)
    assert names(nested)["updated"] == ["inline", "port", "port", "provided"]
    assert names(nested)["replaced"] == ["subnet"]
    update_existing(api, stack, NEW_CIDR)
    ips = api.output(api.heat.stacks.get(stack["id"]).to_dict(), "ips")
    assert all(ip.startswith("10.51.0.") for ip in ips), ips
    api.delete(stack)


def test_a_server_whose_port_is_replaced(api):
    """The port moves to another network (``network`` is not update_allowed: replaced); the
    server reads its id, which the update makes: updated (``networks`` may change in place),
    as Heat's preview lists it; then the update swaps the server's interface."""
    stack = api.create(SERVER)
    got = api.heat.stacks.preview_update(stack["id"], existing=True, parameters={"side": "b"})
    assert names(got) == {"added": [], "deleted": [], "replaced": ["port"],
                          "unchanged": ["net_a", "net_b", "sub_a", "sub_b"],
                          "updated": ["server"]}
    update_existing(api, stack, {"side": "b"})
    res = api.resources(stack)
    server = api.cloud("compute").get(
        f"/servers/{res['server']['physical_resource_id']}/os-interface").json()
    assert [i["port_id"] for i in server["interfaceAttachments"]] == [
        res["port"]["physical_resource_id"]]
    api.delete(stack)


HEALTH = """
heat_template_version: 2018-08-31
resources:
  rs: {type: OS::Heat::RandomString, properties: {length: 8}}
  val:
    type: OS::Heat::Value
    properties: {value: {get_attr: [rs, value]}}
"""


def test_a_resource_marked_unhealthy_is_previewed_replaced_as_the_update_replaces_it(api):
    """A CHECK_FAILED resource is replaced by the next update whatever its plugin says of its
    health (Heat's always_replace_on_check_failed): the preview of an update that changes
    nothing lists it replaced, and its dependent, which reads the new value, updated."""
    stack = api.create(HEALTH)
    api.heat.resources.mark_unhealthy(stack["id"], "rs", True, "broken")
    got = api.heat.stacks.preview_update(stack["id"], existing=True)
    assert names(got) == {"added": [], "deleted": [], "replaced": ["rs"], "unchanged": [],
                          "updated": ["val"]}
    before = api.resources(stack)["rs"]["physical_resource_id"]
    update_existing(api, stack, {})
    after = api.resources(stack)
    assert after["rs"]["physical_resource_id"] != before
    assert after["val"]["resource_status"] == "UPDATE_COMPLETE"
    api.delete(stack)
