"""Events' ``sort_keys`` / ``sort_dir`` and resource show's ``with_attr``, through the real services
(SQLite, in-process engine).

Heat (heat/db/api.py ``_events_filter_and_page_query``): the event sort keys are ``event_time``
and ``resource_type``, others are ignored; without keys the order is newest first (``desc``)
unless ``sort_dir`` says otherwise; keys without ``sort_dir`` sort ascending. Resource show
(heat/engine/api.py ``format_resource_attributes``): each ``with_attr`` is added, resolved now,
null when the resource has no such attribute."""
from __future__ import annotations

from typing import Any

import pytest

T = {"heat_template_version": "2018-08-31",
     "resources": {"val": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
                   "rnd": {"type": "OS::Heat::RandomString", "properties": {"length": 6}}}}


@pytest.fixture()
def href(client: Any) -> str:
    resp = client.post("/v1/admin/stacks", json={"stack_name": "ev", "template": T})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.headers["Location"])


def _events(client: Any, href: str, query: str = "") -> list[dict[str, Any]]:
    resp = client.get(f"{href}/events?{query}")
    assert resp.status_code == 200, resp.get_json()
    return list(resp.get_json()["events"])


def test_event_sort_keys(client, href):
    written = [e["id"] for e in _events(client, href, "sort_dir=asc")]
    assert [e["id"] for e in _events(client, href)] == written[::-1]  # newest first
    assert [e["id"] for e in _events(client, href, "sort_keys=event_time")] == written  # asc
    assert [e["id"] for e in _events(client, href, "sort_keys=bogus")] == written[::-1]
    detail = {e["id"]: client.get(
        f"{href}/resources/{e['resource_name']}/events/{e['id']}").get_json()["event"]
        ["resource_type"] for e in _events(client, href)}
    by_type = [e["id"] for e in _events(client, href, "sort_keys=resource_type")]
    types = [detail[i] for i in by_type]
    assert types == sorted(types) and sorted(by_type) == sorted(written)
    # ties keep the order written
    for kind in set(types):
        same = [i for i in by_type if detail[i] == kind]
        assert same == [i for i in written if detail[i] == kind]
    desc = [e["id"] for e in _events(client, href, "sort_keys=resource_type&sort_dir=desc")]
    assert desc == by_type[::-1]
    page = _events(client, href, f"sort_keys=resource_type&limit=2&marker={by_type[1]}")
    assert [e["id"] for e in page] == by_type[2:4]


def test_with_attr_adds_attributes_and_null_for_unknown(client, href):
    plain = client.get(f"{href}/resources/val").get_json()["resource"]["attributes"]
    assert plain == {"value": "v"}
    shown = client.get(f"{href}/resources/val?with_attr=nosuch&with_attr=value&with_attr=show"
                       ).get_json()["resource"]["attributes"]
    assert shown["value"] == "v" and shown["nosuch"] is None
    # "show" is not in the default show; asked for, it is resolved: OS::Heat::Value has no
    # cloud entity, so Heat's _show_resource gives None
    assert "show" not in plain and "show" in shown and shown["show"] is None
