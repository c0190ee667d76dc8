"""A lone UTF-16 surrogate (a JSON body's unpaired ``"\\ud800"``) in a body's stored text, on
SQLite and on PostgreSQL alike: no driver encodes it, so a create or an update is a 400 with
Heat's fault body and nothing written, and the CFN API answers AWS's ``ValidationError`` XML.
Inside a JSON document stored as it is (a parameter's value) the escape is kept on both, as an
escaped NUL is (tests/integration/api/test_nul_sqlite.py)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app.models import Event, Stack
from tests.integration.cfn.conftest import Answer, sign

TEMPLATE = {"heat_template_version": "2018-08-31",
            "parameters": {"p": {"type": "string", "default": "x"}},
            "resources": {"r": {"type": "OS::Heat::None"}}}
REFUSED = ("HTTPBadRequest", "Invalid request: a text holds a lone surrogate (\\ud800-\\udfff), "
           "which is not valid Unicode.")


@pytest.fixture(params=["client", "pg_client"])
def api(request: pytest.FixtureRequest) -> Any:
    """The Orchestration API on SQLite, then on PostgreSQL."""
    return request.getfixturevalue(request.param)


@pytest.fixture(params=["db", "pg_db"])
def cfn_api(request: pytest.FixtureRequest) -> Any:
    """The CFN API on SQLite, then on PostgreSQL."""
    from app.cfn import create_app
    return create_app(request.getfixturevalue(request.param)).test_client()


def _fault(resp: Any) -> tuple[int, str, str]:
    body = resp.get_json()
    assert body["code"] == resp.status_code and body["error"]["traceback"] is None, body
    return resp.status_code, body["error"]["type"], body["error"]["message"]


@pytest.mark.parametrize("body", [
    {"stack_name": "s", "template": {**TEMPLATE, "description": "a\ud800b"}},
    {"stack_name": "s", "template": TEMPLATE, "tags": "a,b\udc00"},
    {"stack_name": "s", "template": TEMPLATE, "tags": ["a", "b\ud800"]},
    {"stack_name": "s", "template": {**TEMPLATE, "resources": {
        "r\ud800": {"type": "OS::Heat::None"}}}},
], ids=["description", "tags", "tag-list", "resource-name"])
def test_a_create_with_a_lone_surrogate_is_a_bad_request_and_writes_nothing(
        api: Any, row_count: Any, body: dict[str, Any]) -> None:
    assert _fault(api.post("/v1/admin/stacks", json=body)) == (400, *REFUSED)
    assert (row_count(Stack), row_count(Event)) == (0, 0)


def test_a_stack_name_with_a_lone_surrogate_is_an_invalid_name(api: Any, row_count: Any) -> None:
    resp = api.post("/v1/admin/stacks", json={"stack_name": "s\ud800", "template": TEMPLATE})
    assert _fault(resp) == (400, "StackValidationFailed", 'Invalid stack name s\ud800 must '
                            'contain only alphanumeric or "_-." characters, must start with '
                            'alpha and must be 255 characters or less.')
    assert row_count(Stack) == 0


@pytest.mark.parametrize("method, body", [
    ("put", {"template": {**TEMPLATE, "description": "a\ud800b"}}),
    ("patch", {"tags": "a\udc00"}),
])
def test_an_update_with_a_lone_surrogate_is_a_bad_request_and_changes_nothing(
        api: Any, row_count: Any, method: str, body: dict[str, Any]) -> None:
    created = api.post("/v1/admin/stacks", json={"stack_name": "s", "template": TEMPLATE,
                                                 "tags": "t"})
    assert created.status_code == 201, created.get_data(as_text=True)
    url = f"/v1/admin/stacks/s/{created.get_json()['stack']['id']}"
    events = row_count(Event)
    assert _fault(getattr(api, method)(url, json=body)) == (400, *REFUSED)
    shown = api.get(url).get_json()["stack"]
    assert (shown["stack_status"], shown["description"], shown["tags"]) == (
        "CREATE_COMPLETE", "", ["t"])
    assert row_count(Event) == events


def test_a_lone_surrogate_inside_a_parameter_value_is_kept(api: Any) -> None:
    resp = api.post("/v1/admin/stacks", json={
        "stack_name": "s", "template": TEMPLATE, "parameters": {"p": "a\ud800b"}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    shown = api.get(f"/v1/admin/stacks/s/{resp.get_json()['stack']['id']}").get_json()
    assert shown["stack"]["parameters"]["p"] == "a\ud800b"


def test_the_cfn_api_answers_a_validation_error_and_writes_nothing(cfn_api: Any,
                                                                   row_count: Any) -> None:
    template = json.dumps({**TEMPLATE, "description": "a\ud800b"})
    assert "\\ud800" in template  # the body's escape, as a client's JSON encoder writes it
    body, headers = sign({"Version": "2010-05-15", "Action": "CreateStack", "StackName": "s",
                          "TemplateBody": template})
    answer = Answer(cfn_api.post("/v1/", data=body, headers=headers))
    assert (answer.status, answer.code, answer.text("Error/Message")) == (
        400, "ValidationError", "A bad or out-of-range value was supplied:a text holds a lone "
        "surrogate (\\ud800-\\udfff), which is not valid Unicode")
    assert (row_count(Stack), row_count(Event)) == (0, 0)
