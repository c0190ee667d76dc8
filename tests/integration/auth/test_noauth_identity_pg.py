"""noauth on PostgreSQL: a project id longer than the tenant column (in the URL or in
``X-Project-Id`` / ``X-Auth-Project``), a user id (``X-User-Id`` / ``X-Auth-User``) or user name
(``X-User-Name`` / ``X-User``) longer than the stack's ``user_id`` / ``username`` columns (255
characters each) is a 400 naming it, and nothing is written; 255 characters are stored."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from app.models import RawTemplate, Stack, read_session

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "OS::Heat::None"}}}
LONG = "p" * 256
FITS = "q" * 255


@pytest.mark.parametrize("project, headers, kind", [
    (LONG, {}, "project id"), (LONG, {"X-Project-Id": LONG}, "project id"),
    (LONG, {"X-Auth-Project": LONG}, "project id"),
    ("admin", {"X-User-Id": LONG}, "user id"), ("admin", {"X-Auth-User": LONG}, "user id"),
    ("admin", {"X-User-Name": LONG}, "user name"), ("admin", {"X-User": LONG}, "user name")])
def test_an_identity_too_long_to_store_is_a_bad_request(
        row_count: Any, pg_client: Any, project: str, headers: dict[str, str], kind: str) -> None:
    resp = pg_client.post(f"/v1/{project}/stacks", headers=headers,
                          json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {
        "type": "HTTPBadRequest", "traceback": None,
        "message": f"Invalid {kind} {LONG}: a {kind} is at most 255 characters long."}
    assert (row_count(Stack), row_count(RawTemplate)) == (0, 0)


def test_a_project_id_of_255_characters_is_a_project(pg_client: Any) -> None:
    headers = {"X-Project-Id": FITS}
    resp = pg_client.post(f"/v1/{FITS}/stacks", headers=headers,
                          json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    listed = pg_client.get(f"/v1/{FITS}/stacks", headers=headers).get_json()["stacks"]
    assert [st["stack_name"] for st in listed] == ["s"]


def test_a_user_of_255_characters_is_recorded(pg_client: Any) -> None:
    resp = pg_client.post("/v1/admin/stacks", headers={"X-User-Id": FITS, "X-User-Name": FITS},
                          json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    with read_session() as s:
        assert s.execute(select(Stack.user_id, Stack.username)).one() == (FITS, FITS)
