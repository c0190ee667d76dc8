"""Reverting drift against the sandbox cloud through the API: a server renamed, a rule added
to a security group, a port deleted, a volume grown and a group member renamed are previewed
(updated in place, created again, replaced for the volume that cannot shrink), then reverted
by one update, after which a second detection is IN_SYNC."""
from __future__ import annotations

import threading
from typing import Any

from click.testing import CliRunner
from werkzeug.serving import make_server

from app import clients
from app.cli.commands import cli
from tests.fixtures.stacks import wait_for
from tests.resource_types_cloud.test_drift_cloud import _physical, change_out_of_band

TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {
    "net": {"type": "OS::Neutron::Net", "properties": {"name": "revnet"}},
    "subnet": {"type": "OS::Neutron::Subnet",
               "properties": {"network": {"get_resource": "net"}, "cidr": "10.62.0.0/24"}},
    "secgroup": {"type": "OS::Neutron::SecurityGroup", "properties": {
        "name": "rev-sg", "rules": [{"protocol": "tcp", "port_range_min": 22,
                                     "port_range_max": 22}]}},
    "port": {"type": "OS::Neutron::Port", "properties": {
        "name": "spare", "network": {"get_resource": "net"},
        "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
    "web_port": {"type": "OS::Neutron::Port", "depends_on": ["secgroup"], "properties": {
        "network": {"get_resource": "net"}, "security_groups": ["rev-sg"],
        "fixed_ips": [{"subnet": {"get_resource": "subnet"}, "ip_address": "10.62.0.50"}]}},
    "server": {"type": "OS::Nova::Server", "properties": {
        "name": "web", "image": "cirros", "flavor": "m1.tiny",
        "networks": [{"network": {"get_resource": "net"}}], "metadata": {"role": "web"}}},
    "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1, "name": "data"}},
    "group": {"type": "OS::Heat::ResourceGroup", "properties": {"count": 2, "resource_def": {
        "type": "OS::Neutron::SecurityGroup", "properties": {"name": "member-%index%"}}}},
}}


def test_revert_drift_previews_then_brings_the_stack_back(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    from app.api import create_app
    client = create_app(cloud_settings).test_client()
    made = client.post("/v1/admin/stacks", json={"stack_name": "revdrift",
                                                 "template": TEMPLATE})
    assert made.status_code == 201, made.get_json()
    href = made.headers["Location"]
    try:
        assert _status(client, href) == "CREATE_COMPLETE"
        first = _detect(client, href)
        assert first["stack_drift_status"] == "IN_SYNC"
        nothing = client.post(f"{href}/drift/{first['id']}/revert")
        assert nothing.status_code == 400

        conn = clients.for_stack(_Ident(href)).connection()
        change_out_of_band(conn, first)
        subnet = _physical(first, "subnet")
        conn.network.update_port(_physical(first, "web_port"), security_groups=[],
                                 fixed_ips=[{"subnet_id": subnet, "ip_address": "10.62.0.51"}])

        drifted = _detect(client, href)
        assert drifted["stack_drift_status"] == "DRIFTED"
        port = {r["path"]: r for r in drifted["resources"]}["web_port"]
        assert [(d["path"], d["expected"], d["actual"], d["difference_type"])
                for d in port["property_differences"]] == [
            ("/fixed_ips/0", {"subnet": subnet, "ip_address": "10.62.0.50"},
             None, "REMOVE"),
            ("/fixed_ips/1", None, {"subnet_id": subnet, "ip_address": "10.62.0.51"}, "ADD"),
            ("/security_groups/0", "rev-sg", None, "REMOVE")]
        shown = client.post(f"{href}/drift/{drifted['id']}/revert/preview")
        assert shown.status_code == 200, shown.get_json()
        changes = shown.get_json()["drift_revert"]["resource_changes"]
        assert {k: sorted(e["path"] for e in v) for k, v in changes.items()} == {
            "created": ["port"], "updated": ["group/1", "secgroup", "server", "web_port"],
            "replaced": ["volume"]}
        assert "cannot shrink" in changes["replaced"][0]["reason"]
        assert _detect_latest(client, href)["id"] == drifted["id"]   # nothing written

        started = client.post(f"{href}/drift/{drifted['id']}/revert")
        assert started.status_code == 202, started.get_json()
        assert started.get_json()["drift_revert"]["resource_changes"] == changes
        assert _status(client, href) == "UPDATE_COMPLETE", _reason(client, href)
        again = client.post(f"{href}/drift/{drifted['id']}/revert")
        assert again.status_code == 409

        after = _detect(client, href)
        assert after["stack_drift_status"] == "IN_SYNC", [
            (r["path"], r["drift_status"], r["property_differences"])
            for r in after["resources"] if r["drift_status"] not in ("IN_SYNC", "NOT_CHECKED")]
        assert _physical(after, "server") == _physical(first, "server")   # in place
        assert _physical(after, "volume") != _physical(first, "volume")   # replaced
        assert _physical(after, "port") != _physical(first, "port")       # created again
        assert conn.network.find_port(_physical(first, "port")) is None
    finally:
        client.delete(href)


def test_revert_drift_from_the_cli(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    from app.api import create_app
    app = create_app(cloud_settings)
    server = make_server("127.0.0.1", 0, app, threaded=False)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/v1/admin"
    client = app.test_client()
    template = {"heat_template_version": "2018-08-31", "resources": {
        k: TEMPLATE["resources"][k] for k in ("net", "subnet", "port", "server")}}
    href = client.post("/v1/admin/stacks", json={"stack_name": "clirevert",
                                                 "template": template}).headers["Location"]
    try:
        first = _detect(client, href)
        conn = clients.for_stack(_Ident(href)).connection()
        conn.compute.update_server(_physical(first, "server"), name="renamed")
        conn.network.delete_port(_physical(first, "port"))

        asked = _stoker("stack", "drift", "clirevert", "--revert-drift", "--url", url)
        assert asked.exit_code == 1, asked.output
        lines = asked.output.splitlines()
        assert "      ~ /name: 'web' -> 'renamed'" in lines
        at = lines.index("Reverting the drift would:")
        assert lines[at + 1:] == [
            f"  create   port (OS::Neutron::Port): {DELETED}",
            "  update   server (OS::Nova::Server): Drifted name: updated in place to the "
            "template's values.",
            "not reverted (give --yes to revert)"]
        assert _status(client, href) == "CREATE_COMPLETE"

        done = _stoker("stack", "drift", "clirevert", "--revert-drift", "--yes", "--url", url)
        assert done.exit_code == 0, done.output
        assert done.output.splitlines()[-1] == "Reverting: stack clirevert is UPDATE_COMPLETE"
        again = _stoker("stack", "drift", "clirevert", "--url", url)
        assert again.exit_code == 0, again.output
        assert again.output.startswith("Stack clirevert: IN_SYNC")
    finally:
        client.delete(href)
        server.shutdown()
        thread.join(5)


POLICY = {"Statement": [
    {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
    {"Effect": "Deny", "Action": "Update:Replace", "Principal": "*",
     "Resource": "LogicalResourceId/volume"}]}


def test_revert_is_held_against_the_stack_policy(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """A revert is an update: a volume the policy keeps from Update:Replace is neither
    replaced (grown: cannot shrink) nor created again (deleted); 409 UpdateDeniedByStackPolicy
    (AWS's SetStackPolicy: an update whose action a Deny matches is refused), nothing changed."""
    from app.api import create_app
    client = create_app(cloud_settings).test_client()
    template = {"heat_template_version": "2018-08-31", "resources": {
        "volume": TEMPLATE["resources"]["volume"],
        "spare": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}}
    made = client.post("/v1/admin/stacks", json={"stack_name": "revpolicy",
                                                 "template": template})
    assert made.status_code == 201, made.get_json()
    href = made.headers["Location"]
    try:
        assert client.put(f"{href}/policy", json={"stack_policy": POLICY}).status_code == 200
        first = _detect(client, href)
        conn = clients.for_stack(_Ident(href)).connection()
        for grown in (True, False):
            vid = _physical(first, "volume")
            if grown:
                conn.block_storage.extend_volume(vid, 2)
                wait_for(lambda vid=vid: conn.block_storage.get_volume(vid).size == 2, timeout=10,
                         interval=0.05, what="the volume's new size")
            else:
                conn.block_storage.delete_volume(vid)
                wait_for(lambda vid=vid: conn.block_storage.find_volume(vid) is None, timeout=10,
                         interval=0.05, what="the volume gone")
            drifted = _detect(client, href)
            kind = "replaced" if grown else "created"
            shown = client.post(f"{href}/drift/{drifted['id']}/revert/preview").get_json()
            assert [e["path"] for e in shown["drift_revert"]["resource_changes"][kind]] == [
                "volume"]
            refused = client.post(f"{href}/drift/{drifted['id']}/revert")
            assert refused.status_code == 409, refused.get_json()
            error = refused.get_json()["error"]
            assert error["type"] == "UpdateDeniedByStackPolicy"
            assert "Update:Replace of resource [volume]" in error["message"]
            assert _status(client, href) == "CREATE_COMPLETE"
            rows = client.get(f"{href}/resources").get_json()["resources"]
            volume = next(r for r in rows if r["resource_name"] == "volume")
            assert volume["physical_resource_id"] == _physical(first, "volume")
            assert volume["resource_status"] == "CREATE_COMPLETE"
            assert _detect_latest(client, href)["id"] == drifted["id"]
    finally:
        client.delete(href)


DELETED = "Deleted outside the stack: created again by a drift revert."


def _stoker(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _detect(client: Any, href: str) -> dict[str, Any]:
    got = client.post(href + "/drift")
    assert got.status_code == 202
    body: dict[str, Any] = got.get_json()["drift_detection"]
    assert body["status"] == "DETECTION_COMPLETE", body["status_reason"]
    return body


def _detect_latest(client: Any, href: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(href + "/drift").get_json()["drift_detection"]
    return body


def _status(client: Any, href: str) -> str:
    return str(client.get(href).get_json()["stack"]["stack_status"])


def _reason(client: Any, href: str) -> str:
    return str(client.get(href).get_json()["stack"]["stack_status_reason"])


class _Ident:
    def __init__(self, href: str) -> None:
        parts = href.rstrip("/").split("/")
        self.stack_name, self.stack_id, self.project_id = parts[-2], parts[-1], "admin"


