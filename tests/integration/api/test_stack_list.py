"""``GET /stacks`` through the real services (SQLite): Heat's tag filters, hidden stacks, sort keys
and directions, keyset paging by marker in the database, counts and the global listing.

Expected values were recorded against the real Heat 27.0.1 (reference-heat, noauth):
``tags=b`` → the stacks tagged b; ``tags=a,b`` → tagged both; ``tags_any=a,c``; ``not_tags=b,c``
→ every stack not tagged with both; ``not_tags_any=a``; ``sort_keys=created_at`` (not a Heat key)
is ignored (default order); ``sort_keys=stack_name`` without ``sort_dir`` is ascending;
``sort_dir=bad`` is a 400 ``ValueError``; an unknown marker serves the first page;
``global_tenant`` without the right is 403 "You are not authorized to use stacks:global_index."
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, update
from sqlalchemy.engine import Engine

from app import config
from app.models import Stack, session

T = {"heat_template_version": "2018-08-31"}


def _create(client: Any, name: str, tags: str | None = None, **headers: str) -> str:
    body: dict[str, Any] = {"stack_name": name, "template": T}
    if tags is not None:
        body["tags"] = tags
    resp = client.post("/v1/admin/stacks", json=body, headers=headers)
    assert resp.status_code == 201, resp.get_json()
    return str(resp.get_json()["stack"]["id"])


def _names(client: Any, query: str = "", **headers: str) -> list[str]:
    resp = client.get(f"/v1/admin/stacks?{query}", headers=headers)
    assert resp.status_code == 200, resp.get_json()
    return [s["stack_name"] for s in resp.get_json()["stacks"]]


@pytest.fixture()
def tagged(client: Any) -> dict[str, str]:
    """s1 (a, b), s2 (b, c), s3 (hide-me), s0 (no tags), created in the order s0, s1, s2, s3."""
    ids = {"s0": _create(client, "s0")}
    ids["s1"] = _create(client, "s1", "a,b")
    ids["s2"] = _create(client, "s2", "b,c")
    ids["s3"] = _create(client, "s3", "hide-me")
    return ids


def test_tag_filters(client, tagged):
    assert sorted(_names(client, "tags=b")) == ["s1", "s2"]
    assert _names(client, "tags=a,b") == ["s1"]
    assert sorted(_names(client, "tags_any=a,c")) == ["s1", "s2"]
    assert sorted(_names(client, "not_tags=b,c")) == ["s0", "s1", "s3"]
    assert sorted(_names(client, "not_tags_any=a")) == ["s0", "s2", "s3"]
    assert sorted(_names(client, "not_tags_any=a,c")) == ["s0", "s3"]
    assert _names(client, "tags=nosuch") == []


def test_a_tag_matches_whole_elements_only(client):
    _create(client, "long", "ab,b_c%")
    _create(client, "short", "a")
    assert _names(client, "tags=a") == ["short"]
    assert _names(client, "tags=b") == []
    assert _names(client, "tags=b_c%") == ["long"]
    assert _names(client, "tags=b_cx") == []


def test_hidden_stack_tags_need_show_hidden(client, tagged, monkeypatch):
    assert "s3" in _names(client)  # Heat's default hidden_stack_tags is empty
    monkeypatch.setattr(config, "_current", config.get().replace(hidden_stack_tags="hide-me"))
    assert sorted(_names(client)) == ["s0", "s1", "s2"]
    assert sorted(_names(client, "show_hidden=true")) == ["s0", "s1", "s2", "s3"]
    assert _names(client, "show_hidden=true&tags=hide-me") == ["s3"]
    resp = client.get("/v1/admin/stacks?show_hidden=maybe")
    assert resp.status_code == 400 and resp.get_json()["error"]["message"] == (
        'Unrecognized value "maybe" for "show_hidden", acceptable values are: true, false.')


def test_sort_keys_and_directions(client, tagged):
    assert _names(client) == ["s3", "s2", "s1", "s0"]  # creation_time desc
    assert _names(client, "sort_keys=stack_name") == ["s0", "s1", "s2", "s3"]  # asc
    assert _names(client, "sort_keys=stack_name&sort_dir=desc") == ["s3", "s2", "s1", "s0"]
    assert _names(client, "sort_keys=creation_time&sort_dir=asc") == ["s0", "s1", "s2", "s3"]
    assert _names(client, "sort_keys=created_at") == ["s3", "s2", "s1", "s0"]  # ignored
    assert _names(client, "sort_keys=bogus&sort_dir=asc") == ["s0", "s1", "s2", "s3"]
    resp = client.get("/v1/admin/stacks?sort_keys=stack_name&sort_dir=bad")
    assert resp.status_code == 400 and resp.get_json()["error"]["type"] == "ValueError"


def test_updated_time_sorts_never_updated_stacks_last_ascending(client, tagged):
    import datetime as dt
    with session() as s:
        s.execute(update(Stack).where(Stack.id == tagged["s2"])
                  .values(updated_at=dt.datetime(2030, 1, 1)))
        s.execute(update(Stack).where(Stack.id == tagged["s0"])
                  .values(updated_at=dt.datetime(2029, 1, 1)))
    asc = _names(client, "sort_keys=updated_time&sort_dir=asc")
    assert asc[:2] == ["s0", "s2"] and sorted(asc[2:]) == ["s1", "s3"]
    desc = _names(client, "sort_keys=updated_time&sort_dir=desc")
    assert desc == asc[::-1]
    # paging through the NULLs with a marker gives the same order, one row at a time
    seen: list[str] = []
    marker = ""
    for _ in range(5):
        resp = client.get("/v1/admin/stacks?sort_keys=updated_time&sort_dir=asc&limit=1"
                          + (f"&marker={marker}" if marker else "")).get_json()
        if not resp["stacks"]:
            break
        seen.append(resp["stacks"][0]["stack_name"])
        marker = resp["stacks"][0]["id"]
    assert seen == asc


def test_marker_pages_follow_the_sort_order(client, tagged):
    first = client.get("/v1/admin/stacks?sort_keys=stack_name&limit=2").get_json()
    assert [s["stack_name"] for s in first["stacks"]] == ["s0", "s1"]
    nxt = first["links"][0]["href"]
    assert "marker=" + tagged["s1"] in nxt
    assert _names(client, f"sort_keys=stack_name&limit=2&marker={tagged['s1']}") == ["s2", "s3"]
    assert _names(client, f"limit=2&marker={tagged['s2']}") == ["s1", "s0"]
    assert _names(client, "limit=2&marker=no-such-stack") == ["s3", "s2"]  # Heat: ignored


def test_paging_reads_one_page_from_the_database(client, tagged):
    statements: list[str] = []

    def seen(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(statement)
    target = Engine  # every engine (the read engine is a separate one)
    event.listen(target, "before_cursor_execute", seen)
    try:
        _names(client, f"limit=1&marker={tagged['s2']}")
    finally:
        event.remove(target, "before_cursor_execute", seen)
    listing = [st for st in statements if "FROM stack" in st and "ORDER BY" in st]
    assert listing and all("LIMIT" in st for st in listing)


def test_with_count_counts_every_match_not_the_page(client, tagged):
    body = client.get("/v1/admin/stacks?limit=1&with_count=true&tags=b").get_json()
    assert len(body["stacks"]) == 1 and body["count"] == 2


def test_global_tenant_is_for_admins(client, tagged):
    _create(client, "elsewhere", **{"X-Auth-Project": "beta"})
    member = {"X-Roles": "member", "X-Project-Id": "admin"}
    resp = client.get("/v1/admin/stacks?global_tenant=true", headers=member)
    assert resp.status_code == 403
    assert resp.get_json()["error"] == {
        "type": "HTTPForbidden", "traceback": None,
        "message": "You are not authorized to use stacks:global_index."}
    assert "elsewhere" not in _names(client, "", **member)
    listed = client.get("/v1/admin/stacks?global_tenant=true").get_json()["stacks"]
    assert {s["stack_name"]: s["project"] for s in listed}["elsewhere"] == "beta"


def test_a_stack_whose_tags_are_sql_null_counts_as_untagged(client, tagged):
    from sqlalchemy import null
    with session() as s:
        s.execute(update(Stack).where(Stack.id == tagged["s0"]).values(tags=null()))
    assert "s0" in _names(client, "not_tags_any=a") and "s0" in _names(client, "not_tags=a,b")
    assert "s0" not in _names(client, "tags_any=a,b,c")


@pytest.mark.parametrize("order", ["", "sort_keys=stack_status&sort_dir=desc",
                                   "sort_keys=creation_time&sort_keys=stack_status",
                                   "sort_keys=updated_time&sort_dir=asc"])
def test_paging_through_ties_in_the_sort_keys_lists_every_stack_once(client, order):
    import datetime as dt
    ids = {_create(client, f"t{i}") for i in range(11)}
    with session() as s:  # every sort key ties: one creation time, one status, no update
        s.execute(update(Stack).values(created_at=dt.datetime(2030, 1, 1)))
    seen: list[str] = []
    marker = ""
    for _ in range(20):
        resp = client.get(f"/v1/admin/stacks?{order}&limit=3"
                          + (f"&marker={marker}" if marker else "")).get_json()
        if not resp["stacks"]:
            break
        seen += [st["id"] for st in resp["stacks"]]
        marker = resp["stacks"][-1]["id"]
    assert sorted(seen) == sorted(ids)


def test_tag_filters_follow_an_update_of_the_tags(client, tagged):
    resp = client.patch(f"/v1/admin/stacks/s1/{tagged['s1']}", json={"tags": "c,d,d"})
    assert resp.status_code == 202, resp.get_json()
    assert sorted(_names(client, "tags=c")) == ["s1", "s2"]
    assert _names(client, "tags=d") == ["s1"] and _names(client, "tags=a") == []
    assert sorted(_names(client, "not_tags=c,d")) == ["s0", "s2", "s3"]
    resp = client.patch(f"/v1/admin/stacks/s1/{tagged['s1']}", json={})  # existing: kept
    assert resp.status_code == 202, resp.get_json()
    assert _names(client, "tags=c,d") == ["s1"]
