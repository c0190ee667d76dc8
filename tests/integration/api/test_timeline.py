"""``GET .../timeline`` through the real services and engine (SQLite, in-process): a failed
update three stacks deep names the deepest first failure as the root cause with its path and
the cloud's message; the parents' "Resource failed" are cascades; times are ordered; the
critical path follows the chain; the statements run do not grow with the events."""
from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import insert

from app.models import Event, session
from tests.integration.api.test_statements_per_request import counting

LEAF = ("heat_template_version: 2018-08-31\n"
        "parameters:\n  bad: {type: boolean, default: false}\n"
        "resources:\n"
        "  ok: {type: OS::Heat::Value, properties: {value: 1}}\n"
        "  v: {type: OS::Heat::TestResource, depends_on: [ok],"
        " properties: {value: leaf, fail: {get_param: bad}}}\n")
MID = ("heat_template_version: 2018-08-31\n"
       "parameters:\n  bad: {type: boolean, default: false}\n"
       "resources:\n  inner: {type: leaf.yaml, properties: {bad: {get_param: bad}}}\n")
FILES = {"mid.yaml": MID, "leaf.yaml": LEAF}


def _top(bad: bool) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {
        "first": {"type": "OS::Heat::Value", "properties": {"value": 1}},
        "top": {"type": "mid.yaml", "depends_on": ["first"], "properties": {"bad": bad}},
        "after": {"type": "OS::Heat::Value", "depends_on": ["top"],
                  "properties": {"value": 1}}}}


def failed_nested_update(client: Any, name: str = "deep") -> str:
    """A stack ``name`` whose update failed in ``top/inner/v``: its base URL."""
    resp = client.post("/v1/admin/stacks", json={"stack_name": name, "template": _top(False),
                                                "files": FILES})
    sid = resp.get_json()["stack"]["id"]
    base = f"/v1/admin/stacks/{name}/{sid}"
    assert client.put(base, json={"template": _top(True), "files": FILES}).status_code == 202
    assert client.get(base).get_json()["stack"]["stack_status"] == "UPDATE_FAILED"
    return base


def test_a_failed_nested_update_names_the_deepest_first_failure(client):
    base = failed_nested_update(client)
    body = client.get(f"{base}/timeline").get_json()["timeline"]
    assert body["operation"]["action"] == "UPDATE" and body["operation"]["status"] == "FAILED"
    assert [o["action"] for o in body["operations"]] == ["CREATE", "UPDATE"]
    cause = body["root_cause"]
    assert cause["resource"] == "top/inner/v" and cause["path"] == ["top", "inner"]
    assert cause["message"] == "ValueError: resources.v: Test Resource failed v"
    assert cause["action"] == "UPDATE"
    spans = {s["id"]: s for s in body["resources"]}
    assert spans["top/inner/v"]["root_cause"] and spans["top/inner/v"]["outcome"] == "FAILED"
    # the parents failed because their nested stack did: cascades, not causes
    assert spans["top"]["cascade"] and spans["top/inner"]["cascade"]
    assert not spans["top"]["root_cause"] and not spans["top/inner"]["root_cause"]
    assert "after" not in spans                                  # never started


def test_times_are_ordered_and_the_chain_is_the_critical_path(client):
    resp = client.post("/v1/admin/stacks", json={"stack_name": "chain", "template": {
        "heat_template_version": "2018-08-31", "resources": {
            "a": {"type": "OS::Heat::Value", "properties": {"value": 1}},
            "b": {"type": "OS::Heat::TestResource", "depends_on": ["a"],
                  "properties": {"value": 1, "wait_secs": 1}},
            "c": {"type": "OS::Heat::Value", "depends_on": ["b"], "properties": {"value": 1}},
            "side": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}})
    sid = resp.get_json()["stack"]["id"]
    body = client.get(f"/v1/admin/stacks/chain/{sid}/timeline?operation=create").get_json()[
        "timeline"]
    assert body["operation"]["status"] == "COMPLETE" and body["root_cause"] is None
    assert body["critical_path"] == ["a", "b", "c"]
    spans = {s["id"]: s for s in body["resources"]}
    starts = [s["started_at"] for s in body["resources"]]
    assert starts == sorted(starts)
    for s in body["resources"]:
        assert s["started_at"] <= s["ended_at"] and s["outcome"] == "COMPLETE"
    assert spans["b"]["waits"][0]["for"] == "resource" and spans["b"]["waits"][0]["resource"] == "a"
    assert spans["c"]["waits"][0]["resource"] == "b"
    assert spans["a"]["waits"][0]["for"] == "stack_start"
    assert not spans["side"]["critical"]


def _nested_stack_start(client: Any, base: str, holder: str, action: str) -> str:
    """The nested stack's own ``<action> IN_PROGRESS`` event time, through the events API,
    of the nested stack held by resource ``holder`` of the stack at ``base``."""
    res = client.get(f"{base}/resources/{holder}").get_json()["resource"]
    nested = next(link["href"] for link in res["links"] if link["rel"] == "nested")
    path = nested.split("localhost", 1)[1]
    name = path.rstrip("/").split("/")[-2]
    events = client.get(f"{path}/events?resource_name={name}&sort_dir=asc").get_json()["events"]
    return next(e["event_time"] for e in events
                if e["resource_status"] == f"{action}_IN_PROGRESS")


@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_nested_stack_never_starts_before_the_resource_that_makes_it(client, operation):
    """The resource holding a nested stack writes its IN_PROGRESS when its step parks, after
    the nested stack it made has started: its span starts with that nested stack, so every
    span and wait inside it starts at or after it, and the holder's own wait ends there."""
    base = failed_nested_update(client, f"order{operation.lower()}")
    body = client.get(f"{base}/timeline?operation={operation}").get_json()["timeline"]
    spans = {s["id"]: s for s in body["resources"]}
    assert {"top", "top/inner", "top/inner/v"} <= set(spans)
    for s in body["resources"]:
        if s["path"]:
            holder = spans["/".join(s["path"])]
            assert holder["started_at"] <= s["started_at"], (holder, s)
            for wait in s["waits"]:
                assert holder["started_at"] <= wait["from"] <= wait["until"], (holder, s)
    ids = [s["id"] for s in body["resources"]]
    assert ids.index("top") < ids.index("top/inner") < ids.index("top/inner/v")
    assert spans["top"]["waits"][0]["until"] == spans["top"]["started_at"]
    # the holder started when its nested stack did (the events API gives whole seconds)
    nested_start = _nested_stack_start(client, base, "top", operation)
    assert spans["top"]["started_at"][:19] == nested_start.rstrip("Z")[:19]


def test_an_unknown_operation_is_a_400_and_an_absent_one_a_404(client):
    """An operation the stack never ran is not found (Heat's fault body, EntityNotFound),
    as a resource or event that does not exist; the README says so."""
    base = failed_nested_update(client, "ops")
    bad = client.get(f"{base}/timeline?operation=FROB")
    assert bad.status_code == 400
    none = client.get(f"{base}/timeline?operation=DELETE")
    assert none.status_code == 404
    assert none.get_json()["error"]["type"] == "EntityNotFound"
    assert none.get_json()["error"]["message"] == "Stack ops has no DELETE operation."
    create = client.get(f"{base}/timeline?operation=CREATE").get_json()["timeline"]
    assert create["operation"]["status"] == "COMPLETE"
    assert {s["id"] for s in create["resources"]} >= {"first", "top", "top/inner/v", "after"}


def test_the_statements_do_not_grow_with_the_events(client):
    base = failed_nested_update(client, "counted")
    sid = base.rsplit("/", 1)[1]
    with counting() as few:
        assert client.get(f"{base}/timeline").status_code == 200
    now = dt.datetime(2026, 1, 1)
    with session() as s:
        s.execute(insert(Event), [
            {"uuid": f"{i:08d}-2222-2222-2222-{sid[-12:]}", "stack_id": sid,
             "resource_name": f"extra{i}", "resource_type": "OS::Heat::None",
             "action": "UPDATE", "status": "IN_PROGRESS" if i % 2 else "COMPLETE",
             "status_reason": "state changed", "created_at": now} for i in range(300)])
    with counting() as many:
        assert client.get(f"{base}/timeline").status_code == 200
    assert len(many) == len(few)
