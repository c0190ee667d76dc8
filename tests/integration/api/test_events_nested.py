"""``GET .../events?nested_depth=N`` through the real services and engine (SQLite, in-process):
the events of nested stacks down to N levels, in the order written, each linking into its own
stack, all linking to the root stack; and python-heatclient's nested event list on top of it."""
from __future__ import annotations

from typing import Any

import pytest
from heatclient import client as heat_client
from heatclient.common import event_utils
from keystoneauth1 import session as ks_session
from sqlalchemy import select

from app.models import Event, Stack, read_session
from tests.unit.api.test_heatclient import WSGIAdapter

HOST = "http://localhost"
LEAF = ("heat_template_version: 2018-08-31\n"
        "resources:\n  v: {type: OS::Heat::Value, properties: {value: leaf}}\n")
MID = "heat_template_version: 2018-08-31\nresources:\n  inner: {type: leaf.yaml}\n"
TOP = {"heat_template_version": "2018-08-31", "resources": {
    "top": {"type": "mid.yaml"}, "own": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}


@pytest.fixture()
def deep(client: Any) -> dict[str, Any]:
    """A stack ``deep`` → ``top`` (mid.yaml) → ``inner`` (leaf.yaml) → ``v``: its three stacks
    by depth as ``{"ids", "names", "base"}``."""
    resp = client.post("/v1/admin/stacks", json={"stack_name": "deep", "template": TOP,
                                                "files": {"mid.yaml": MID, "leaf.yaml": LEAF}})
    assert resp.status_code == 201
    ids = [resp.get_json()["stack"]["id"]]
    names = ["deep"]
    with read_session() as s:
        for _ in range(2):
            child = s.execute(select(Stack).where(Stack.parent_id == ids[-1])).scalar_one()
            ids.append(child.id)
            names.append(child.name)
    return {"ids": ids, "names": names, "base": f"/v1/admin/stacks/deep/{ids[0]}"}


def _uuids_in_order(stack_ids: list[str]) -> list[str]:
    with read_session() as s:
        return list(s.execute(select(Event.uuid).where(Event.stack_id.in_(stack_ids))
                              .order_by(Event.id)).scalars())


def _links(event: dict[str, Any]) -> dict[str, str]:
    return {link["rel"]: link["href"] for link in event["links"]}


def test_without_nested_depth_only_the_stack_itself(client, deep):
    events = client.get(f"{deep['base']}/events?sort_dir=asc").get_json()["events"]
    assert [e["id"] for e in events] == _uuids_in_order(deep["ids"][:1])
    assert all("root_stack" not in _links(e) for e in events)
    zero = client.get(f"{deep['base']}/events?sort_dir=asc&nested_depth=0").get_json()
    assert zero["events"] == events


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_nested_depth_adds_the_nested_stacks_events_in_order(client, deep, depth):
    ids = deep["ids"][:depth + 1]
    events = client.get(f"{deep['base']}/events?sort_dir=asc&nested_depth={depth}").get_json()[
        "events"]
    assert [e["id"] for e in events] == _uuids_in_order(ids)
    newest_first = client.get(f"{deep['base']}/events?nested_depth={depth}").get_json()["events"]
    assert [e["id"] for e in newest_first] == _uuids_in_order(ids)[::-1]


def test_each_event_links_into_its_own_stack_and_to_the_root(client, deep):
    events = client.get(f"{deep['base']}/events?sort_dir=asc&nested_depth=2").get_json()["events"]
    root = f"{HOST}{deep['base']}"
    leaf = f"{HOST}/v1/admin/stacks/{deep['names'][2]}/{deep['ids'][2]}"
    v = next(e for e in events if e["resource_name"] == "v")
    assert _links(v) == {"self": f"{leaf}/resources/v/events/{v['id']}",
                         "resource": f"{leaf}/resources/v", "stack": leaf, "root_stack": root}
    own = next(e for e in events if e["resource_name"] == "own")
    assert _links(own)["stack"] == root and _links(own)["root_stack"] == root
    # a nested stack's own state changes are named after it and carry its id
    mid_event = next(e for e in events if e["resource_name"] == deep["names"][1])
    assert mid_event["physical_resource_id"] == deep["ids"][1]
    assert set(mid_event) == set(own)  # Heat's summary keys only: no stack_name, no stack_id


def test_filters_marker_and_limit_apply_to_the_merged_list(client, deep):
    base = f"{deep['base']}/events?sort_dir=asc&nested_depth=2"
    every = [e["id"] for e in client.get(base).get_json()["events"]]
    page = client.get(f"{base}&marker={every[2]}&limit=3").get_json()["events"]
    assert [e["id"] for e in page] == every[3:6]
    done = client.get(f"{base}&resource_status=COMPLETE&resource_name=v").get_json()["events"]
    assert [(e["resource_name"], e["resource_status"]) for e in done] == [("v", "CREATE_COMPLETE")]


def test_resource_events_reach_into_nested_stacks(client, deep):
    assert client.get(f"{deep['base']}/resources/v/events").status_code == 404
    resp = client.get(f"{deep['base']}/resources/v/events?nested_depth=2")
    assert resp.status_code == 200
    assert {e["resource_name"] for e in resp.get_json()["events"]} == {"v"}


@pytest.mark.parametrize("value,message", [
    ("two", "Only integer is acceptable by 'nested_depth'."),
    ("1.5", "Only integer is acceptable by 'nested_depth'."),
    ("-1", "Value '-1' is invalid for 'nested_depth' which only accepts non-negative integer."),
])
def test_bad_nested_depth_is_a_400(client, deep, value, message):
    resp = client.get(f"{deep['base']}/events?nested_depth={value}")
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {"type": "HTTPBadRequest", "traceback": None,
                                        "message": message}


def test_heatclient_nested_event_list_is_one_request(app, deep):
    """``openstack stack event list --nested-depth 2`` (heatclient's ``event_utils``): the
    ``root_stack`` link tells it the server nested the events, so it makes one request and
    names each event's stack from its ``stack`` link."""
    adapter = WSGIAdapter(app)
    seen: list[str] = []
    send = adapter.send
    adapter.send = lambda request, **kw: seen.append(request.url) or send(request, **kw)
    sess = ks_session.Session()
    sess.session.mount(HOST, adapter)
    heat = heat_client.Client("1", endpoint=f"{HOST}/v1/nest", session=sess)
    events = event_utils.get_events(heat, stack_id=f"deep/{deep['ids'][0]}",
                                    event_args={"sort_dir": "asc"}, nested_depth=2)
    assert len(seen) == 1 and "nested_depth=2" in seen[0]
    assert [e.id for e in events] == _uuids_in_order(deep["ids"])
    assert {e.stack_name for e in events} == set(deep["names"])
    assert {e.stack_name for e in events if e.resource_name == "v"} == {deep["names"][2]}
