"""Octavia types against the sandbox: the immutable-while-pending 409 is absorbed by polling."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_load_balancer_stack_of_objects(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.30.0.0/24"})
    lb = driver.create("OS::Octavia::LoadBalancer", "lb", {"vip_subnet": sub.resource_id})
    assert lb.resolve_attribute("vip_subnet_id") == sub.resource_id
    assert lb.resolve_attribute("vip_address").startswith("10.30.0.")
    assert lb.resolve_attribute("vip_port_id")
    listener = driver.create("OS::Octavia::Listener", "lst", {
        "loadbalancer": lb.resource_id, "protocol": "HTTP", "protocol_port": 80})
    assert listener.resolve_attribute("loadbalancers") == [lb.resource_id]
    # the load balancer is PENDING_UPDATE right after the listener: the pool waits its turn
    pool = driver.create("OS::Octavia::Pool", "pool", {
        "listener": listener.resource_id, "lb_algorithm": "ROUND_ROBIN", "protocol": "HTTP",
        "session_persistence": {"type": "SOURCE_IP"}})
    assert pool.resolve_attribute("listeners") == [listener.resource_id]
    member = driver.create("OS::Octavia::PoolMember", "mem", {
        "pool": pool.resource_id, "address": "10.30.0.10", "protocol_port": 8080,
        "subnet": sub.resource_id})
    monitor = driver.create("OS::Octavia::HealthMonitor", "hm", {
        "pool": pool.resource_id, "type": "HTTP", "delay": 5, "timeout": 3, "max_retries": 2,
        "url_path": "/health"})
    pool = driver.again(pool)
    assert pool.resolve_attribute("members") == [member.resource_id]
    assert pool.resolve_attribute("healthmonitor_id") == monitor.resource_id
    assert driver.again(lb).resolve_attribute("pools") == [pool.resource_id]
    for res in (monitor, member, pool, listener, lb, sub, net):
        driver.delete(res)
    driver.delete(member)   # already gone (pool gone too)
