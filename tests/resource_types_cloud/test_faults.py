"""Every type's create against injected faults: a transient 503 on its create request is
retried (client_retry_limit) and the resource completes; a permanent 400 fails at once with the
cloud's own message and Heat's exception name, and deleting the failed resource (as the engine
does) leaves nothing behind (e.g. a server's port made before Nova refused the server)."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors

pytestmark = pytest.mark.usefixtures("no_leaks")

CASES = [
    ("OS::Neutron::Net", "network.POST.networks", {}),
    ("OS::Neutron::Router", "network.POST.routers", {}),
    ("OS::Neutron::SecurityGroup", "network.POST.security-groups", {}),
    ("OS::Neutron::FloatingIP", "network.POST.floatingips", {"floating_network": "public"}),
    ("OS::Nova::KeyPair", "compute.POST.os-keypairs", {"name": "fault-key"}),
    ("OS::Nova::ServerGroup", "compute.POST.os-server-groups", {}),
    ("OS::Nova::Flavor", "compute.POST.flavors", {"ram": 64, "vcpus": 1}),
    ("OS::Nova::Server", "compute.POST.servers",
     {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}),
    ("OS::Cinder::Volume", "volume.POST.volumes", {"size": 1}),
    ("OS::Cinder::VolumeType", "volume.POST.types", {"name": "fault-type"}),
    ("OS::Glance::WebImage", "image.POST.images",
     {"location": "http://127.0.0.1:1/x", "container_format": "bare", "disk_format": "raw"}),
    ("OS::Octavia::LoadBalancer", "loadbalancer.POST.loadbalancers",
     {"vip_subnet": "private-subnet"}),
    ("OS::Aodh::Alarm", "alarming.POST.alarms", {"meter_name": "cpu", "threshold": 1}),
    ("AWS::EC2::SecurityGroup", "network.POST.security-groups", {"GroupDescription": "x"}),
    ("AWS::EC2::EIP", "network.POST.floatingips", {}),
    ("AWS::EC2::Volume", "volume.POST.volumes", {"Size": 1, "AvailabilityZone": "nova"}),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("type_name, operation, props", CASES, ids=IDS)
def test_transient_503_is_retried(driver: Any, faults: Any, type_name: str, operation: str,
                                  props: dict[str, Any]) -> None:
    faults({"match": operation, "status": 503, "times": 2, "message": "try later"})
    res = driver.create(type_name, "r", props)
    assert res.resource_id
    driver.delete(res)
    driver.delete(res)          # already gone


@pytest.mark.parametrize("type_name, operation, props", CASES, ids=IDS)
def test_permanent_400_fails_with_the_clouds_message(driver: Any, faults: Any, type_name: str,
                                                     operation: str, props: dict[str, Any]) -> None:
    faults({"match": operation, "status": 400, "times": 1,
            "message": f"Invalid input for {operation}"})
    res = driver.make(type_name, "r", props)
    with pytest.raises(errors.CloudError) as info:
        handle = res.handle_create()
        driver._poll(res, handle, "check_create_complete", 15)
    driver.delete(res)          # what the engine does with the failed resource: nothing stays
    assert info.value.status == 400 and not info.value.transient
    assert info.value.heat_type == "BadRequest"
    assert info.value.message == f"Invalid input for {operation}"
