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


def _nested(value: object) -> dict:
    return {"heat_template_version": "2018-08-31",
            "resources": {"v": {"type": "OS::Heat::None"}},
            "outputs": {"o": {"value": value}}}


def _three_ways(client, template: dict, name: str) -> list:
    """POST /stacks with ``template`` as a JSON object, as JSON text and as YAML text."""
    import json

    import yaml
    return [client.post("/v1/admin/stacks", json={"stack_name": f"{name}-{i}", "template": t})
            for i, t in enumerate((template, json.dumps(template), yaml.safe_dump(template)))]


def test_one_nesting_limit_and_message_however_the_template_comes(client):
    """A 100-deep nested list_join (about 300 levels: a mapping and two lists a call) is refused
    as a JSON object in the body, as JSON text and as YAML text alike: 400
    RequestLimitExceeded "Template nesting exceeds 100 levels", nothing stored. A template
    exactly 100 levels deep (the document level 1, its outputs 2, an output 3, its value 4,
    then 96 lists down to the scalar at level 100) is accepted in all three forms."""
    value: object = "x"
    for _ in range(100):
        value = {"list_join": [",", [value]]}
    for resp in _three_ways(client, _nested(value), "deep"):
        assert resp.status_code == 400, resp.get_json()
        assert resp.get_json()["error"]["type"] == "RequestLimitExceeded"
        assert resp.get_json()["error"]["message"] == \
            "Request limit exceeded: Template nesting exceeds 100 levels"
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []

    edge: object = "x"
    for _ in range(96):
        edge = [edge]
    assert [r.status_code for r in _three_ways(client, _nested(edge), "edge")] == [201] * 3
    over = [r.get_json()["error"]["message"] for r in _three_ways(client, _nested([edge]), "over")]
    assert over == ["Request limit exceeded: Template nesting exceeds 100 levels"] * 3
