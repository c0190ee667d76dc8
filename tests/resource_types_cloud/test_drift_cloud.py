"""Drift detection against the sandbox cloud, through the service and the API: an untouched
stack of a server, a port, a volume, security groups and a group of nested members is IN_SYNC;
changes made directly in the cloud (a rule added to a security group, a server renamed, a port
deleted, a volume resized, a group member renamed) are each reported with their status and
property difference; a type whose live state cannot be read is NOT_CHECKED with the reason."""
from __future__ import annotations

from typing import Any

from app import clients
from app.context import RequestContext
from app.services import drift, stacks
from tests.fixtures.stacks import wait_for

CTX = RequestContext(tenant_id="admin")

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: driftnet}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.61.0.0/24}
  secgroup:
    type: OS::Neutron::SecurityGroup
    properties:
      name: web-sg
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 10.0.0.1/8}
        - {protocol: icmp}
  port:
    type: OS::Neutron::Port
    properties:
      name: spare
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
  server:
    type: OS::Nova::Server
    properties:
      name: web
      image: cirros
      flavor: m1.tiny
      networks: [{network: {get_resource: net}}]
      metadata: {role: web}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1, name: data}
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {name: front, vip_subnet: {get_resource: subnet}}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Neutron::SecurityGroup
        properties: {name: member-%index%, description: a member}
  token:
    type: OS::Heat::RandomString
"""


def _by_path(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["path"]: r for r in body["resources"]}


def _physical(body: dict[str, Any], path: str) -> str:
    return str(_by_path(body)[path]["physical_resource_id"])


def test_drift_of_an_untouched_stack_then_of_out_of_band_changes(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    st = stacks.create_stack(CTX, stack_name="drifty", template=TEMPLATE)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    try:
        first = drift.start(CTX, st)
        assert first["status"] == "DETECTION_COMPLETE", first["status_reason"]
        found = _by_path(first)
        assert first["stack_drift_status"] == "IN_SYNC", [
            (p, r["drift_status"], r["property_differences"]) for p, r in found.items()
            if r["drift_status"] not in ("IN_SYNC", "NOT_CHECKED")]
        for path in ("secgroup", "port", "server", "volume", "net", "subnet", "lb", "group/0",
                     "group/1"):
            assert found[path]["drift_status"] == "IN_SYNC", (path, found[path])
        server = found["server"]   # AWS: ActualProperties in ExpectedProperties' form
        assert server["actual_properties"] == server["expected_properties"]
        assert (server["actual_properties"]["flavor"], server["actual_properties"]["image"]) \
            == ("m1.tiny", "cirros")
        assert len(server["actual_properties"]["networks"]) == 1
        assert found["token"]["drift_status"] == "NOT_CHECKED"
        assert found["token"]["reason"] == ("The live state of OS::Heat::RandomString "
                                            "resources cannot be read.")
        assert found["group"]["drift_status"] == "NOT_CHECKED" and found["group"]["reason"]
        assert first["counts"]["IN_SYNC"] >= 7 and first["detection_time"]

        change_out_of_band(clients.for_stack(_Ident(st)).connection(), first)

        second = drift.start(CTX, st)
        assert second["id"] != first["id"] and second["stack_drift_status"] == "DRIFTED"
        found = _by_path(second)
        status = {p: r["drift_status"] for p, r in found.items()}
        assert status["port"] == "DELETED"
        assert status["net"] == status["group/0"] == status["lb"] == "IN_SYNC"
        assert _diffs(found["secgroup"]) == [("/rules/2", None, {
            "direction": "ingress", "ethertype": "IPv4", "protocol": "udp",
            "port_range_min": 53, "port_range_max": 53,
            "remote_ip_prefix": "192.0.2.0/24"}, "ADD")]
        assert _diffs(found["server"]) == [("/name", "web", "web-renamed", "NOT_EQUAL")]
        assert _diffs(found["volume"]) == [("/size", 1, 2, "NOT_EQUAL")]
        assert _diffs(found["group/1"]) == [("/name", "member-1", "changed", "NOT_EQUAL")]
        assert second["counts"] == {"IN_SYNC": sum(s == "IN_SYNC" for s in status.values()),
                                    "MODIFIED": 4, "DELETED": 1,
                                    "NOT_CHECKED": sum(s == "NOT_CHECKED"
                                                       for s in status.values())}
        assert drift.get(CTX, st)["id"] == second["id"]
        assert drift.get(CTX, st, first["id"])["stack_drift_status"] == "IN_SYNC"
    finally:
        stacks.delete_stack(CTX, st.name, st.id)


def test_drift_through_the_api(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    from app.api import create_app
    client = create_app(cloud_settings).test_client()
    href = client.post("/v1/admin/stacks", json={"stack_name": "apidrift", "template": {
        "heat_template_version": "2018-08-31", "resources": {
            "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {"name": "a"}},
            "v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}}).headers["Location"]
    try:
        none_yet = client.get(href + "/drift")
        assert none_yet.status_code == 404
        assert "No drift detection of stack apidrift yet" in none_yet.get_json()["error"][
            "message"]
        started = client.post(href + "/drift")
        assert started.status_code == 202
        detection = started.get_json()["drift_detection"]
        assert detection["stack_drift_status"] == "IN_SYNC"
        got = client.get(f"{href}/drift/{detection['id']}?drift_status=NOT_CHECKED")
        assert [r["resource_name"] for r in got.get_json()["drift_detection"]["resources"]] \
            == ["v"]
        assert client.get(href + "/drift").get_json()["drift_detection"]["id"] == \
            detection["id"]
        assert client.get(href + "/drift/nosuch").status_code == 404
        assert client.get(href + "/drift?drift_status=BAD").status_code == 400
    finally:
        client.delete(href)
    # a deleted stack's resources went by its own delete: nothing to detect or revert
    gone = client.post(href + "/drift")
    assert gone.status_code == 404, gone.get_json()
    assert gone.get_json()["error"]["message"] == "The Stack (apidrift) could not be found."
    preview = client.post(f"{href}/drift/{detection['id']}/revert/preview")
    assert preview.status_code == 404, preview.get_json()


class _Ident:
    def __init__(self, st: Any) -> None:
        self.stack_name, self.stack_id, self.project_id = st.name, st.id, st.tenant


def _diffs(entry: dict[str, Any]) -> list[tuple[Any, ...]]:
    assert entry["drift_status"] == "MODIFIED", entry
    return [(d["path"], d["expected"], d["actual"], d["difference_type"])
            for d in entry["property_differences"]]


def change_out_of_band(conn: Any, detection: dict[str, Any]) -> None:
    """Change the stack's objects directly in the cloud (a detection's physical ids): a rule
    added to ``secgroup``, ``server`` renamed, ``port`` deleted, ``volume`` extended to 2 GB,
    group member ``group/1`` renamed; returns once the volume shows its new size."""
    conn.network.create_security_group_rule(
        security_group_id=_physical(detection, "secgroup"), direction="ingress",
        ethertype="IPv4", protocol="udp", port_range_min=53, port_range_max=53,
        remote_ip_prefix="192.0.2.0/24")
    conn.compute.update_server(_physical(detection, "server"), name="web-renamed")
    conn.network.delete_port(_physical(detection, "port"))
    conn.block_storage.extend_volume(_physical(detection, "volume"), 2)
    conn.network.update_security_group(_physical(detection, "group/1"), name="changed")
    wait_for(lambda: conn.block_storage.get_volume(_physical(detection, "volume")).size == 2,
             timeout=10, interval=0.05, what="the volume's new size")
