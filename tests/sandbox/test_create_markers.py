"""What the sandbox takes in a create's body to mark an object, as the real services do: Nova
server tags at microversion 2.52+ (refused below with Nova's schema error) and the ``tags`` list
filter from 2.26 (ignored below, as Nova ignores unknown filters); Neutron ``tags`` in a create
(the ``tag-creation`` extension, which it lists); and a fault rule that fires after the
request was carried out (``"after": true``)."""
from __future__ import annotations

from typing import Any

import pytest
import requests

pytestmark = pytest.mark.usefixtures("no_leaks")


def _server_body(conn: Any, name: str, **extra: Any) -> dict[str, Any]:
    return {"server": {"name": name, "flavorRef": conn.compute.find_flavor("m1.tiny").id,
                       "imageRef": conn.image.find_image("cirros").id,
                       "networks": "none", **extra}}


def test_nova_takes_tags_at_create_from_2_52_only(conn: Any) -> None:
    refused = conn.compute.post("/servers", json=_server_body(conn, "t1", tags=["mine"]),
                                microversion="2.51", raise_exc=False)
    assert refused.status_code == 400
    assert "Additional properties are not allowed ('tags' was unexpected)" in \
        refused.json()["badRequest"]["message"]
    made = conn.compute.post("/servers", json=_server_body(conn, "t1", tags=["mine"]),
                             microversion="2.52")
    sid = made.json()["server"]["id"]
    try:
        shown = conn.compute.get(f"/servers/{sid}", microversion="2.52").json()["server"]
        assert shown["tags"] == ["mine"]
        bad = conn.compute.post("/servers", json=_server_body(conn, "t2", tags=["a/b"]),
                                microversion="2.52", raise_exc=False)
        assert bad.status_code == 400
    finally:
        conn.compute.delete(f"/servers/{sid}")


def test_nova_filters_servers_by_tag_from_2_26_and_ignores_the_filter_below(conn: Any) -> None:
    sid = conn.compute.post("/servers", json=_server_body(conn, "t3", tags=["only-me"]),
                            microversion="2.52").json()["server"]["id"]
    other = conn.compute.post("/servers", json=_server_body(conn, "t4"),
                              microversion="2.52").json()["server"]["id"]
    try:
        tagged = conn.compute.get("/servers/detail", params={"tags": "only-me"},
                                  microversion="2.26").json()["servers"]
        assert [s["id"] for s in tagged] == [sid]
        ignored = conn.compute.get("/servers/detail", params={"tags": "only-me"},
                                   microversion="2.25").json()["servers"]
        assert {sid, other} <= {s["id"] for s in ignored}
    finally:
        conn.compute.delete(f"/servers/{sid}")
        conn.compute.delete(f"/servers/{other}")


def test_neutron_takes_tags_at_create_and_lists_by_them(conn: Any) -> None:
    aliases = {e.alias for e in conn.network.extensions()}
    assert {"tag-creation", "tag-ports-during-bulk-creation"} <= aliases
    net = conn.network.find_network("private")
    port = conn.network.create_port(network_id=net.id, name="tagged", tags=["m-1"])
    try:
        assert port.tags == ["m-1"]
        assert [p.id for p in conn.network.ports(tags="m-1")] == [port.id]
        bad = conn.network.post("/ports", json={"port": {"network_id": net.id, "tags": "x"}},
                                raise_exc=False)
        assert bad.status_code == 400
    finally:
        conn.network.delete_port(port)


def test_a_fault_after_the_work_answers_an_error_for_what_was_done(conn: Any, faults: Any,
                                                                   sandbox: Any) -> None:
    faults({"match": "network.POST.networks", "status": 500, "times": 1, "after": True,
            "message": "made, then fell over"})
    before = {n.id for n in conn.network.networks()}
    resp = conn.network.post("/networks", json={"network": {"name": "after-fault"}},
                             raise_exc=False)
    assert resp.status_code == 500
    assert resp.json()["NeutronError"]["message"] == "made, then fell over"
    made = [n for n in conn.network.networks() if n.id not in before]
    assert [n.name for n in made] == ["after-fault"]
    conn.network.delete_network(made[0])
    refused = requests.post(f"{sandbox.url}/sandbox/faults", json={"match": "x", "after": "yes"},
                            timeout=10)
    assert refused.status_code == 400 and "'after' must be true or false" in refused.text
