"""The sandbox's Octavia L7 policies/rules and operator objects, Nova host aggregates and
Cinder QoS specs, through openstacksdk as an admin and as ``demo``: status codes, errors and
Octavia's provisioning states."""
from __future__ import annotations

import pytest
from openstack import exceptions


def active(conn, lb):
    return conn.load_balancer.wait_for_load_balancer(lb.id, interval=0.05, wait=5)


def test_l7_policies_and_rules_follow_the_load_balancer(no_leaks, conn):
    lbs = conn.load_balancer
    subnet = conn.network.find_subnet("private-subnet")
    lb = active(conn, lbs.create_load_balancer(name="t-l7", vip_subnet_id=subnet.id))
    listener = lbs.create_listener(name="l", protocol="HTTP", protocol_port=80, load_balancer_id=lb.id)
    active(conn, lb)
    pool = lbs.create_pool(protocol="HTTP", lb_algorithm="ROUND_ROBIN", loadbalancer_id=lb.id)
    active(conn, lb)
    with pytest.raises(exceptions.BadRequestException, match="redirect_pool_id"):
        lbs.create_l7_policy(listener_id=listener.id, action="REDIRECT_TO_POOL")
    with pytest.raises(exceptions.NotFoundException):
        lbs.create_l7_policy(listener_id="nope", action="REJECT")
    first = lbs.create_l7_policy(listener_id=listener.id, action="REDIRECT_TO_POOL",
                                 redirect_pool_id=pool.id, name="to-pool")
    assert first.provisioning_status == "PENDING_CREATE"
    with pytest.raises(exceptions.ConflictException, match="immutable"):
        lbs.create_l7_policy(listener_id=listener.id, action="REJECT")
    active(conn, lb)
    second = lbs.create_l7_policy(listener_id=listener.id, action="REDIRECT_TO_URL",
                                  redirect_url="http://example.com", position=1)
    active(conn, lb)
    assert lbs.get_l7_policy(second).position == 1 and lbs.get_l7_policy(first).position == 2
    with pytest.raises(exceptions.BadRequestException, match="key"):
        lbs.create_l7_rule(first, type="HEADER", compare_type="EQUAL_TO", value="x")
    rule = lbs.create_l7_rule(first, type="PATH", compare_type="STARTS_WITH", value="/api")
    active(conn, lb)
    assert lbs.get_l7_rule(rule, first).provisioning_status == "ACTIVE"
    assert [r["id"] for r in lbs.get_l7_policy(first).rules] == [rule.id]
    assert {p["id"] for p in lbs.get_listener(listener).l7_policies} == {first.id, second.id}
    lbs.update_l7_rule(rule, first, rule_value="/v2")
    active(conn, lb)
    assert lbs.get_l7_rule(rule, first).rule_value == "/v2"
    lbs.delete_l7_policy(first)      # its rules go with it
    active(conn, lb)
    with pytest.raises(exceptions.NotFoundException):
        lbs.get_l7_rule(rule, first)
    lbs.delete_load_balancer(lb, cascade=True)


def test_flavors_and_availability_zones_are_admin_objects(no_leaks, conn, demo_conn):
    lbs = conn.load_balancer
    with pytest.raises(exceptions.ForbiddenException, match="Policy does not allow"):
        demo_conn.load_balancer.create_flavor_profile(name="p", provider_name="amphora",
                                                      flavor_data="{}")
    with pytest.raises(exceptions.BadRequestException, match="not enabled"):
        lbs.create_flavor_profile(name="p", provider_name="nope", flavor_data="{}")
    with pytest.raises(exceptions.BadRequestException, match="flavor_data"):
        lbs.create_flavor_profile(name="p", provider_name="amphora", flavor_data="not json")
    profile = lbs.create_flavor_profile(name="t-fp", provider_name="amphora",
                                        flavor_data='{"loadbalancer_topology": "SINGLE"}')
    flavor = lbs.create_flavor(name="t-flavor", flavor_profile_id=profile.id)
    assert flavor.is_enabled is True
    with pytest.raises(exceptions.ConflictException):
        lbs.create_flavor(name="t-flavor", flavor_profile_id=profile.id)
    assert demo_conn.load_balancer.find_flavor("t-flavor").id == flavor.id
    with pytest.raises(exceptions.ConflictException, match="in use"):
        lbs.delete_flavor_profile(profile)
    azp = lbs.create_availability_zone_profile(name="t-azp", provider_name="amphora",
                                               availability_zone_data='{"compute_zone": "nova"}')
    az = lbs.create_availability_zone(name="t-az", availability_zone_profile_id=azp.id)
    assert lbs.get_availability_zone("t-az").availability_zone_profile_id == azp.id
    lbs.update_availability_zone("t-az", is_enabled=False)
    subnet = conn.network.find_subnet("private-subnet")
    with pytest.raises(exceptions.BadRequestException):
        lbs.create_load_balancer(vip_subnet_id=subnet.id, availability_zone="t-az")
    for delete, obj in ((lbs.delete_flavor, flavor), (lbs.delete_flavor_profile, profile),
                        (lbs.delete_availability_zone, az.name),
                        (lbs.delete_availability_zone_profile, azp)):
        delete(obj)
    with pytest.raises(exceptions.NotFoundException):
        lbs.get_flavor(flavor.id)


def test_octavia_quota_reset(conn):
    project = conn.identity.find_project("demo").id
    conn.load_balancer.update_quota(project, load_balancers=3, members=7)
    assert conn.load_balancer.get_quota(project).load_balancers == 3
    conn.load_balancer.delete_quota(project)
    assert conn.load_balancer.get_quota(project).load_balancers == -1


def test_host_aggregates(no_leaks, conn, demo_conn):
    compute = conn.compute
    with pytest.raises(exceptions.ForbiddenException):
        demo_conn.compute.create_aggregate(name="x")
    agg = compute.create_aggregate(name="t-agg", availability_zone="fast")
    assert agg.availability_zone == "fast" and agg.hosts == []
    with pytest.raises(exceptions.ConflictException, match="already exists"):
        compute.create_aggregate(name="t-agg")
    compute.add_host_to_aggregate(agg, "sandbox-1")
    compute.add_host_to_aggregate(agg, "sandbox-2")
    with pytest.raises(exceptions.ConflictException):
        compute.add_host_to_aggregate(agg, "sandbox-1")
    with pytest.raises(exceptions.NotFoundException, match="Compute host"):
        compute.add_host_to_aggregate(agg, "nohost")
    compute.set_aggregate_metadata(agg, {"ssd": "true", "k": "v"})
    compute.set_aggregate_metadata(agg, {"k": None})
    got = compute.get_aggregate(agg)
    assert got.metadata == {"availability_zone": "fast", "ssd": "true"}
    assert sorted(got.hosts) == ["sandbox-1", "sandbox-2"]
    with pytest.raises(exceptions.BadRequestException, match="not empty"):
        compute.delete_aggregate(agg)
    compute.remove_host_from_aggregate(agg, "sandbox-1")
    compute.remove_host_from_aggregate(agg, "sandbox-2")
    compute.delete_aggregate(agg)
    with pytest.raises(exceptions.NotFoundException):
        compute.get_aggregate(agg.id)


def test_qos_specs_and_associations(no_leaks, conn, demo_conn):
    bs = conn.block_storage
    with pytest.raises(exceptions.ForbiddenException):
        demo_conn.block_storage.create_qos_spec(name="x")
    spec = bs.create_qos_spec(name="t-qos", consumer="front-end", read_iops_sec="100")
    assert bs.get_qos_spec(spec).specs == {"read_iops_sec": "100"}
    with pytest.raises(exceptions.ConflictException):
        bs.create_qos_spec(name="t-qos")
    bs.update_qos_spec(spec, write_iops_sec="50")
    bs.delete_qos_spec_metadata(spec, ["read_iops_sec"])
    assert bs.get_qos_spec(spec).specs == {"write_iops_sec": "50"}
    vtype = bs.create_type(name="t-qos-type")
    bs.associate_qos_spec(spec, vtype.id)
    assert [a.id for a in bs.qos_spec_associations(spec)] == [vtype.id]
    with pytest.raises(exceptions.BadRequestException, match="still associated"):
        bs.delete_qos_spec(spec)
    bs.disassociate_qos_spec(spec, vtype.id)
    assert list(bs.qos_spec_associations(spec)) == []
    with pytest.raises(exceptions.NotFoundException):
        bs.associate_qos_spec(spec, "no-such-type")
    bs.delete_qos_spec(spec)
    bs.delete_type(vtype)
    with pytest.raises(exceptions.NotFoundException, match="could not be found"):
        bs.get_qos_spec(spec.id)
