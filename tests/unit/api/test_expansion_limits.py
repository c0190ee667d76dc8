"""POST /stacks with a template whose function would expand enormously: 400 with Heat's fault
body, nothing stored (real services, SQLite; see app/templates/functions/limits.py)."""
from __future__ import annotations

import time

from app.templates.functions.limits import MAX_RESULT_SIZE

BOMB = {"heat_template_version": "2021-04-16",
        "parameters": {"p": {"type": "string", "default": "y" * 10_000}},
        "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {
            "str_replace": {"template": "x" * 10_000, "params": {"x": {"get_param": "p"}}}}}}}}


def test_create_with_an_expansion_bomb_is_400_and_leaves_no_stack(client):
    client.application.config["SERVER_NAME"] = "127.0.0.1:8004"
    start = time.monotonic()
    resp = client.post("/v1/admin/stacks", json={"stack_name": "bomb", "template": BOMB,
                                                 "parameters": {}, "files": {},
                                                 "environment": {}})
    assert time.monotonic() - start < 5
    assert resp.status_code == 400, resp.get_json()
    body = resp.get_json()
    assert body["code"] == 400 and body["title"] == "Bad Request"
    assert body["error"]["type"] == "StackValidationFailed"
    assert body["error"]["traceback"] is None
    message = body["error"]["message"]
    assert "resources.v.properties.value" in message
    assert (f'The result of "str_replace" would be larger than {MAX_RESULT_SIZE} characters'
            in message)
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
