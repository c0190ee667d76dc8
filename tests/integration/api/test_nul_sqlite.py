"""A NUL character in a body's stored text on SQLite, the embedded default: refused as
PostgreSQL refuses it (tests/integration/api/test_nul_pg.py), a 400 with Heat's fault body and
nothing written; the CFN API answers AWS's ``ValidationError`` XML. A NUL escaped inside a JSON
document (a parameter's value, which is stored as JSON) is kept, as PostgreSQL's ``json``
columns keep it."""
from __future__ import annotations

import json
from typing import Any

from app.models import Stack
from tests.integration.cfn.conftest import Answer, sign

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "OS::Heat::None"}}}


def test_a_nul_in_a_stored_text_is_a_bad_request_and_nothing_is_written(client: Any,
                                                                         row_count: Any) -> None:
    resp = client.post("/v1/admin/stacks", json={
        "stack_name": "s", "template": {**TEMPLATE, "description": "a\x00b"}})
    body = resp.get_json()
    assert resp.status_code == 400, body
    assert (body["error"]["type"], body["error"]["message"]) == (
        "HTTPBadRequest", "Invalid request: a NUL character (\\x00) is not allowed in a stored "
        "value.")
    assert row_count(Stack) == 0


def test_a_nul_inside_a_json_document_is_kept(client: Any) -> None:
    template = {**TEMPLATE, "parameters": {"p": {"type": "string"}},
                "outputs": {"o": {"value": {"get_param": "p"}}}}
    resp = client.post("/v1/admin/stacks", json={
        "stack_name": "s", "template": template, "parameters": {"p": "a\x00b"}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    shown = client.get(f"/v1/admin/stacks/s/{resp.get_json()['stack']['id']}").get_json()
    assert shown["stack"]["parameters"]["p"] == "a\x00b"


def test_the_cfn_api_answers_a_validation_error_and_writes_nothing(db: Any,
                                                                   row_count: Any) -> None:
    from app.cfn import create_app
    body, headers = sign({"Version": "2010-05-15", "Action": "CreateStack", "StackName": "s",
                          "TemplateBody": json.dumps({**TEMPLATE, "description": "a\x00b"})})
    answer = Answer(create_app(db).test_client().post("/v1/", data=body, headers=headers))
    assert (answer.status, answer.code) == (400, "ValidationError")
    assert "a NUL character (\\x00) is not allowed in a stored value" in (
        answer.text("Error/Message") or "")
    assert row_count(Stack) == 0
