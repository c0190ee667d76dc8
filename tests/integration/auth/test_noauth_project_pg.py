"""noauth on PostgreSQL: a project id longer than the tenant column (255 characters), in the URL
or in ``X-Project-Id`` / ``X-Auth-Project``, is a 400 naming it, and nothing is written."""
from __future__ import annotations

from typing import Any

import pytest

from app.models import RawTemplate, Stack

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "OS::Heat::None"}}}
LONG = "p" * 256
FITS = "q" * 255


@pytest.mark.parametrize("headers", [{}, {"X-Project-Id": LONG}, {"X-Auth-Project": LONG}])
def test_a_project_id_too_long_to_store_is_a_bad_request(row_count: Any, pg_client: Any, headers: dict) -> None:
    resp = pg_client.post(f"/v1/{LONG}/stacks", headers=headers,
                       json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == {
        "type": "HTTPBadRequest", "traceback": None,
        "message": f"Invalid project id {LONG}: a project id is at most 255 characters long."}
    assert (row_count(Stack), row_count(RawTemplate)) == (0, 0)


def test_a_project_id_of_255_characters_is_a_project(pg_client: Any) -> None:
    headers = {"X-Project-Id": FITS}
    resp = pg_client.post(f"/v1/{FITS}/stacks", headers=headers,
                       json={"stack_name": "s", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    listed = pg_client.get(f"/v1/{FITS}/stacks", headers=headers).get_json()["stacks"]
    assert [st["stack_name"] for st in listed] == ["s"]
