"""stack updates through the whole engine on the sandbox where resources depend on each
other — a server with its own port and an attached volume resized and rebuilt in place (Heat's
``flavor_update_policy: RESIZE`` and ``image_update_policy: REBUILD`` defaults) and replaced
(``image_update_policy: REPLACE``); a Neutron Net replaced under its Subnet and Port, which are
replaced too and deleted before the old net; a stack deleted after a failed replacement.
"""
from __future__ import annotations

import copy
from typing import Any

from tests.resource_types_cloud.update_support import (
    create,
    delete_and_check_empty,
    events,
    outputs,
    pid,
    rows,
    settle,
    store,
    template,
    update,
)

SERVER_STACK = {
    "net": {"type": "OS::Neutron::Net"},
    "subnet": {"type": "OS::Neutron::Subnet",
               "properties": {"network": {"get_resource": "net"}, "cidr": "10.80.0.0/24"}},
    "port": {"type": "OS::Neutron::Port", "properties": {
        "network": {"get_resource": "net"}, "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
    "server": {"type": "OS::Nova::Server", "properties": {
        "image": "cirros", "flavor": "m1.tiny", "networks": [{"port": {"get_resource": "port"}}]}},
    "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
    "attachment": {"type": "OS::Cinder::VolumeAttachment", "properties": {
        "instance_uuid": {"get_resource": "server"}, "volume_id": {"get_resource": "volume"}}},
}
SERVER_OUTPUTS = {"ip": {"get_attr": ["server", "networks"]},
                  "device": {"get_attr": ["volume", "attachments_list", 0, "device"]}}


def _server_with(**props: Any) -> dict[str, Any]:
    res = copy.deepcopy(SERVER_STACK)
    res["server"]["properties"].update(props)
    return template(res, SERVER_OUTPUTS)


def _changed(st: Any, since: int) -> set[str]:
    """Resources with events after event index ``since``."""
    return {e.resource_name for e in events(st)[since:] if e.resource_name != st.name}


def test_server_resized_and_rebuilt_in_place(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    before = sandbox.created()
    cloud = store(sandbox)
    st = create("upd-server", _server_with())
    server, volume = pid(st, "server"), pid(st, "volume")
    assert cloud.get("servers", server)["_flavor"]["name"] == "m1.tiny"
    # outputs read the volume as it is at the end (attached after the volume completed)
    assert outputs(st)["device"] == "/dev/vdb"
    try:
        # flavor: update_allowed, flavor_update_policy RESIZE (default) → resized in place
        mark = len(events(st))
        st = update(st, _server_with(flavor="m1.small"))
        assert pid(st, "server") == server
        shown = cloud.get("servers", server)
        assert (shown["_flavor"]["name"], shown["status"]) == ("m1.small", "ACTIVE")
        assert _changed(st, mark) == {"server"}, "the port and the attachment stay as they are"
        assert [a["server_id"] for a in cloud.get("volumes", volume)["attachments"]] == [server]
        # image: update_allowed, image_update_policy REBUILD (default) → rebuilt in place
        debian = sandbox.admin("GET", "ids")["ids"]["image:debian-12"]
        mark = len(events(st))
        st = update(st, _server_with(flavor="m1.small", image="debian-12"))
        assert pid(st, "server") == server and _changed(st, mark) == {"server"}
        shown = cloud.get("servers", server)
        assert (shown["_image_id"], shown["status"]) == (debian, "ACTIVE")
        assert [a["server_id"] for a in cloud.get("volumes", volume)["attachments"]] == [server]
        assert outputs(st)["device"] == "/dev/vdb"
    finally:
        delete_and_check_empty(st, sandbox, before)


def test_server_replaced_on_its_port_and_attachment_moved(db: Any, cloud_settings: Any,
                                                          sandbox: Any) -> None:
    """``image_update_policy: REPLACE``: a new server on the same (template's) port — Heat's
    ``Server.prepare_for_replace`` detaches the old server's ports first — and the attachment
    follows it in place (``instance_uuid`` is update_allowed); the old server is deleted."""
    before = sandbox.created()
    cloud = store(sandbox)
    st = create("upd-server-replace", _server_with())
    server, port, volume = pid(st, "server"), pid(st, "port"), pid(st, "volume")
    try:
        st = update(st, _server_with(image="debian-12", image_update_policy="REPLACE"))
        new = pid(st, "server")
        assert new != server and pid(st, "port") == port
        settle(lambda: cloud.get("servers", server) is None, what="old server deleted")
        assert cloud.get("ports", port)["device_id"] == new
        assert [a["server_id"] for a in cloud.get("volumes", volume)["attachments"]] == [new]
        assert rows(st)["attachment"].action == "UPDATE"
        address = cloud.get("ports", port)["fixed_ips"][0]["ip_address"]
        assert [address] in outputs(st)["ip"].values(), "the new server's networks attribute"
    finally:
        delete_and_check_empty(st, sandbox, before)


NET_STACK = {
    "net": {"type": "OS::Neutron::Net", "properties": {"name": "upd-dep"}},
    "subnet": {"type": "OS::Neutron::Subnet",
               "properties": {"network": {"get_resource": "net"}, "cidr": "10.81.0.0/24"}},
    "port": {"type": "OS::Neutron::Port", "properties": {
        "network": {"get_resource": "net"}, "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
}


def test_net_replaced_under_its_subnet_and_port(db: Any, cloud_settings: Any,
                                                sandbox: Any) -> None:
    before = sandbox.created()
    cloud = store(sandbox)
    outs = {"ip": {"get_attr": ["port", "fixed_ips", 0, "ip_address"]}}
    st = create("upd-dependents", template(NET_STACK, outs))
    old = {name: pid(st, name) for name in NET_STACK}
    try:
        res = copy.deepcopy(NET_STACK)
        res["net"]["properties"]["availability_zone_hints"] = ["nova"]   # not update_allowed
        mark = len(events(st))
        st = update(st, template(res, outs))
        new = {name: pid(st, name) for name in NET_STACK}
        assert all(new[n] != old[n] for n in NET_STACK), (old, new)
        for name, collection in (("net", "networks"), ("subnet", "subnets"), ("port", "ports")):
            assert cloud.get(collection, old[name]) is None, f"old {name} left"
            assert cloud.get(collection, new[name]) is not None
        assert cloud.get("subnets", new["subnet"])["network_id"] == new["net"]
        assert cloud.get("ports", new["port"])["network_id"] == new["net"]
        deleted = [e.resource_name for e in events(st)[mark:]
                   if (e.action, e.status) == ("DELETE", "COMPLETE")]
        assert deleted == ["port", "subnet", "net"], "the old net goes after its dependents"
        assert not [e for e in events(st)[mark:] if e.status == "FAILED"]
    finally:
        delete_and_check_empty(st, sandbox, before)


def test_delete_after_a_failed_replacement_deletes_the_replaced_resource(
        db: Any, cloud_settings: Any, sandbox: Any, faults: Any) -> None:
    """The replacement's create fails (UPDATE_FAILED): the old physical resource, waiting for
    the cleanup node that never ran, still belongs to the stack and a delete removes it."""
    before = sandbox.created()
    cloud = store(sandbox)
    st = create("upd-failed", template({"net": {"type": "OS::Neutron::Net"}}))
    old = pid(st, "net")
    try:
        faults({"match": "network.POST.networks", "status": 403, "times": 1,
                "message": "Policy doesn't allow create_network to be performed."})
        st = update(st, template({"net": {"type": "OS::Neutron::Net", "properties": {
            "availability_zone_hints": ["nova"]}}}), expect="UPDATE_FAILED")
        assert "Policy doesn't allow create_network" in st.status_reason
        assert cloud.get("networks", old) is not None
    finally:
        delete_and_check_empty(st, sandbox, before)


def test_a_failed_update_of_a_healthy_server_is_retried_in_place(db: Any, cloud_settings: Any,
                                                                 sandbox: Any) -> None:
    """Heat's ``Server.needs_replace_failed``: a server whose update failed but which is still
    ACTIVE is updated in place by the next update, not replaced (its data would be lost)."""
    before = sandbox.created()
    cloud = store(sandbox)
    st = create("retry-server", _server_with())
    server = pid(st, "server")
    try:
        sandbox.admin("POST", "faults", json={"match": "compute.POST.servers", "status": 500,
                                              "times": 10})
        st = update(st, _server_with(flavor="m1.small"), expect="UPDATE_FAILED")
        assert rows(st)["server"].status == "FAILED"
        assert cloud.get("servers", server)["status"] == "ACTIVE"
        sandbox.admin("DELETE", "faults")
        st = update(st, _server_with(flavor="m1.small"))
        assert pid(st, "server") == server
        assert cloud.get("servers", server)["_flavor"]["name"] == "m1.small"
        assert (rows(st)["server"].action, rows(st)["server"].status) == ("UPDATE", "COMPLETE")
    finally:
        delete_and_check_empty(st, sandbox, before)
