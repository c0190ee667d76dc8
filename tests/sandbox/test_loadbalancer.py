"""Octavia v2 of the sandbox through openstacksdk's load-balancer proxy."""
from __future__ import annotations

import pytest
from openstack import exceptions


def active(conn, lb):
    return conn.load_balancer.wait_for_load_balancer(lb.id, interval=0.05, wait=5)


def test_load_balancer_tree_with_provisioning_states(no_leaks, conn):
    subnet = conn.network.find_subnet("private-subnet")
    lb = conn.load_balancer.create_load_balancer(name="t-lb", vip_subnet_id=subnet.id)
    assert lb.provisioning_status == "PENDING_CREATE"
    vip = conn.network.get_port(lb.vip_port_id)
    assert vip.fixed_ips[0]["ip_address"] == lb.vip_address and vip.device_owner == "Octavia"
    with pytest.raises(exceptions.ConflictException, match="immutable"):
        conn.load_balancer.create_listener(protocol="HTTP", protocol_port=80, load_balancer_id=lb.id)
    lb = active(conn, lb)
    assert lb.operating_status == "ONLINE"
    listener = conn.load_balancer.create_listener(name="http", protocol="HTTP", protocol_port=80,
                                                  load_balancer_id=lb.id)
    assert conn.load_balancer.get_load_balancer(lb).provisioning_status == "PENDING_UPDATE"
    active(conn, lb)
    with pytest.raises(exceptions.ConflictException):
        conn.load_balancer.create_listener(protocol="HTTP", protocol_port=80, load_balancer_id=lb.id)
    pool = conn.load_balancer.create_pool(name="web", protocol="HTTP", lb_algorithm="ROUND_ROBIN",
                                          listener_id=listener.id)
    active(conn, lb)
    assert conn.load_balancer.get_listener(listener).default_pool_id == pool.id
    member = conn.load_balancer.create_member(pool, address="10.0.0.30", protocol_port=8080, subnet_id=subnet.id)
    active(conn, lb)
    assert conn.load_balancer.get_member(member, pool).operating_status == "NO_MONITOR"
    monitor = conn.load_balancer.create_health_monitor(pool_id=pool.id, type="HTTP", delay=5, timeout=3,
                                                       max_retries=3, url_path="/health")
    active(conn, lb)
    assert conn.load_balancer.get_health_monitor(monitor).provisioning_status == "ACTIVE"
    assert conn.load_balancer.get_pool(pool).health_monitor_id == monitor.id
    conn.load_balancer.update_member(member, pool, weight=5)
    with pytest.raises(exceptions.ConflictException, match="immutable"):
        conn.load_balancer.update_pool(pool, name="busy")
    active(conn, lb)
    with pytest.raises(exceptions.BadRequestException, match="children"):
        conn.load_balancer.delete_load_balancer(lb)
    conn.load_balancer.delete_health_monitor(monitor)
    active(conn, lb)
    conn.load_balancer.delete_member(member, pool)
    active(conn, lb)
    conn.load_balancer.delete_load_balancer(lb, cascade=True)
    assert conn.load_balancer.get_load_balancer(lb).provisioning_status == "PENDING_DELETE"
    conn.load_balancer.wait_for_delete(lb, interval=0.05, wait=5)


def test_bad_listener_protocol(no_leaks, conn):
    lb = active(conn, conn.load_balancer.create_load_balancer(
        vip_network_id=conn.network.find_network("private").id))
    with pytest.raises(exceptions.BadRequestException):
        conn.load_balancer.create_listener(protocol="GOPHER", protocol_port=70, load_balancer_id=lb.id)
    conn.load_balancer.delete_load_balancer(lb)
    conn.load_balancer.wait_for_delete(lb, interval=0.05, wait=5)


def test_list_filters_by_parent(no_leaks, conn):
    net = conn.network.find_network("private")
    lbs = [active(conn, conn.load_balancer.create_load_balancer(name=f"f{i}", vip_network_id=net.id))
           for i in range(2)]
    pools = []
    for lb in lbs:
        pools.append(conn.load_balancer.create_pool(protocol="TCP", lb_algorithm="ROUND_ROBIN",
                                                    loadbalancer_id=lb.id))
        active(conn, lb)
    assert [p.id for p in conn.load_balancer.pools(loadbalancer_id=lbs[0].id)] == [pools[0].id]
    for lb in lbs:
        conn.load_balancer.delete_load_balancer(lb, cascade=True)
    for lb in lbs:
        conn.load_balancer.wait_for_delete(lb, interval=0.05, wait=5)


def test_l7_policies_are_listed_by_openstacksdk(no_leaks, conn):
    """``GET /v2/lbaas/l7policies`` answers ``{"l7policies": [...]}`` as Octavia does (what
    openstacksdk's ``l7_policies()`` and Heat's ``octavia.l7policy`` constraint read)."""
    net = conn.network.find_network("private")
    lb = active(conn, conn.load_balancer.create_load_balancer(name="l7", vip_network_id=net.id))
    listener = conn.load_balancer.create_listener(protocol="HTTP", protocol_port=80,
                                                  load_balancer_id=lb.id)
    active(conn, lb)
    policy = conn.load_balancer.create_l7_policy(listener_id=listener.id, name="redir",
                                                 action="REDIRECT_TO_URL",
                                                 redirect_url="http://example.org")
    active(conn, lb)
    assert [p.id for p in conn.load_balancer.l7_policies()] == [policy.id]
    assert conn.load_balancer.find_l7_policy("redir").id == policy.id
    conn.load_balancer.delete_load_balancer(lb, cascade=True)
    conn.load_balancer.wait_for_delete(lb, interval=0.05, wait=5)
