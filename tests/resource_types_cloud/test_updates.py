"""In-place updates (handle_update / check_update_complete) against the sandbox, and Heat's
replace / not-supported answers."""
from __future__ import annotations

from typing import Any

import pytest

from app.resource_types.base import NotSupported, UpdateReplace

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_neutron_updates(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {"name": "a"})
    net = driver.update(net, {"name": "b", "admin_state_up": False, "tags": ["x"]})
    shown = net.resolve_attribute("show")
    assert (shown["name"], shown["admin_state_up"], shown["tags"]) == ("b", False, ["x"])
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.60.0.0/24"})
    sub = driver.update(sub, {"network": net.resource_id, "cidr": "10.60.0.0/24",
                              "dns_nameservers": ["1.1.1.1"], "enable_dhcp": False})
    assert sub.resolve_attribute("dns_nameservers") == ["1.1.1.1"]
    assert sub.resolve_attribute("enable_dhcp") is False
    with pytest.raises(UpdateReplace):
        driver.update(sub, {"network": net.resource_id, "cidr": "10.61.0.0/24"})
    sg = driver.create("OS::Neutron::SecurityGroup", "sg", {"rules": [{"protocol": "tcp"}]})
    sg = driver.update(sg, {"rules": [{"protocol": "udp", "port_range_min": 53,
                                       "port_range_max": 53}]})
    rules = sg.resolve_attribute("show")["security_group_rules"]
    assert [r["protocol"] for r in rules if r["direction"] == "ingress"] == ["udp"]
    assert {r["ethertype"] for r in rules if r["direction"] == "egress"} == {"IPv4", "IPv6"}
    for res in (sg, sub, net):
        driver.delete(res)


def test_server_updates(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    props = {"image": "cirros", "flavor": "m1.tiny", "metadata": {"a": "1", "b": "2"},
             "networks": [{"network": net.resource_id}]}
    srv = driver.create("OS::Nova::Server", "srv", props)
    srv = driver.update(srv, {**props, "name": "renamed", "metadata": {"a": "9"},
                              "flavor": "m1.small", "image": "debian-12"})
    shown = srv.resolve_attribute("show")
    assert shown["name"] == "renamed" and shown["metadata"] == {"a": "9"}
    assert shown["status"] == "ACTIVE"
    assert shown["flavor"]["original_name"] == "m1.small"
    with pytest.raises(UpdateReplace):       # user_data_update_policy REPLACE (default)
        driver.update(srv, {**props, "user_data": "new"})
    with pytest.raises(UpdateReplace):
        driver.update(srv, {**props, "flavor": "m1.medium", "flavor_update_policy": "REPLACE"})
    # networks: the first entry stays (same port), the second is new: attached
    first_port = srv.data["nic_ports"]["0"]
    srv = driver.update(srv, {**props, "networks": [{"network": net.resource_id},
                                                    {"network": "private"}]})
    assert srv.data["nic_ports"]["0"] == first_port and len(srv.data["internal_ports"]) == 2
    assert set(srv.resolve_attribute("networks")) >= {"private", net.resolve_attribute("name")}
    # ... and now only "private" is left: the first interface is detached, its port deleted
    srv = driver.update(srv, {**props, "networks": [{"network": "private"}]})
    assert list(srv.data["nic_ports"].values()) != [first_port]
    assert [p["id"] for p in srv.data["internal_ports"]] == [srv.data["nic_ports"]["0"]]
    assert srv.cloud().network.find_port(first_port, ignore_missing=True) is None
    with pytest.raises(NotSupported):
        driver.update(srv, {**props, "networks": [{"allocate_network": "auto"}]})
    driver.delete(srv)
    driver.delete(net)


def test_volume_updates(driver: Any) -> None:
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1, "metadata": {"a": "1"}})
    vol = driver.update(vol, {"size": 2, "name": "data", "metadata": {"b": "2"}})
    assert vol.resolve_attribute("size") == "2"      # Heat's str(getattr(volume, name))
    assert vol.resolve_attribute("display_name") == "data"
    assert vol.resolve_attribute("metadata_values") == {"b": "2"}
    with pytest.raises(NotSupported):
        driver.update(vol, {"size": 1, "name": "data", "metadata": {"b": "2"}})
    driver.delete(vol)


def test_octavia_and_aodh_updates(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.62.0.0/24"})
    lb = driver.create("OS::Octavia::LoadBalancer", "lb", {"vip_subnet": sub.resource_id})
    lst = driver.create("OS::Octavia::Listener", "lst", {
        "loadbalancer": lb.resource_id, "protocol": "HTTP", "protocol_port": 80})
    lst = driver.update(lst, {"loadbalancer": lb.resource_id, "protocol": "HTTP",
                              "protocol_port": 80, "connection_limit": 100, "name": "web"})
    assert lst.resolve_attribute("show")["connection_limit"] == 100
    alarm = driver.create("OS::Aodh::Alarm", "alarm", {"meter_name": "cpu", "threshold": 5})
    alarm = driver.update(alarm, {"meter_name": "cpu", "threshold": 7, "severity": "critical"})
    shown = alarm.resolve_attribute("show")
    assert shown["threshold_rule"]["threshold"] == 7 and shown["severity"] == "critical"
    for res in (alarm, lst, lb, sub, net):
        driver.delete(res)


def test_type_image_and_flavor_updates(driver: Any) -> None:
    vt = driver.create("OS::Cinder::VolumeType", "vt", {"name": "silver", "metadata": {"a": "1"}})
    vt = driver.update(vt, {"name": "bronze", "metadata": {"b": "2"}})
    shown = vt.resolve_attribute("show")
    assert shown["name"] == "bronze" and shown["extra_specs"] == {"b": "2"}
    enc = driver.create("OS::Cinder::EncryptedVolumeType", "enc", {
        "volume_type": vt.resource_id, "provider": "luks", "key_size": 256})
    enc = driver.update(enc, {"volume_type": vt.resource_id, "provider": "luks", "key_size": 512})
    assert enc.resolve_attribute("show")["key_size"] == 512
    image = driver.create("OS::Glance::WebImage", "img", {
        "location": "http://127.0.0.1:1/i.img", "container_format": "bare",
        "disk_format": "qcow2", "tags": ["a"]})
    props = {"location": "http://127.0.0.1:1/i.img", "container_format": "bare",
             "disk_format": "qcow2", "tags": ["b"], "os_distro": "cirros", "min_ram": 0}
    image = driver.update(image, props)
    shown = image.resolve_attribute("show")
    assert shown["tags"] == ["b"] and shown["os_distro"] == "cirros"
    flavor = driver.create("OS::Nova::Flavor", "flv", {"ram": 64, "vcpus": 1,
                                                       "extra_specs": {"a": "1"}})
    flavor = driver.update(flavor, {"ram": 64, "vcpus": 1, "extra_specs": {"b": "2"}})
    assert flavor.resolve_attribute("extra_specs") == {"b": "2"}
    for res in (flavor, image, enc, vt):
        driver.delete(res)


def test_attachment_moves_and_immutable_types_replace(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    srv = driver.create("OS::Nova::Server", "srv", {"image": "cirros", "flavor": "m1.tiny",
                                                    "networks": [{"network": net.resource_id}]})
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1})
    att = driver.create("OS::Cinder::VolumeAttachment", "att", {
        "instance_uuid": srv.resource_id, "volume_id": vol.resource_id})
    # a VolumeAttachment moves by detaching and attaching again (Heat's way)
    att = driver.update(att, {"instance_uuid": srv.resource_id, "volume_id": vol.resource_id,
                              "mountpoint": "/dev/vdc"})
    assert driver.again(vol).resolve_attribute("attachments_list")[0]["device"] == "/dev/vdc"
    for res in (att, vol, srv, net):
        driver.delete(res)
    kp = driver.again(driver.create("OS::Nova::KeyPair", "k", {"name": "kk"}))
    with pytest.raises(UpdateReplace):
        driver.update(kp, {"name": "other"})
    driver.delete(kp)


def test_a_confirmed_resize_whose_progress_was_lost_completes(driver: Any) -> None:
    """The step that confirmed a resize never stored ``confirmed`` (its task was retried): the
    server is ACTIVE on the new flavor and Nova will not show VERIFY_RESIZE again, so the
    stored handle (resize started, not confirmed) must still finish."""
    import time

    net = driver.create("OS::Neutron::Net", "net", {})
    props = {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": net.resource_id}]}
    srv = driver.create("OS::Nova::Server", "srv", props)
    new = {**props, "flavor": "m1.small"}
    res = driver.again(srv)
    new_props = driver.make(res.type_name, res.name, new).properties
    handle = res.handle_update(new_props, res.update_diff(new_props))
    assert not res.check_update_complete(handle)          # the resize starts
    lost = {"todo": [dict(step) for step in handle["todo"]]}   # progress as stored now
    deadline = time.monotonic() + 15
    while not driver.again(res).check_update_complete(handle):  # VERIFY_RESIZE, confirmed...
        assert time.monotonic() < deadline
        time.sleep(0.1)
    fresh = driver.make(res.type_name, res.name, new, resource_id=res.resource_id, data=res.data)
    assert fresh.check_update_complete(lost)              # ... the lost handle finishes too
    driver.delete(srv)
    driver.delete(net)


def _resize_started(driver: Any, net: Any) -> tuple[Any, Any, dict[str, Any]]:
    """A server on m1.tiny and, for the plugin that updates it to m1.small, the handle."""
    props = {"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": net.resource_id}]}
    srv = driver.create("OS::Nova::Server", "srv", props)
    res = driver.again(srv)
    new_props = driver.make(res.type_name, res.name, {**props, "flavor": "m1.small"}).properties
    return srv, res, res.handle_update(new_props, res.update_diff(new_props))


def _until_updated(driver: Any, res: Any, handle: Any) -> None:
    import time
    deadline = time.monotonic() + 15
    while not driver.again(res).check_update_complete(handle):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_the_first_look_sends_the_resize_without_reading_the_server(driver: Any,
                                                                      sandbox: Any) -> None:
    """The server was ACTIVE when its last action ended, so the resize goes out at once (as
    Heat's nova plugin sends it); the server is read only by the looks after it."""
    net = driver.create("OS::Neutron::Net", "net", {})
    srv, res, handle = _resize_started(driver, net)
    sandbox.admin("DELETE", "requests")
    assert not res.check_update_complete(handle)
    counts = sandbox.admin("GET", "requests")["requests"]
    assert counts.get("compute.POST.servers") == 1 and not counts.get("compute.GET.servers")
    _until_updated(driver, res, handle)
    assert driver.again(srv).resolve_attribute("show")["flavor"]["original_name"] == "m1.small"
    driver.delete(srv)
    driver.delete(net)


def test_a_resize_nova_refuses_as_busy_is_sent_again_once_the_server_is_active(
        driver: Any, faults: Any, sandbox: Any) -> None:
    """A 409 (a task in progress on the server) is not a failure: the look reads the server
    and sends the resize again when it is ACTIVE (here at once: the refusal was injected)."""
    net = driver.create("OS::Neutron::Net", "net", {})
    srv, res, handle = _resize_started(driver, net)
    faults({"match": "compute.POST.servers", "rate": 1.0, "times": 1, "kind": "error",
            "status": 409, "message": "Cannot 'resize' instance while it is in task_state"})
    sandbox.admin("DELETE", "requests")
    assert not res.check_update_complete(handle)
    counts = sandbox.admin("GET", "requests")["requests"]
    assert counts.get("compute.POST.servers") == 2 and counts.get("compute.GET.servers") == 1
    assert handle["todo"][0].get("started")
    _until_updated(driver, res, handle)
    assert driver.again(srv).resolve_attribute("show")["flavor"]["original_name"] == "m1.small"
    driver.delete(srv)
    driver.delete(net)


def test_a_resize_whose_start_was_never_stored_is_confirmed(driver: Any) -> None:
    """The look that sent the resize died before its handle was stored: the step runs again
    with a fresh handle, Nova refuses a second resize (the server is in VERIFY_RESIZE on the
    new flavor), and that resize is taken as this step's and confirmed."""
    import time

    net = driver.create("OS::Neutron::Net", "net", {})
    srv, res, handle = _resize_started(driver, net)
    lost = {"todo": [dict(step) for step in handle["todo"]]}
    assert not res.check_update_complete(handle)          # sent; its progress is lost
    deadline = time.monotonic() + 15
    while driver.again(res).resolve_attribute("show")["status"] != "VERIFY_RESIZE":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    _until_updated(driver, res, lost)
    shown = driver.again(srv).resolve_attribute("show")
    assert (shown["status"], shown["flavor"]["original_name"]) == ("ACTIVE", "m1.small")
    driver.delete(srv)
    driver.delete(net)


def _settle(driver: Any, srv: Any, status: str) -> None:
    import time
    deadline = time.monotonic() + 15
    while driver.again(srv).resolve_attribute("show")["status"] != status:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_stopped_server_is_resized_and_stays_stopped(driver: Any) -> None:
    """Nova resizes a SHUTOFF server and keeps it SHUTOFF once confirmed: the update ends
    there (Heat's own check waits for ACTIVE and fails it: "Confirm resize ... failed")."""
    net = driver.create("OS::Neutron::Net", "net", {})
    srv, res, handle = _resize_started(driver, net)
    res.cloud().compute.stop_server(srv.resource_id)
    _settle(driver, srv, "SHUTOFF")
    _until_updated(driver, res, handle)
    shown = driver.again(srv).resolve_attribute("show")
    assert (shown["status"], shown["flavor"]["original_name"]) == ("SHUTOFF", "m1.small")
    driver.delete(srv)
    driver.delete(net)


def test_a_resize_of_a_suspended_server_fails_with_novas_refusal(driver: Any) -> None:
    """A server resting in a state Nova will not resize from fails the update at once with
    Nova's 409, as Heat's does, instead of waiting for ACTIVE until the stack's timeout."""
    from app import errors

    net = driver.create("OS::Neutron::Net", "net", {})
    srv, res, handle = _resize_started(driver, net)
    res.cloud().compute.suspend_server(srv.resource_id)
    _settle(driver, srv, "SUSPENDED")
    with pytest.raises(errors.CloudError, match="vm_state suspended") as got:
        res.check_update_complete(handle)
    assert got.value.status == 409
    res.cloud().compute.resume_server(srv.resource_id)
    _settle(driver, srv, "ACTIVE")
    driver.delete(srv)
    driver.delete(net)


def test_subnet_pools_and_gateway_cleared_and_port_replaced_on_its_ip(driver: Any) -> None:
    """Heat's Subnet update sends a removed ``allocation_pools`` as ``[]`` and a removed or null
    ``gateway_ip`` as ``None`` (Neutron clears both); a port replaced for a new ``mac_address``
    first releases its fixed IPs (Heat's ``prepare_for_replace``) so that the replacement gets
    the same address."""
    net = driver.create("OS::Neutron::Net", "net", {})
    props = {"network": net.resource_id, "cidr": "11.11.11.0/24", "gateway_ip": "11.11.11.5",
             "allocation_pools": [{"start": "11.11.11.10", "end": "11.11.11.250"}]}
    sub = driver.create("OS::Neutron::Subnet", "sub", props)
    sub = driver.update(sub, {**props, "allocation_pools": []})
    assert sub.resolve_attribute("allocation_pools") == []
    sub = driver.update(sub, {"network": net.resource_id, "cidr": "11.11.11.0/24",
                              "allocation_pools": [{"start": "11.11.11.10", "end": "11.11.11.20"}]})
    assert sub.resolve_attribute("gateway_ip") is None
    port_props = {"network": net.resource_id, "mac_address": "00-00-00-00-BB-BB",
                  "fixed_ips": [{"subnet": sub.resource_id, "ip_address": "11.11.11.11"}]}
    port = driver.create("OS::Neutron::Port", "port", port_props)
    with pytest.raises(UpdateReplace):       # mac_address is not update_allowed in Heat
        driver.update(port, {**port_props, "mac_address": "00-00-00-00-AA-AA"})
    assert port.prepare_for_replace() is None
    assert port.data["port_fip"][0]["ip_address"] == "11.11.11.11"
    new = driver.create("OS::Neutron::Port", "port2", {**port_props,
                                                       "mac_address": "00-00-00-00-AA-AA"})
    assert new.resolve_attribute("fixed_ips")[0]["ip_address"] == "11.11.11.11"
    for res in (new, port, sub, net):
        driver.delete(res)
