"""Nova v2.1 of the sandbox through openstacksdk's compute proxy."""
from __future__ import annotations

import base64

import pytest
from openstack import exceptions

from tests.sandbox.conftest import wait_for


def boot(conn, name="srv", **kwargs):
    image = conn.image.find_image("cirros")
    if "networks" not in kwargs:
        kwargs["networks"] = [{"uuid": conn.network.find_network("private").id}]
    return conn.compute.create_server(name=name, flavor_id="1", image_id=image.id, **kwargs)


def wait_status(conn, server, status):
    return conn.compute.wait_for_server(server, status=status, interval=0.05, wait=5)


def test_server_build_active_delete(no_leaks, conn):
    kp = conn.compute.create_keypair(name="t-key")
    user_data = base64.b64encode(b"#!/bin/sh\necho hi\n").decode()
    server = boot(conn, key_name="t-key", metadata={"role": "web"}, user_data=user_data, config_drive=True,
                  security_groups=[{"name": "default"}])
    assert conn.compute.get_server(server).status == "BUILD"
    server = wait_status(conn, server, "ACTIVE")
    assert server.key_name == "t-key" and server.metadata == {"role": "web"}
    assert server.flavor.name == "m1.tiny" and server.image.id == conn.image.find_image("cirros").id
    (addr,) = server.addresses["private"]
    port = next(conn.network.ports(device_id=server.id))
    assert addr["addr"] == port.fixed_ips[0]["ip_address"] and port.device_owner == "compute:nova"
    assert server.id in {s.id for s in conn.compute.servers()}
    assert conn.compute.find_server("srv").id == server.id
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    assert not list(conn.network.ports(device_id=server.id))
    conn.compute.delete_keypair(kp)


def test_server_on_existing_port_keeps_the_port(no_leaks, conn):
    port = conn.network.create_port(network_id=conn.network.find_network("private").id)
    server = wait_status(conn, boot(conn, networks=[{"port": port.id}]), "ACTIVE")
    assert conn.network.get_port(port).device_id == server.id
    # Nova shows the security groups of the server's ports, not the boot request's default
    sg = conn.network.create_security_group(name="the_sg")
    conn.network.update_port(port, security_groups=[sg.id])
    assert [g["name"] for g in conn.compute.get_server(server).security_groups] == ["the_sg"]
    conn.network.update_port(port, security_groups=[])
    conn.network.delete_security_group(sg)
    ifaces = list(conn.compute.server_interfaces(server))
    assert [i.port_id for i in ifaces] == [port.id]
    with pytest.raises(exceptions.ConflictException):
        boot(conn, networks=[{"port": port.id}])
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    assert conn.network.get_port(port).device_id == ""
    conn.network.delete_port(port)


def test_bad_requests(conn):
    with pytest.raises(exceptions.BadRequestException, match="Flavor"):
        conn.compute.create_server(name="x", flavor_id="nope", image_id=conn.image.find_image("cirros").id,
                                   networks="none")
    with pytest.raises(exceptions.BadRequestException, match="Image"):
        conn.compute.create_server(name="x", flavor_id="1", image_id="nope", networks="none")
    with pytest.raises(exceptions.BadRequestException, match="key_name"):
        boot(conn, key_name="missing")
    with pytest.raises(exceptions.NotFoundException):
        conn.compute.get_server("00000000-0000-0000-0000-000000000000")


def test_actions(no_leaks, conn):
    server = wait_status(conn, boot(conn), "ACTIVE")
    conn.compute.reboot_server(server, "HARD")
    assert conn.compute.get_server(server).status == "HARD_REBOOT"
    with pytest.raises(exceptions.ConflictException):
        conn.compute.suspend_server(server)          # busy: a task is in progress
    wait_status(conn, server, "ACTIVE")
    conn.compute.resize_server(server, "2")
    server = wait_status(conn, server, "VERIFY_RESIZE")
    assert server.flavor.name == "m1.small"
    with pytest.raises(exceptions.ConflictException, match="vm_state resized"):
        conn.compute.resize_server(server, "2")      # Nova checks the state first, then the flavor
    conn.compute.confirm_server_resize(server)
    assert conn.compute.get_server(server).status == "ACTIVE"
    conn.compute.suspend_server(server)
    wait_status(conn, server, "SUSPENDED")
    conn.compute.resume_server(server)
    wait_status(conn, server, "ACTIVE")
    conn.compute.pause_server(server)
    wait_status(conn, server, "PAUSED")
    conn.compute.unpause_server(server)
    wait_status(conn, server, "ACTIVE")
    conn.compute.stop_server(server)
    wait_status(conn, server, "SHUTOFF")
    conn.compute.resize_server(server, "1")          # a stopped server resizes, and is
    wait_status(conn, server, "VERIFY_RESIZE")       # stopped again once confirmed (Nova)
    conn.compute.confirm_server_resize(server)
    assert conn.compute.get_server(server).status == "SHUTOFF"
    conn.compute.start_server(server)
    wait_status(conn, server, "ACTIVE")
    conn.compute.rebuild_server(server, image=conn.image.find_image("ubuntu-24.04").id, name="rebuilt")
    server = wait_status(conn, server, "ACTIVE")
    assert server.name == "rebuilt"
    conn.compute.lock_server(server, locked_reason="testing")
    assert conn.compute.get_server(server).is_locked
    conn.compute.unlock_server(server)
    conn.compute.set_server_metadata(server, tier="db")
    assert conn.compute.get_server_metadata(server).metadata["tier"] == "db"
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_locked_server_refuses_delete_for_non_admin(no_leaks, demo_conn):
    net = demo_conn.network.create_network(name="demo-compute")
    demo_conn.network.create_subnet(network_id=net.id, cidr="10.20.0.0/24", ip_version=4)
    server = wait_status(demo_conn, boot(demo_conn, networks=[{"uuid": net.id}]), "ACTIVE")
    demo_conn.compute.lock_server(server)
    with pytest.raises(exceptions.ConflictException, match="locked"):
        demo_conn.compute.delete_server(server)
    demo_conn.compute.unlock_server(server)
    demo_conn.compute.delete_server(server)
    demo_conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    demo_conn.network.delete_network(net)


def test_interfaces_and_volume_attachments(no_leaks, conn):
    server = wait_status(conn, boot(conn), "ACTIVE")
    net = conn.network.create_network(name="second")
    conn.network.create_subnet(network_id=net.id, cidr="10.30.0.0/24", ip_version=4)
    iface = conn.compute.create_server_interface(server, net_id=net.id)
    assert iface.net_id == net.id
    assert set(conn.compute.get_server(server).addresses) == {"private", "second"}
    conn.compute.delete_server_interface(iface, server=server)
    assert set(conn.compute.get_server(server).addresses) == {"private"}
    volume = conn.block_storage.create_volume(size=1, name="data")
    conn.block_storage.wait_for_status(volume, "available", interval=0.05, wait=5)
    attachment = conn.compute.create_volume_attachment(server, volume_id=volume.id)
    assert attachment.volume_id == volume.id
    volume = conn.block_storage.get_volume(volume)
    assert volume.status == "in-use" and volume.attachments[0]["server_id"] == server.id
    with pytest.raises(exceptions.BadRequestException):
        conn.block_storage.delete_volume(volume)
    conn.compute.delete_volume_attachment(server, volume)
    assert conn.block_storage.get_volume(volume).status == "available"
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    conn.block_storage.delete_volume(volume)
    conn.network.delete_network(net)


def test_boot_from_volume_deletes_on_termination(no_leaks, conn):
    image = conn.image.find_image("cirros")
    server = conn.compute.create_server(
        name="bfv", flavor_id="1", networks=[{"uuid": conn.network.find_network("private").id}],
        block_device_mapping=[{"boot_index": 0, "uuid": image.id, "source_type": "image",
                               "destination_type": "volume", "volume_size": 2, "delete_on_termination": True}])
    server = wait_status(conn, server, "ACTIVE")
    (attached,) = server.attached_volumes
    assert conn.block_storage.get_volume(attached["id"]).status == "in-use"
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_keypairs(no_leaks, conn):
    generated = conn.compute.create_keypair(name="gen")
    assert generated.private_key.startswith("-----BEGIN") and generated.public_key.startswith("ssh-rsa ")
    imported = conn.compute.create_keypair(name="imp", public_key=generated.public_key)
    assert imported.fingerprint == generated.fingerprint and not imported.private_key
    with pytest.raises(exceptions.ConflictException):
        conn.compute.create_keypair(name="gen")
    assert {k.name for k in conn.compute.keypairs()} >= {"gen", "imp"}
    conn.compute.delete_keypair("gen")
    conn.compute.delete_keypair("imp")
    with pytest.raises(exceptions.NotFoundException):
        conn.compute.get_keypair("gen")


def test_flavors(no_leaks, conn, demo_conn):
    assert {"m1.tiny", "m1.small"} <= {f.name for f in conn.compute.flavors()}
    flavor = conn.compute.create_flavor(name="t.custom", ram=128, vcpus=1, disk=1)
    assert conn.compute.find_flavor("t.custom").ram == 128
    with pytest.raises(exceptions.ForbiddenException):
        demo_conn.compute.create_flavor(name="nope", ram=1, vcpus=1, disk=1)
    conn.compute.delete_flavor(flavor)


def test_server_groups_azs_limits(no_leaks, conn):
    group = conn.compute.create_server_group(name="anti", policy="anti-affinity")
    server = boot(conn, scheduler_hints={"group": group.id})
    assert conn.compute.get_server_group(group).member_ids == [server.id]
    assert [z.name for z in conn.compute.availability_zones()] == ["nova"]
    limits = conn.compute.get_limits()
    assert limits.absolute.instances_used >= 1 and limits.absolute.instances == 10
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    conn.compute.delete_server_group(group)


def test_instance_quota(no_leaks, conn):
    project = conn.current_project_id
    used = len(list(conn.compute.servers()))
    conn.compute.update_quota_set(project, instances=used)
    try:
        with pytest.raises(exceptions.ForbiddenException, match="Quota exceeded for instances"):
            boot(conn)
    finally:
        conn.compute.revert_quota_set(project)


def test_another_project_cannot_see_servers(no_leaks, conn, demo_conn):
    server = boot(conn, name="private-srv")
    with pytest.raises(exceptions.NotFoundException):
        demo_conn.compute.get_server(server.id)
    assert server.id not in {s.id for s in demo_conn.compute.servers()}
    with pytest.raises(exceptions.NotFoundException):
        demo_conn.compute.delete_server(server.id, ignore_missing=False)
    wait_for(lambda: conn.compute.get_server(server).status == "ACTIVE")
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


@pytest.mark.filterwarnings("ignore:This API is a proxy to the image service")
def test_server_tags_and_the_image_proxy(no_leaks, conn):
    server = boot(conn)
    server.set_tags(conn.compute, ["a", "b"])
    server.add_tag(conn.compute, "c")
    server.remove_tag(conn.compute, "a")
    assert sorted(conn.compute.get_server(server).tags) == ["b", "c"]
    assert "cirros" in {i.name for i in conn.compute.images()}
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_create_image_and_instance_actions(no_leaks, conn):
    server = wait_status(conn, boot(conn), "ACTIVE")
    image_id = conn.compute.create_server_image(server, name="snap")
    image = conn.image.wait_for_status(conn.image.get_image(image_id), "active", interval=0.05, wait=5)
    assert image.status == "active" and image.owner == conn.current_project_id
    assert [a.action for a in conn.compute.server_actions(server)] == ["createImage", "create"]
    conn.image.delete_image(image)
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_console_urls(no_leaks, conn):
    server = wait_status(conn, boot(conn), "ACTIVE")
    console = conn.compute.create_console(server, console_type="novnc")
    assert console["url"].startswith("http://127.0.0.1:6080/vnc_auto.html")
    assert "login" in conn.compute.get_server_console_output(server)["output"]
    with pytest.raises(exceptions.BadRequestException):
        conn.compute.create_console(server, console_type="telepathy")
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_server_group_policies_place_servers(no_leaks, conn):
    conn.compute.update_quota_set(conn.current_project_id, instances=20)
    together = conn.compute.create_server_group(name="together", policy="affinity")
    apart = conn.compute.create_server_group(name="apart", policy="anti-affinity")
    pair = [boot(conn, name=f"aff{i}", scheduler_hints={"group": together.id}) for i in range(2)]
    spread = [boot(conn, name=f"anti{i}", scheduler_hints={"group": apart.id}) for i in range(9)]
    servers = [wait_for(lambda s=s: conn.compute.get_server(s) if conn.compute.get_server(s).status in
                        ("ACTIVE", "ERROR") else None) for s in pair + spread]
    assert servers[0].host_id == servers[1].host_id and servers[0].status == "ACTIVE"
    placed = servers[2:10]
    assert len({s.host_id for s in placed}) == 8 and {s.status for s in placed} == {"ACTIVE"}
    assert servers[10].status == "ERROR" and "not enough hosts" in servers[10].fault["message"]
    for server in pair + spread:
        conn.compute.delete_server(server)
    for server in pair + spread:
        conn.compute.wait_for_delete(server, interval=0.05, wait=5)
    conn.compute.delete_server_group(together)
    conn.compute.delete_server_group(apart)
    conn.compute.revert_quota_set(conn.current_project_id)


def test_a_listing_gives_each_server_its_own_addresses_and_floating_ips(no_leaks, conn):
    """``servers/detail`` of many servers reads the ports and floating IPs once (an index), and
    still gives each server the addresses of its own ports, as ``GET /servers/{id}`` does."""
    public = conn.network.find_network("public")
    private = conn.network.find_network("private")
    router = conn.network.create_router(name="t-list", external_gateway_info={"network_id": public.id})
    subnet = next(conn.network.subnets(network_id=private.id))
    conn.network.add_interface_to_router(router, subnet_id=subnet.id)
    servers = [wait_status(conn, boot(conn, name=f"listed{i}"), "ACTIVE") for i in range(3)]
    port = next(conn.network.ports(device_id=servers[1].id))
    fip = conn.network.create_ip(floating_network_id=public.id, port_id=port.id)
    try:
        listed = {s.id: s.addresses for s in conn.compute.servers(details=True)
                  if s.id in {x.id for x in servers}}
        assert len(listed) == 3
        for s in servers:
            assert listed[s.id] == conn.compute.get_server(s).addresses
        addrs = [a["addr"] for a in listed[servers[1].id]["private"]]
        assert fip.floating_ip_address in addrs and len(set(map(str, listed.values()))) == 3
    finally:
        conn.network.delete_ip(fip)
        for s in servers:
            conn.compute.delete_server(s)
            conn.compute.wait_for_delete(s, interval=0.05, wait=5)
        conn.network.remove_interface_from_router(router, subnet_id=subnet.id)
        conn.network.delete_router(router)
