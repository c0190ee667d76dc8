"""A create never makes its object twice (DESIGN invariant 1, app.clients.intent), against the
sandbox cloud:

* a later attempt of a create whose POST landed but whose id was never stored (the worker died
  in between) adopts that object, named by the user or not;
* a create the cloud carried out and then answered with a 500 is looked for, found and
  adopted, never POSTed again;
* a user's own object of the same name is never taken for ours;
* transient errors of a delete and of a create's polls are polled again, not a failure.
"""
from __future__ import annotations

import time
import uuid as uuidlib
from typing import Any

import pytest

from app import clients, config, errors
from app.clients import intent

pytestmark = pytest.mark.usefixtures("no_leaks")

NET = "private"
#: (type, properties, the POST's sandbox operation, {inventory collection: objects one create makes})
CASES = [
    ("OS::Nova::Server", {"name": "web", "image": "cirros", "flavor": "m1.tiny",
                          "networks": [{"network": NET}]},
     "compute.POST.servers", {"servers": 1, "ports": 1}),
    ("OS::Nova::Server", {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": NET}]},
     "compute.POST.servers", {"servers": 1, "ports": 1}),
    ("OS::Neutron::Port", {"name": "db-port", "network": NET}, "network.POST.ports", {"ports": 1}),
    ("OS::Neutron::Port", {"network": NET}, "network.POST.ports", {"ports": 1}),
    ("OS::Neutron::Net", {"name": "backend"}, "network.POST.networks", {"networks": 1}),
    ("OS::Neutron::Router", {"name": "edge"}, "network.POST.routers", {"routers": 1}),
    ("OS::Neutron::SecurityGroup", {"name": "web-sg"}, "network.POST.security-groups",
     {"security_groups": 1}),
    ("OS::Neutron::FloatingIP", {"floating_network": "public"}, "network.POST.floatingips",
     {"floatingips": 1, "ports": 1}),          # (Neutron's own port of the floating IP)
    ("OS::Cinder::Volume", {"name": "data", "size": 1}, "volume.POST.volumes", {"volumes": 1}),
    ("OS::Cinder::Volume", {"size": 1}, "volume.POST.volumes", {"volumes": 1}),
]
IDS = [f"{c[0]}{'-named' if 'name' in c[1] else ''}" for c in CASES]


def _new(sandbox: Any, before: dict[str, set[str]]) -> dict[str, int]:
    """How many objects of each collection the sandbox holds beyond ``before`` (the security
    group rules Neutron adds to a group are left out)."""
    after = sandbox.created()
    return {k: len(v - before.get(k, set())) for k, v in after.items()
            if v - before.get(k, set()) and k != "security_group_rules"}


@pytest.mark.parametrize("type_name, props, operation, made", CASES, ids=IDS)
def test_a_later_attempt_adopts_what_the_first_made(driver: Any, sandbox: Any, type_name: str,
                                                    props: dict[str, Any], operation: str,
                                                    made: dict[str, int]) -> None:
    rid = str(uuidlib.uuid4())
    before = sandbox.created()
    first = driver.make(type_name, "r", props, uuid=rid)
    first.first_attempt = True
    first.handle_create()            # the POST lands; the worker dies before storing the id
    again = driver.make(type_name, "r", props, uuid=rid)   # no id: a later attempt
    handle = again.handle_create()
    assert again.resource_id == first.resource_id
    driver._poll(again, handle, "check_create_complete", 15)
    assert _new(sandbox, before) == made
    driver.delete(again)


@pytest.mark.parametrize("type_name, props, operation, made", CASES, ids=IDS)
def test_a_create_answered_500_after_it_was_made_is_adopted(
        driver: Any, sandbox: Any, faults: Any, type_name: str, props: dict[str, Any],
        operation: str, made: dict[str, int]) -> None:
    before = sandbox.created()
    sandbox.admin("DELETE", "requests")
    faults({"match": operation, "status": 500, "times": 1, "after": True,
            "message": "made it, then fell over"})
    res = driver.create(type_name, "r", props, uuid=str(uuidlib.uuid4()))
    assert res.resource_id
    assert sandbox.admin("GET", "requests")["requests"][operation] == 1   # never sent again
    assert _new(sandbox, before) == made
    driver.delete(res)


def test_the_markers_are_what_the_cloud_keeps(driver: Any) -> None:
    rid = str(uuidlib.uuid4())
    server = driver.create("OS::Nova::Server", "s", CASES[0][1], uuid=rid)
    port = driver.create("OS::Neutron::Port", "p", CASES[2][1], uuid=rid)
    volume = driver.create("OS::Cinder::Volume", "v", {"name": "data", "size": 1}, uuid=rid)
    assert intent.tag(rid) in (server.show_resource() or {})["tags"]
    assert intent.tag(rid) in (port.show_resource() or {})["tags"]
    assert (volume.show_resource() or {})["metadata"] == {intent.METADATA_KEY: rid}
    unnamed = driver.create("OS::Cinder::Volume", "u", {"size": 1}, uuid=rid)
    assert (unnamed.show_resource() or {})["metadata"] == {}   # Heat's physical name is enough
    for res in (server, port, volume, unnamed):
        driver.delete(res)


@pytest.mark.parametrize("type_name, props", [
    ("OS::Cinder::Volume", {"name": "shared-name", "size": 1}),
    ("OS::Neutron::Port", {"name": "shared-name", "network": NET}),
    ("OS::Nova::Server", {"name": "shared-name", "image": "cirros", "flavor": "m1.tiny",
                          "networks": [{"network": NET}]}),
])
def test_a_users_own_object_of_the_same_name_is_not_taken(driver: Any, type_name: str,
                                                          props: dict[str, Any]) -> None:
    theirs = driver.create(type_name, "theirs", props)          # no marker: not a resource's
    ours = driver.make(type_name, "ours", props, uuid=str(uuidlib.uuid4()))
    handle = ours.handle_create()           # a later attempt (first_attempt False): it looks
    assert ours.resource_id and ours.resource_id != theirs.resource_id
    driver._poll(ours, handle, "check_create_complete", 15)
    driver.delete(ours)
    driver.delete(theirs)


def test_a_delete_rides_out_503s_beyond_the_client_retries(driver: Any, sandbox: Any,
                                                           faults: Any) -> None:
    volume = driver.create("OS::Cinder::Volume", "v", {"size": 1})
    faults({"match": "volume.DELETE.volumes", "status": 503, "times": 5,
            "message": "ServiceUnavailable"})
    res = driver.again(volume)
    handle = res.handle_delete()            # 1 + client_retry_limit tries, all refused
    assert handle is not None
    driver._poll(res, handle, "check_delete_complete", 15)
    assert volume.resource_id not in sandbox.created().get("volumes", set())


def test_a_permanent_refusal_of_a_delete_still_fails(driver: Any, faults: Any) -> None:
    volume = driver.create("OS::Cinder::Volume", "v", {"size": 1})
    faults({"match": "volume.DELETE.volumes", "status": 400, "times": 1, "message": "no"})
    with pytest.raises(errors.CloudError) as info:
        driver.delete(volume)
    assert info.value.status == 400
    driver.delete(volume)


def test_a_creates_polls_ride_out_5xx(driver: Any, faults: Any) -> None:
    res = driver.make("OS::Cinder::Volume", "v", {"size": 1})
    handle = res.handle_create()
    faults({"match": "volume.GET.volumes", "status": 502, "times": 6})
    assert res.check_create_complete(handle) is False       # not a failure: looked at again
    driver._poll(res, handle, "check_create_complete", 15)
    driver.delete(res)


def test_a_request_the_cloud_holds_past_cloud_timeout_is_a_transient_error(
        cloud_settings: config.Settings, sandbox: Any) -> None:
    config.set_current(cloud_settings.replace(cloud_timeout=0.5, client_retry_limit=0))
    clients.reset_cache()
    sandbox.admin("PUT", "behaviour", json={"latency": [
        {"match": "network.GET.routers", "seconds": 2.0}]})
    try:
        cloud = clients.for_stack(type("S", (), {"stack_name": "s", "stack_id": "i",
                                                 "project_id": "admin"})()).cloud()
        cloud.network.networks()      # authenticated first: the clock is the request's own
        started = time.monotonic()
        with pytest.raises(errors.CloudError) as info:
            cloud.network.routers()
        assert info.value.transient and "timed out" in info.value.message
        assert time.monotonic() - started < 1.5
    finally:
        sandbox.admin("PUT", "behaviour", json={"latency": []})
        time.sleep(2.0)               # the held request ends before the next test
        clients.reset_cache()


def test_a_security_group_rule_answered_500_after_it_was_made_is_not_made_twice(
        driver: Any, sandbox: Any, faults: Any) -> None:
    faults({"match": "network.POST.security-group-rules", "status": 500, "times": 1,
            "after": True})
    group = driver.create("OS::Neutron::SecurityGroup", "sg", {"rules": [
        {"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}]})
    rules = (group.show_resource() or {})["security_group_rules"]
    assert [r["port_range_min"] for r in rules if r["direction"] == "ingress"] == [22]
    driver.delete(group)
