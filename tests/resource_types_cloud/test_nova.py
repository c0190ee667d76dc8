"""Nova types against the sandbox: servers (networks as network / port / subnet / fixed_ip /
floating_ip, user data formats, metadata, block devices, attributes, ERROR, delete cleanup),
key pairs, server groups, flavors."""
from __future__ import annotations

import base64
import email
from typing import Any

import pytest

from app import errors

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture()
def network(driver: Any) -> Any:
    net = driver.create("OS::Neutron::Net", "net", {"name": "appnet"})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.20.0.0/24"})
    yield net, sub
    driver.delete(sub)
    driver.delete(net)


def _user_data(server: Any) -> str:
    raw = server.resolve_attribute("show")["OS-EXT-SRV-ATTR:user_data"]
    return base64.b64decode(raw).decode()


def test_server_life_cycle(driver: Any, network: Any, sandbox: Any) -> None:
    net, sub = network
    port = driver.create("OS::Neutron::Port", "port", {"network": net.resource_id})
    server = driver.create("OS::Nova::Server", "server", {
        "image": "cirros", "flavor": "m1.tiny", "metadata": {"role": "web", "n": 1},
        "user_data_format": "RAW", "user_data": "#!/bin/sh\necho hi\n",
        "networks": [{"network": "appnet", "fixed_ip": "10.20.0.10"}, {"port": port.resource_id},
                     {"subnet": sub.resource_id}]})
    assert server.resolve_attribute("show")["status"] == "ACTIVE"
    assert server.resolve_attribute("name").startswith("cloudstack-server-")
    assert server.resolve_attribute("show")["metadata"] == {"role": "web", "n": "1"}
    assert _user_data(server) == "#!/bin/sh\necho hi\n"
    nets = server.resolve_attribute("networks")
    assert "10.20.0.10" in nets["appnet"] and nets[net.resource_id] == nets["appnet"]
    assert len(nets["appnet"]) == 3
    addresses = server.resolve_attribute("addresses")["appnet"]
    assert port.resource_id in {a["port"] for a in addresses}
    assert set(server.resolve_attribute("console_urls")) >= {"novnc"}
    assert server.resolve_attribute("accessIPv4") == ""
    assert len(server.data["internal_ports"]) == 2
    driver.delete(server)
    assert driver.again(server).resolve_attribute("show") is None
    assert driver.again(port).resolve_attribute("status")      # the user's port stays
    driver.delete(port)
    driver.delete(server)                                       # already gone


def test_server_floating_ip_and_security_groups(driver: Any, network: Any) -> None:
    net, sub = network
    router = driver.create("OS::Neutron::Router", "r", {"external_gateway_info": {"network": "public"}})
    iface = driver.create("OS::Neutron::RouterInterface", "ri", {"router": router.resource_id,
                                                                 "subnet": sub.resource_id})
    sg = driver.create("OS::Neutron::SecurityGroup", "sg", {})
    fip = driver.create("OS::Neutron::FloatingIP", "fip", {"floating_network": "public"})
    server = driver.create("OS::Nova::Server", "server", {
        "image": "cirros", "flavor": "m1.tiny", "security_groups": [sg.resource_id],
        "networks": [{"network": net.resource_id, "floating_ip": fip.resource_id}]})
    port_id = server.data["internal_ports"][0]["id"]
    assert driver.again(fip).resolve_attribute("port_id") == port_id
    assert server.resolve_attribute("networks")["appnet"][1] == \
        driver.again(fip).resolve_attribute("floating_ip_address")
    driver.delete(server)
    assert driver.again(fip).resolve_attribute("port_id") is None
    for res in (fip, sg, iface, router):
        driver.delete(res)


def test_heat_cfntools_user_data_is_multipart(driver: Any, network: Any) -> None:
    net, _ = network
    server = driver.create("OS::Nova::Server", "server", {
        "image": "cirros", "flavor": "m1.tiny", "user_data": "echo hello",
        "networks": [{"network": net.resource_id}]})
    message = email.message_from_string(_user_data(server))
    assert message.is_multipart()
    parts = {p.get_filename(): p.get_payload(decode=True).decode() for p in message.get_payload()}
    assert parts["cfn-userdata"] == "echo hello"
    assert parts["cloud-config"].startswith("#cloud-config")
    driver.delete(server)


def test_boot_from_volume_bdm_v2(driver: Any, network: Any, sandbox: Any) -> None:
    net, _ = network
    server = driver.create("OS::Nova::Server", "server", {
        "flavor": "m1.tiny", "networks": [{"network": net.resource_id}],
        "block_device_mapping_v2": [{"image": "cirros", "volume_size": 1,
                                     "delete_on_termination": True, "boot_index": 0}]})
    attached = server.resolve_attribute("show")["os-extended-volumes:volumes_attached"]
    assert len(attached) == 1
    driver.delete(server)


def test_server_in_error_fails_with_nova_fault(driver: Any, network: Any, faults: Any) -> None:
    net, _ = network
    faults({"match": "compute.POST.servers", "kind": "server_error", "times": 1})
    with pytest.raises(errors.StokerError) as info:
        driver.create("OS::Nova::Server", "server", {
            "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": net.resource_id}]})
    assert info.value.heat_type == "ResourceInError"
    assert info.value.message.startswith('Went to status ERROR due to "Message: No valid host')
    # the engine deletes a failed resource: the server and its internal port go
    for res in _servers(driver):
        driver.delete(res)


def _servers(driver: Any) -> list[Any]:
    cloud = driver.make("OS::Nova::Server", "x", {"flavor": "m1.tiny"}).cloud()
    out = []
    for server in cloud.compute.servers():
        ports = [{"id": p.id} for p in cloud.network.ports(device_id=server.id)]
        res = driver.make("OS::Nova::Server", "x", {"flavor": "m1.tiny"},
                          resource_id=server.id, data={"internal_ports": ports})
        out.append(res)
    return out


def test_missing_flavor_and_image_give_heats_messages(driver: Any) -> None:
    res = driver.make("OS::Nova::Server", "srv", {"image": "cirros", "flavor": "m1.bogus"})
    with pytest.raises(errors.ValidationError) as info:
        res.validate()
    assert info.value.message == (
        "Property error: resources.srv.properties.flavor: Error validating value 'm1.bogus': "
        "No Flavor matching {'name': 'm1.bogus'}. (HTTP 404)")
    res = driver.make("OS::Nova::Server", "srv", {"image": "nope", "flavor": "m1.tiny"})
    with pytest.raises(errors.ValidationError) as info:
        res.validate()
    assert info.value.message.endswith("Error validating value 'nope': "
                                       "The Image (nope) could not be found.")
    res = driver.make("OS::Nova::Server", "srv", {"flavor": "m1.tiny",
                                                  "networks": [{"network": "nonet"}]})
    with pytest.raises(errors.ValidationError) as info:
        res.validate()
    assert info.value.message.startswith(
        "Property error: resources.srv.properties.networks[0].network: ")


def test_keypair_generated_and_imported(driver: Any) -> None:
    key = driver.create("OS::Nova::KeyPair", "key", {"name": "k1", "save_private_key": True})
    assert key.get_reference_id() == "k1"
    assert "PRIVATE KEY" in key.resolve_attribute("private_key")
    assert key.resolve_attribute("public_key").startswith("ssh-")
    public = key.resolve_attribute("public_key")
    imported = driver.create("OS::Nova::KeyPair", "key2", {"name": "k2", "public_key": public})
    assert imported.resolve_attribute("private_key") == ""
    assert imported.resolve_attribute("public_key") == public
    for res in (key, imported):
        driver.delete(res)
        driver.delete(res)


def test_server_group_and_flavor(driver: Any) -> None:
    group = driver.create("OS::Nova::ServerGroup", "grp", {"policies": ["affinity"]})
    assert group.resolve_attribute("show")["policies"] == ["affinity"]
    with pytest.raises(errors.ValidationError):
        driver.make("OS::Nova::ServerGroup", "bad", {"policies": ["sideways"]})
    flavor = driver.create("OS::Nova::Flavor", "flv", {"ram": 256, "vcpus": 1,
                                                       "extra_specs": {"hw:cpu_policy": "shared"}})
    assert flavor.resolve_attribute("is_public") is True
    assert flavor.resolve_attribute("extra_specs") == {"hw:cpu_policy": "shared"}
    for res in (group, flavor):
        driver.delete(res)
