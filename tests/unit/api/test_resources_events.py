"""Resources and events routes against Heat's recorded responses (fake services)."""
from __future__ import annotations

import types

from tests.unit.api.conftest import BASE, HOST, STACK_NAME
from tests.unit.api.shapes import assert_headers, assert_shape


def test_resource_list_matches_sample(api, world, sample):
    resp = api.get(f"{BASE}/resources")
    expected = sample("resource_list")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body
    assert world.called("list_resources")["nested_depth"] == 0


def test_resource_list_params(api, world):
    assert api.get(f"{BASE}/resources?nested_depth=2").status_code == 200
    assert world.called("list_resources")["nested_depth"] == 2
    body = api.get(f"{BASE}/resources?type=OS::Heat::Value").get_json()
    assert [r["resource_name"] for r in body["resources"]] == ["v"]
    body = api.get(f"{BASE}/resources?name=v&name=rs&status=COMPLETE").get_json()
    assert [r["resource_name"] for r in body["resources"]] == ["rs", "v"]
    detail = api.get(f"{BASE}/resources?with_detail=true").get_json()["resources"][0]
    assert detail["attributes"] == {"value": "Bi6VKIuu2jI8ieAe"} and detail["description"] == ""
    resp = api.get(f"{BASE}/resources?colour=red")
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == "Invalid filter parameters ['colour']"
    assert api.get(f"{BASE}/resources?nested_depth=-1").status_code == 400


def test_nested_resource_links_to_its_own_stack(api, world):
    world.resources.append(types.SimpleNamespace(
        name="inner", type="OS::Heat::Value", action="CREATE", status="COMPLETE",
        status_reason="state changed", physical_resource_id="p", uuid="r-3",
        created_at=world.resources[0].created_at, updated_at=None,
        stack_name="cap-child", stack_id="child-id", parent_resource="group"))
    world.required_by["inner"] = []
    body = api.get(f"{BASE}/resources?nested_depth=1").get_json()["resources"][-1]
    assert body["parent_resource"] == "group"
    assert body["links"] == [
        {"href": f"{HOST}/v1/admin/stacks/cap-child/child-id/resources/inner", "rel": "self"},
        {"href": f"{HOST}/v1/admin/stacks/cap-child/child-id", "rel": "stack"}]


def test_resource_show_matches_sample(api, sample):
    resp = api.get(f"{BASE}/resources/rs")
    expected = sample("resource_show")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body


def test_resource_show_unknown_is_404(api):
    resp = api.get(f"{BASE}/resources/nope")
    assert resp.status_code == 404
    assert resp.get_json()["error"]["type"] == "EntityNotFound"
    assert resp.get_json()["error"]["message"] == "The Resource (nope) could not be found."


def test_event_list_matches_sample(api, world, sample):
    resp = api.get(f"{BASE}/events")
    expected = sample("event_list")
    assert_headers(resp, expected)
    assert resp.get_json() == expected.body
    assert world.called("list_events")["sort_dir"] == "desc"  # Heat's default: newest first


def test_event_list_params_reach_the_service(api, world):
    resp = api.get(f"{BASE}/events?limit=2&marker=abc&sort_dir=asc&resource_status=COMPLETE"
                   "&resource_action=CREATE&resource_type=OS::Heat::Value&resource_name=v"
                   "&resource_name=rs")
    assert resp.status_code == 200
    call = world.called("list_events")
    assert call["limit"] == 2 and call["marker"] == "abc" and call["sort_dir"] == "asc"
    assert call["filters"] == {"resource_status": "COMPLETE", "resource_action": "CREATE",
                               "resource_type": "OS::Heat::Value", "resource_name": ["v", "rs"]}
    assert api.get(f"{BASE}/events?limit=many").status_code == 400


def test_resource_events(api, world, sample):
    resp = api.get(f"{BASE}/resources/rs/events")
    assert resp.status_code == 200
    events = resp.get_json()["events"]
    assert {e["resource_name"] for e in events} == {"rs"}
    assert_shape(resp.get_json(), sample("event_list").body)
    assert world.called("list_events")["resource_name"] == "rs"


def test_resource_without_events_is_404(api, world):
    resp = api.get(f"{BASE}/resources/ghost/events")
    assert resp.status_code == 404
    assert resp.get_json()["error"] == {"type": "HTTPNotFound", "traceback": None,
                                        "message": "No events found for resource ghost"}


def test_event_show(api, world, sample):
    event_id = "7350a06b-378b-49b3-a1db-5ba324c1c3c0"
    resp = api.get(f"{BASE}/resources/rs/events/{event_id}")
    assert resp.status_code == 200
    body = resp.get_json()["event"]
    summary = next(e for e in sample("event_list").body["events"] if e["id"] == event_id)
    assert body == {**summary, "resource_type": "OS::Heat::RandomString",
                    "resource_properties": {}}


def test_stack_event_links_use_the_stack_name(api):
    events = api.get(f"{BASE}/events").get_json()["events"]
    stack_event = next(e for e in events if e["resource_name"] == STACK_NAME)
    assert stack_event["links"][1]["href"] == f"{HOST}{BASE}/resources/{STACK_NAME}"


def test_event_show_unknown_is_404(api):
    resp = api.get(f"{BASE}/resources/rs/events/nope")
    assert resp.status_code == 404
    assert resp.get_json()["error"] == {"type": "HTTPNotFound", "traceback": None,
                                        "message": "No event nope found"}
    resp = api.get("/v1/admin/stacks/other/x/resources/rs/events/nope")
    assert resp.get_json()["error"]["type"] == "EntityNotFound"
