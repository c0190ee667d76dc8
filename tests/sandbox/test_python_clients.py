"""The sandbox through the per-service clients Heat itself uses (python-novaclient,
python-neutronclient, python-cinderclient on a keystoneauth1 session), next to the openstacksdk
tests: a different client stack with its own request forms (neutronclient's bulk bodies and
string port ranges, novaclient's microversion negotiation, cinderclient v3) and its own
parsing of the answers."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cinderclient import client as cinder_client
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from neutronclient.common import exceptions as neutron_exc
from neutronclient.v2_0 import client as neutron_client
from novaclient import client as nova_client
from novaclient import exceptions as nova_exc

from tests.sandbox.conftest import wait_for


def session(sandbox: Any, user: str = "admin", project: str = "admin") -> ks_session.Session:
    auth = v3.Password(auth_url=sandbox.auth_url, username=user, password="sandbox",
                       project_name=project, user_domain_name="Default",
                       project_domain_name="Default")
    return ks_session.Session(auth=auth)


@pytest.fixture(scope="module")
def sess(sandbox: Any) -> ks_session.Session:
    return session(sandbox)


@pytest.fixture(scope="module")
def nova(sess: ks_session.Session) -> Any:
    return nova_client.Client("2.1", session=sess)


@pytest.fixture(scope="module")
def neutron(sess: ks_session.Session) -> Any:
    return neutron_client.Client(session=sess)


@pytest.fixture(scope="module")
def cinder(sess: ks_session.Session) -> Any:
    return cinder_client.Client("3", session=sess)


@pytest.fixture()
def network(neutron: Any) -> Iterator[tuple[str, str]]:
    net = neutron.create_network({"network": {"name": "nc-net"}})["network"]
    sub = neutron.create_subnet({"subnet": {"network_id": net["id"], "cidr": "10.90.0.0/24",
                                            "ip_version": 4, "name": "nc-sub"}})["subnet"]
    yield net["id"], sub["id"]
    for port in neutron.list_ports(network_id=net["id"])["ports"]:
        neutron.delete_port(port["id"])
    neutron.delete_network(net["id"])


# ---- Neutron --------------------------------------------------------------------------------
def test_neutronclient_networks_subnets_ports(no_leaks: Any, neutron: Any, network: tuple[str, str]) -> None:
    net_id, sub_id = network
    assert neutron.show_network(net_id)["network"]["subnets"] == [sub_id]
    port = neutron.create_port({"port": {"network_id": net_id, "name": "p",
                                         "fixed_ips": [{"subnet_id": sub_id, "ip_address": "10.90.0.40"}]}})["port"]
    assert port["fixed_ips"] == [{"subnet_id": sub_id, "ip_address": "10.90.0.40"}]
    with pytest.raises(neutron_exc.IpAddressAlreadyAllocatedClient):
        neutron.create_port({"port": {"network_id": net_id, "fixed_ips": [{"ip_address": "10.90.0.40"}]}})
    updated = neutron.update_port(port["id"], {"port": {"name": "renamed"}})["port"]
    assert updated["name"] == "renamed"
    assert [p["id"] for p in neutron.list_ports(fixed_ips="ip_address=10.90.0.40")["ports"]] == [port["id"]]
    neutron.delete_port(port["id"])
    with pytest.raises(neutron_exc.PortNotFoundClient):
        neutron.show_port(port["id"])


def test_neutronclient_bulk_networks_and_ports(no_leaks: Any, neutron: Any) -> None:
    nets = neutron.create_network({"networks": [{"name": "bulk-a"}, {"name": "bulk-b"}]})["networks"]
    assert [n["name"] for n in nets] == ["bulk-a", "bulk-b"]
    subs = neutron.create_subnet({"subnets": [
        {"network_id": nets[0]["id"], "cidr": "10.91.0.0/24", "ip_version": 4},
        {"network_id": nets[1]["id"], "cidr": "10.92.0.0/24", "ip_version": 4}]})["subnets"]
    assert [s["gateway_ip"] for s in subs] == ["10.91.0.1", "10.92.0.1"]
    ports = neutron.create_port({"ports": [{"network_id": n["id"]} for n in nets]})["ports"]
    assert len(ports) == 2 and all(p["fixed_ips"] for p in ports)
    for port in ports:
        neutron.delete_port(port["id"])
    for net in nets:
        neutron.delete_network(net["id"])


def test_neutronclient_security_group_with_bulk_rules(no_leaks: Any, neutron: Any) -> None:
    """What Heat's OS::Neutron::SecurityGroup sends for its inline rules: one bulk request,
    port ranges as the template gave them (strings), answered as integers."""
    sg = neutron.create_security_group({"security_group": {"name": "nc-sg", "description": "web"}})[
        "security_group"]
    rules = neutron.create_security_group_rule({"security_group_rules": [
        {"security_group_id": sg["id"], "direction": "ingress", "protocol": "tcp",
         "port_range_min": "80", "port_range_max": "80", "remote_ip_prefix": "0.0.0.0/0"},
        {"security_group_id": sg["id"], "direction": "ingress", "protocol": "tcp",
         "port_range_min": "443", "port_range_max": "443", "remote_ip_prefix": "0.0.0.0/0"},
        {"security_group_id": sg["id"], "direction": "ingress", "protocol": "icmp"}]})[
        "security_group_rules"]
    assert [(r["port_range_min"], r["port_range_max"]) for r in rules] == [(80, 80), (443, 443), (None, None)]
    shown = neutron.show_security_group(sg["id"])["security_group"]
    assert {r["id"] for r in rules} <= {r["id"] for r in shown["security_group_rules"]}
    with pytest.raises(neutron_exc.Conflict):
        neutron.create_security_group_rule({"security_group_rule": {
            "security_group_id": sg["id"], "direction": "ingress", "protocol": "tcp",
            "port_range_min": 80, "port_range_max": 80, "remote_ip_prefix": "0.0.0.0/0"}})
    with pytest.raises(neutron_exc.BadRequest, match="Invalid value for port http"):
        neutron.create_security_group_rule({"security_group_rule": {
            "security_group_id": sg["id"], "direction": "ingress", "protocol": "tcp",
            "port_range_min": "http", "port_range_max": "http"}})
    neutron.delete_security_group_rule(rules[0]["id"])
    neutron.delete_security_group(sg["id"])


def test_neutronclient_router_interface_and_floating_ip(no_leaks: Any, neutron: Any,
                                                         network: tuple[str, str]) -> None:
    net_id, sub_id = network
    public = neutron.list_networks(**{"router:external": True})["networks"][0]["id"]
    router = neutron.create_router({"router": {"name": "nc-r",
                                               "external_gateway_info": {"network_id": public}}})["router"]
    port = neutron.create_port({"port": {"network_id": net_id}})["port"]
    fip = neutron.create_floatingip({"floatingip": {"floating_network_id": public}})["floatingip"]
    with pytest.raises(neutron_exc.NotFound, match="is not reachable from subnet"):
        neutron.update_floatingip(fip["id"], {"floatingip": {"port_id": port["id"]}})
    neutron.add_interface_router(router["id"], {"subnet_id": sub_id})
    fip = neutron.update_floatingip(fip["id"], {"floatingip": {"port_id": port["id"]}})["floatingip"]
    assert fip["port_id"] == port["id"] and fip["router_id"] == router["id"]
    neutron.update_floatingip(fip["id"], {"floatingip": {"port_id": None}})
    neutron.delete_floatingip(fip["id"])
    neutron.remove_interface_router(router["id"], {"subnet_id": sub_id})
    neutron.delete_router(router["id"])


# ---- Nova -----------------------------------------------------------------------------------
def test_novaclient_server_lifecycle(no_leaks: Any, nova: Any, neutron: Any,
                                     network: tuple[str, str]) -> None:
    net_id, _ = network
    flavor = nova.flavors.find(name="m1.tiny")
    image_id = nova.glance.find_image("cirros").id
    server = nova.servers.create("nc-vm", image_id, flavor.id, nics=[{"net-id": net_id}],
                                 meta={"role": "web"}, userdata="#!/bin/sh\necho hi\n")
    assert server.adminPass
    wait_for(lambda: nova.servers.get(server.id).status == "ACTIVE")
    server = nova.servers.get(server.id)
    assert server.metadata == {"role": "web"} and server.flavor["id"] == flavor.id
    assert list(server.networks) == ["nc-net"]
    assert [s.id for s in nova.servers.list(search_opts={"name": "nc-vm"})] == [server.id]
    ifaces = nova.servers.interface_list(server)
    assert [i.net_id for i in ifaces] == [net_id]
    nova.servers.set_meta(server, {"tier": "1"})
    assert nova.servers.get(server.id).metadata == {"role": "web", "tier": "1"}
    server.reboot()
    wait_for(lambda: nova.servers.get(server.id).status == "ACTIVE")
    nova.servers.delete(server)
    wait_for(lambda: not nova.servers.list(search_opts={"name": "nc-vm"}))
    with pytest.raises(nova_exc.NotFound):
        nova.servers.get(server.id)


def test_novaclient_negotiates_a_microversion(sess: ks_session.Session) -> None:
    """Heat asks for the newest microversion both sides speak (``api_versions`` discovery)."""
    from novaclient import api_versions
    client = nova_client.Client("2.1", session=sess)
    version = api_versions.discover_version(client, api_versions.APIVersion("2.96"))
    assert version >= api_versions.APIVersion("2.60")
    newer = nova_client.Client(version.get_string(), session=sess)
    assert newer.flavors.find(name="m1.tiny").name == "m1.tiny"


def test_novaclient_keypairs_and_server_groups(no_leaks: Any, nova: Any) -> None:
    key = nova.keypairs.create("nc-key")
    assert key.private_key.startswith("-----BEGIN") and key.fingerprint
    assert "nc-key" in [k.name for k in nova.keypairs.list()]
    group = nova.server_groups.create(name="nc-group", policies=["anti-affinity"])
    assert nova.server_groups.get(group.id).policies == ["anti-affinity"]
    nova.server_groups.delete(group.id)
    nova.keypairs.delete("nc-key")
    with pytest.raises(nova_exc.NotFound):
        nova.keypairs.get("nc-key")


# ---- Cinder ---------------------------------------------------------------------------------
def test_cinderclient_volume_and_nova_attachment(no_leaks: Any, nova: Any, cinder: Any,
                                                 network: tuple[str, str]) -> None:
    net_id, _ = network
    volume = cinder.volumes.create(size=1, name="nc-vol", metadata={"k": "v"})
    wait_for(lambda: cinder.volumes.get(volume.id).status == "available")
    volume = cinder.volumes.get(volume.id)
    assert (volume.size, volume.name, volume.metadata) == (1, "nc-vol", {"k": "v"})
    assert volume.id in [v.id for v in cinder.volumes.list(search_opts={"name": "nc-vol"})]
    image_id = nova.glance.find_image("cirros").id
    server = nova.servers.create("nc-att", image_id, nova.flavors.find(name="m1.tiny").id,
                                 nics=[{"net-id": net_id}])
    wait_for(lambda: nova.servers.get(server.id).status == "ACTIVE")
    attachment = nova.volumes.create_server_volume(server.id, volume.id)
    assert attachment.volumeId == volume.id
    wait_for(lambda: cinder.volumes.get(volume.id).status == "in-use")
    attached = cinder.volumes.get(volume.id).attachments
    assert [a["server_id"] for a in attached] == [server.id]
    assert [a.volumeId for a in nova.volumes.get_server_volumes(server.id)] == [volume.id]
    nova.volumes.delete_server_volume(server.id, volume.id)
    wait_for(lambda: cinder.volumes.get(volume.id).status == "available")
    cinder.volumes.extend(volume, 2)
    wait_for(lambda: cinder.volumes.get(volume.id).size == 2)
    nova.servers.delete(server)
    cinder.volumes.delete(volume)
    wait_for(lambda: volume.id not in [v.id for v in cinder.volumes.list()])
    wait_for(lambda: not nova.servers.list(search_opts={"name": "nc-att"}))
