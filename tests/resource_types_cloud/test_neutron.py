"""Neutron types against the sandbox through openstacksdk: create, attributes, delete, an
already-gone delete, a retried 5xx, a permanent 4xx with the cloud's message, 409 on delete."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import properties as tproperties

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_net_subnet_life_cycle(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {"tags": ["a", "b"]})
    assert net.resource_id and net.get_reference_id() == net.resource_id
    assert net.resolve_attribute("status") == "ACTIVE"
    assert net.resolve_attribute("name").startswith("cloudstack-net-")
    assert net.resolve_attribute("show")["tags"] == ["a", "b"]
    sub = driver.create("OS::Neutron::Subnet", "sub", {
        "network": net.resolve_attribute("name"), "cidr": "10.9.0.0/24",
        "dns_nameservers": ["8.8.8.8"]})
    assert sub.resolve_attribute("network_id") == net.resource_id
    assert sub.resolve_attribute("cidr") == "10.9.0.0/24"
    assert sub.resolve_attribute("gateway_ip") == "10.9.0.1"
    assert driver.again(net).resolve_attribute("subnets") == [sub.resource_id]
    driver.delete(sub)
    driver.delete(net)
    gone = driver.again(net)
    assert gone.resolve_attribute("status") is None and gone.resolve_attribute("show") is None
    driver.delete(net)          # already gone: counts as deleted
    driver.delete(sub)


def test_subnet_without_gateway(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.8.0.0/24", "gateway_ip": ""})
    assert sub.resolve_attribute("gateway_ip") is None
    driver.delete(sub)
    driver.delete(net)


def test_router_interface_port_secgroup_floating_ip(driver: Any, ids: dict[str, str]) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.7.0.0/24"})
    router = driver.create("OS::Neutron::Router", "router", {
        "external_gateway_info": {"network": "public"}})
    assert router.resolve_attribute("external_gateway_info")["network_id"] == ids["network:public"]
    iface = driver.create("OS::Neutron::RouterInterface", "iface", {
        "router": router.resource_id, "subnet": sub.resource_id})
    assert iface.get_reference_id() == f"{router.resource_id}:subnet_id={sub.resource_id}"
    sg = driver.create("OS::Neutron::SecurityGroup", "sg", {"rules": [
        {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22,
         "remote_ip_prefix": "0.0.0.0/0"},
        {"direction": "egress", "remote_mode": "remote_group_id"}]})
    rules = sg.resolve_attribute("show")["security_group_rules"]
    egress = [r for r in rules if r["direction"] == "egress"]
    assert [r["remote_group_id"] for r in egress] == [sg.resource_id]     # defaults replaced
    rule = driver.create("OS::Neutron::SecurityGroupRule", "rule", {
        "security_group": sg.resource_id, "protocol": "icmp", "port_range_min": None})
    port = driver.create("OS::Neutron::Port", "port", {
        "network": net.resource_id, "fixed_ips": [{"subnet": sub.resource_id,
                                                   "ip_address": "10.7.0.50"}],
        "security_groups": [sg.resource_id]})
    assert port.resolve_attribute("fixed_ips")[0]["ip_address"] == "10.7.0.50"
    assert port.resolve_attribute("network")["id"] == net.resource_id
    assert port.resolve_attribute("subnets")[0]["id"] == sub.resource_id
    assert port.resolve_attribute("security_groups") == [sg.resource_id]
    fip = driver.create("OS::Neutron::FloatingIP", "fip", {"floating_network": "public"})
    assert fip.resolve_attribute("floating_network_id") == ids["network:public"]
    assoc = driver.create("OS::Neutron::FloatingIPAssociation", "assoc", {
        "floatingip_id": fip.resource_id, "port_id": port.resource_id})
    assert driver.again(fip).resolve_attribute("port_id") == port.resource_id
    assert driver.again(fip).resolve_attribute("fixed_ip_address") == "10.7.0.50"
    for res in (assoc, fip, port, rule, sg, iface, router, sub, net):
        driver.delete(res)
    assert driver.again(fip).resolve_attribute("show") is None


def test_provider_net(driver: Any) -> None:
    net = driver.create("OS::Neutron::ProviderNet", "pnet", {
        "network_type": "vlan", "physical_network": "physnet1", "segmentation_id": "101"})
    shown = net.resolve_attribute("show")
    assert shown["provider:network_type"] == "vlan" and shown["shared"] is True
    assert shown["provider:segmentation_id"] == 101
    driver.delete(net)


def test_transient_5xx_is_retried(driver: Any, faults: Any) -> None:
    faults({"match": "network.POST.networks", "status": 503, "times": 2})
    net = driver.create("OS::Neutron::Net", "net", {})
    assert net.resolve_attribute("status") == "ACTIVE"
    driver.delete(net)


def test_persistent_5xx_fails_after_retries(driver: Any, faults: Any) -> None:
    faults({"match": "network.POST.networks", "status": 500, "times": 3, "message": "db down"})
    with pytest.raises(errors.CloudError) as info:
        driver.create("OS::Neutron::Net", "net", {})
    assert info.value.transient and info.value.status == 500
    assert info.value.message == "db down"


def test_permanent_error_fails_with_the_clouds_message(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.6.0.0/24"})
    fixed = {"network": net.resource_id, "fixed_ips": [{"ip_address": "10.6.0.50"}]}
    port = driver.create("OS::Neutron::Port", "port", fixed)
    with pytest.raises(errors.CloudError) as info:
        driver.create("OS::Neutron::Port", "port2", fixed)
    assert info.value.status == 409 and not info.value.transient
    assert info.value.heat_type == "Conflict"
    assert "10.6.0.50" in info.value.message
    for res in (port, sub, net):
        driver.delete(res)


def test_delete_conflict_is_retried_by_polling(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    port = driver.create("OS::Neutron::Port", "port", {"network": net.resource_id})
    res = driver.again(net)
    handle = res.handle_delete()
    assert handle == {"conflicts": 1, "pending": True}     # port still on it: 409
    assert not driver.again(net).check_delete_complete(handle)
    driver.delete(port)
    assert driver.again(net).check_delete_complete(handle)
    assert driver.again(net).resolve_attribute("show") is None


def test_unknown_network_gives_heats_message(driver: Any) -> None:
    res = driver.make("OS::Neutron::Subnet", "sub", {"network": "nope", "cidr": "10.5.0.0/24"})
    with pytest.raises(errors.ValidationError) as info:
        res.validate()
    assert info.value.message == (
        "Property error: resources.sub.properties.network: Error validating value 'nope': "
        "Unable to find network with name or id 'nope'")


def test_floating_ip_on_an_unrouted_subnet_fails_at_once_with_neutrons_message(
        driver: Any, sandbox: Any) -> None:
    """Neutron's 404 "not reachable" is permanent (Heat fails the resource with it): one
    association request, no polling."""
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.4.0.0/24"})
    port = driver.create("OS::Neutron::Port", "port", {"network": net.resource_id})
    fip = driver.make("OS::Neutron::FloatingIP", "fip", {"floating_network": "public",
                                                         "port_id": port.resource_id})
    fip.handle_create()
    sandbox.admin("DELETE", "requests")
    with pytest.raises(errors.CloudError) as info:
        driver.again(fip).check_create_complete(None)
    public = sandbox.admin("GET", "ids")["ids"]["network:public"]
    assert info.value.status == 404 and not info.value.transient
    assert info.value.heat_type == "NotFound"
    assert info.value.message == (
        f"External network {public} is not reachable from subnet {sub.resource_id}.  "
        f"Therefore, cannot associate Port {port.resource_id} with a Floating IP.")
    assert sandbox.admin("GET", "requests")["requests"].get("network.PUT.floatingips") == 1
    for res in (fip, port, sub, net):
        driver.delete(res)


@pytest.mark.parametrize("type_name, props", [
    ("OS::Neutron::Net", {}),
    ("OS::Cinder::Volume", {"size": 1}),
    ("OS::Nova::Server", {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}),
])
def test_redelivered_create_adopts_what_the_first_attempt_made(driver: Any, type_name: str,
                                                                props: dict[str, Any]) -> None:
    """DESIGN invariant 1: the physical name (from the resource's uuid) finds the object a
    crashed attempt created, instead of creating a second one."""
    import uuid as uuidlib

    from app import clients
    from app.resource_types import registry
    uid = str(uuidlib.uuid4())
    cls = registry.get(type_name)
    first = driver.make(type_name, "r", props)
    first = cls("r", first.properties, stack=driver.identity, uuid=uid,
                clients=clients.for_stack(driver.identity))
    first.handle_create()                      # ... and the worker dies before persisting
    again = cls("r", first.properties, stack=driver.identity, uuid=uid,
                clients=clients.for_stack(driver.identity))
    again.handle_create()
    assert again.resource_id == first.resource_id
    driver._poll(again, None, "check_create_complete", 15)
    driver.delete(again)


def test_hidden_deprecated_properties_are_translated(driver: Any) -> None:
    """Heat's hidden ``network_id`` / ``router_id`` / ``subnet_id`` / ``floating_network_id``
    are accepted by the plugins' validation schema and read as the visible properties."""
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network_id": net.resource_id,
                                                       "cidr": "10.3.0.0/24"})
    assert sub.properties["network"] == net.resource_id and "network_id" not in sub.properties
    port = driver.create("OS::Neutron::Port", "port", {"network_id": net.resource_id})
    router = driver.create("OS::Neutron::Router", "r", {"external_gateway_info": {"network": "public"}})
    iface = driver.create("OS::Neutron::RouterInterface", "ri", {"router_id": router.resource_id,
                                                                 "subnet_id": sub.resource_id})
    fip = driver.create("OS::Neutron::FloatingIP", "fip", {"floating_network_id": "public",
                                                           "port_id": port.resource_id})
    assert driver.again(fip).resolve_attribute("port_id") == port.resource_id
    raw = {"network_id": net.resource_id, "cidr": "10.3.0.0/24"}
    validated = tproperties.validate(type(sub).validation_schema(raw), raw, ("r",))
    assert "network_id" in validated and sub.update_diff(validated) == {}
    from app.resource_types import registry
    assert "network_id" not in registry.schema("OS::Neutron::Subnet")["properties"]
    for res in (fip, iface, router, port, sub, net):
        driver.delete(res)
