"""Neutron v2.0 of the sandbox through openstacksdk's network proxy."""
from __future__ import annotations

import pytest
from openstack import exceptions


@pytest.fixture()
def net(conn):
    network = conn.network.create_network(name="t-net")
    subnet = conn.network.create_subnet(network_id=network.id, cidr="192.168.50.0/24", ip_version=4, name="t-sub",
                                        allocation_pools=[{"start": "192.168.50.10", "end": "192.168.50.20"}])
    yield network, subnet
    for port in conn.network.ports(network_id=network.id):
        conn.network.delete_port(port)
    conn.network.delete_network(network)


def test_network_subnet_port_lifecycle(no_leaks, conn, net):
    network, subnet = net
    assert subnet.gateway_ip == "192.168.50.1"
    assert conn.network.get_network(network).subnet_ids == [subnet.id]
    port = conn.network.create_port(network_id=network.id, name="p1",
                                     allowed_address_pairs=[{"ip_address": "10.9.9.9"}])
    assert port.fixed_ips == [{"subnet_id": subnet.id, "ip_address": "192.168.50.10"}]
    assert port.mac_address.startswith("fa:16:3e:")
    assert port.allowed_address_pairs[0]["mac_address"] == port.mac_address
    assert len(port.security_group_ids) == 1   # the project's default group
    fixed = conn.network.create_port(network_id=network.id, fixed_ips=[{"ip_address": "192.168.50.15"}])
    assert fixed.fixed_ips[0]["ip_address"] == "192.168.50.15"
    updated = conn.network.update_port(port, name="renamed", device_owner="compute:nova", device_id="x")
    assert updated.name == "renamed" and updated.status == "ACTIVE"
    assert {p.id for p in conn.network.ports(network_id=network.id)} == {port.id, fixed.id}
    conn.network.delete_port(fixed)
    conn.network.delete_port(port)
    with pytest.raises(exceptions.NotFoundException):
        conn.network.get_port(port.id)


def test_ip_conflicts_and_exhaustion(no_leaks, conn, net):
    network, subnet = net
    conn.network.create_port(network_id=network.id, fixed_ips=[{"ip_address": "192.168.50.12"}])
    with pytest.raises(exceptions.ConflictException, match="already allocated"):
        conn.network.create_port(network_id=network.id, fixed_ips=[{"ip_address": "192.168.50.12"}])
    with pytest.raises(exceptions.BadRequestException, match="not a valid IP"):
        conn.network.create_port(network_id=network.id, fixed_ips=[{"subnet_id": subnet.id,
                                                                     "ip_address": "10.1.1.1"}])
    for _ in range(10):
        conn.network.create_port(network_id=network.id)
    with pytest.raises(exceptions.ConflictException, match="No more IP addresses"):
        conn.network.create_port(network_id=network.id)


def test_subnet_validation_and_overlap(no_leaks, conn, net):
    network, _ = net
    with pytest.raises(exceptions.BadRequestException, match="overlaps"):
        conn.network.create_subnet(network_id=network.id, cidr="192.168.50.128/25", ip_version=4)
    with pytest.raises(exceptions.BadRequestException):
        conn.network.create_subnet(network_id=network.id, cidr="192.168.77.1/24", ip_version=4)
    with pytest.raises(exceptions.BadRequestException):
        conn.network.create_subnet(network_id=network.id, cidr="not-a-cidr", ip_version=4)
    v6 = conn.network.create_subnet(network_id=network.id, cidr="fd00:1::/64", ip_version=6)
    assert v6.gateway_ip == "fd00:1::1"
    conn.network.delete_subnet(v6)


def test_in_use_errors(no_leaks, conn, net):
    network, subnet = net
    port = conn.network.create_port(network_id=network.id)
    with pytest.raises(exceptions.ConflictException, match="ports still in use"):
        conn.network.delete_network(network)
    with pytest.raises(exceptions.ConflictException, match="IP allocation from this subnet"):
        conn.network.delete_subnet(subnet)
    conn.network.delete_port(port)


def test_router_interfaces_and_floating_ip(no_leaks, conn, net):
    network, subnet = net
    public = conn.network.find_network("public")
    port = conn.network.create_port(network_id=network.id)
    with pytest.raises(exceptions.NotFoundException, match="not reachable"):
        conn.network.create_ip(floating_network_id=public.id, port_id=port.id)
    router = conn.network.create_router(name="t-router", external_gateway_info={"network_id": public.id})
    assert router.external_gateway_info["network_id"] == public.id
    assert router.external_gateway_info["external_fixed_ips"][0]["ip_address"].startswith("172.24.4.")
    info = conn.network.add_interface_to_router(router, subnet_id=subnet.id)
    assert info["subnet_id"] == subnet.id
    iface = conn.network.get_port(info["port_id"])
    assert iface.fixed_ips[0]["ip_address"] == "192.168.50.1" and iface.device_owner == "network:router_interface"
    with pytest.raises(exceptions.BadRequestException):
        conn.network.add_interface_to_router(router, subnet_id=subnet.id)
    fip = conn.network.create_ip(floating_network_id=public.id, port_id=port.id)
    assert fip.status == "ACTIVE" and fip.router_id == router.id
    assert fip.fixed_ip_address == port.fixed_ips[0]["ip_address"]
    with pytest.raises(exceptions.ConflictException):
        conn.network.delete_router(router)
    fip = conn.network.update_ip(fip, port_id=None)
    assert fip.status == "DOWN" and fip.port_id is None
    conn.network.delete_ip(fip)
    conn.network.remove_interface_from_router(router, subnet_id=subnet.id)
    conn.network.update_router(router, external_gateway_info={})
    conn.network.delete_router(router)
    conn.network.delete_port(port)


def test_security_groups_and_rules(no_leaks, conn):
    sg = conn.network.create_security_group(name="web", description="web servers")
    assert {r["direction"] for r in sg.security_group_rules} == {"egress"}
    rule = conn.network.create_security_group_rule(security_group_id=sg.id, direction="ingress", protocol="tcp",
                                                   port_range_min=80, port_range_max=80,
                                                   remote_ip_prefix="0.0.0.0/0", ethertype="IPv4")
    with pytest.raises(exceptions.ConflictException):
        conn.network.create_security_group_rule(security_group_id=sg.id, direction="ingress", protocol="tcp",
                                                port_range_min=80, port_range_max=80,
                                                remote_ip_prefix="0.0.0.0/0", ethertype="IPv4")
    with pytest.raises(exceptions.BadRequestException):
        conn.network.create_security_group_rule(security_group_id=sg.id, direction="sideways")
    assert rule.id in {r.id for r in conn.network.security_group_rules(security_group_id=sg.id)}
    conn.network.delete_security_group_rule(rule)
    conn.network.delete_security_group(sg)
    default = conn.network.find_security_group("default", project_id=conn.current_project_id)
    assert len(default.security_group_rules) == 4


def test_quota_exceeded_is_neutrons_error(no_leaks, conn):
    project = conn.current_project_id
    have = len(list(conn.network.networks(project_id=project)))
    conn.network.update_quota(project, networks=have)
    try:
        with pytest.raises(exceptions.ConflictException, match="Quota exceeded"):
            conn.network.create_network(name="too-many")
        assert conn.network.get_quota(project).networks == have
        assert len(list(conn.network.networks(project_id=project))) == have  # none was made
    finally:
        conn.network.delete_quota(project)


def test_projects_are_isolated(no_leaks, conn, demo_conn):
    mine = demo_conn.network.create_network(name="demo-net")
    assert "demo-net" not in [n.name for n in conn.network.networks(project_id=conn.current_project_id)]
    assert "private" in [n.name for n in demo_conn.network.networks()]   # demo's own, as devstack
    assert "public" in [n.name for n in demo_conn.network.networks()]   # external networks are visible
    admin_net = conn.network.create_network(name="admin-only")
    assert "admin-only" not in [n.name for n in demo_conn.network.networks()]
    admin_port = conn.network.create_port(network_id=conn.network.find_network("private").id)
    with pytest.raises(exceptions.NotFoundException):
        demo_conn.network.get_port(admin_port.id)
    with pytest.raises(exceptions.ForbiddenException):
        demo_conn.network.create_network(name="ext", is_router_external=True)
    conn.network.delete_port(admin_port)
    conn.network.delete_network(admin_net)
    demo_conn.network.delete_network(mine)


def test_tags(no_leaks, conn):
    network = conn.network.create_network(name="tagged")
    conn.network.set_tags(network, ["blue", "green"])
    assert sorted(conn.network.get_network(network).tags) == ["blue", "green"]
    assert [n.id for n in conn.network.networks(tags="blue")] == [network.id]
    conn.network.add_tag(network, "red")
    conn.network.remove_tag(network, "blue")
    assert sorted(conn.network.get_network(network).tags) == ["green", "red"]
    conn.network.delete_network(network)


def test_port_filters(no_leaks, conn, net):
    network, subnet = net
    a = conn.network.create_port(network_id=network.id, fixed_ips=[{"ip_address": "192.168.50.14"}])
    b = conn.network.create_port(network_id=network.id, device_owner="compute:nova", device_id="vm-1")
    assert [p.id for p in conn.network.ports(fixed_ips=["ip_address=192.168.50.14"])] == [a.id]
    assert [p.id for p in conn.network.ports(device_id="vm-1")] == [b.id]
    assert {p.id for p in conn.network.ports(fixed_ips=[f"subnet_id={subnet.id}"])} == {a.id, b.id}
    conn.network.delete_port(a)
    conn.network.delete_port(b)
