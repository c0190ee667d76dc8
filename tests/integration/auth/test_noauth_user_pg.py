"""noauth on PostgreSQL: a user id (``X-User-Id`` / ``X-Auth-User``) or user name
(``X-User-Name`` / ``X-User``) longer than the stack's ``user_id`` / ``username`` columns (255
characters) is a 400 naming it, and nothing is written; 255 characters are a user."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from app.models import RawTemplate, Stack, read_session

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "OS::Heat::None"}}}
LONG = "u" * 256
FITS = "v" * 255


@pytest.mark.parametrize("header, kind", [
    ("X-User-Id", "user id"), ("X-Auth-User", "user id"),
    ("X-User-Name", "user name"), ("X-User", "user name")])
def test_a_user_too_long_to_store_is_a_bad_request(row_count: Any, pg_client: Any, header: str, kind: str) -> None:
    resp = pg_client.post("/v1/admin/stacks", headers={header: LONG},
                       json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {
        "type": "HTTPBadRequest", "traceback": None,
        "message": f"Invalid {kind} {LONG}: a {kind} is at most 255 characters long."}
    assert (row_count(Stack), row_count(RawTemplate)) == (0, 0)


def test_a_user_of_255_characters_is_recorded(pg_client: Any) -> None:
    resp = pg_client.post("/v1/admin/stacks", headers={"X-User-Id": FITS, "X-User-Name": FITS},
                       json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    with read_session() as s:
        assert s.execute(select(Stack.user_id, Stack.username)).one() == (FITS, FITS)
