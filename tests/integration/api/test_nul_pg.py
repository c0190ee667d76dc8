"""A NUL character (``%00``) in a request on PostgreSQL, whose text cannot hold one: a URL path
segment is a 404 as a name that does not exist, a query value a 400 with Heat's fault body, a
NUL in a body's stored text a 400 with nothing written; the CFN API answers AWS's
``ValidationError`` XML. Never a 500."""
from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

import pytest

from app.models import Stack
from tests.integration.cfn.conftest import sign

TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"r": {"type": "OS::Heat::None"}}}


def _fault(resp: Any) -> tuple[int, str, str]:
    body = resp.get_json()
    assert body["code"] == resp.status_code and body["error"]["traceback"] is None, body
    return resp.status_code, body["error"]["type"], body["error"]["message"]


@pytest.mark.parametrize("url, name", [
    ("/v1/admin/stacks/a%00b", "Stack (a\x00b)"),
    ("/v1/admin/stacks/a%00b/0f5ee6e1-6d3c-4d5e-8a32-0d7d2e9c8b10/resources", "Stack (a\x00b)"),
])
def test_a_path_segment_with_a_nul_names_no_stack(pg_client: Any, url: str, name: str) -> None:
    assert _fault(pg_client.get(url)) == (404, "EntityNotFound", f"The {name} could not be found.")


def test_a_resource_segment_with_a_nul_names_no_resource(pg_client: Any) -> None:
    created = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": TEMPLATE})
    assert created.status_code == 201, created.get_data(as_text=True)
    stack_id = created.get_json()["stack"]["id"]
    resp = pg_client.get(f"/v1/admin/stacks/s/{stack_id}/resources/r%00")
    assert _fault(resp) == (404, "EntityNotFound", "The Resource (r\x00) could not be found.")


@pytest.mark.parametrize("tail, heat_type, message", [
    ("outputs/o%00", "NotFound", "Specified output key o\x00 not found."),
    ("snapshots/n%00", "SnapshotNotFound", "The Snapshot (n\x00) for Stack (s) could not be found."),
    ("change_sets/c%00", "ChangeSetNotFound", "ChangeSet [c\x00] does not exist"),
])
def test_a_stack_entitys_segment_with_a_nul_is_that_entitys_404(
        pg_client: Any, tail: str, heat_type: str, message: str) -> None:
    created = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": TEMPLATE})
    assert created.status_code == 201, created.get_data(as_text=True)
    stack_id = created.get_json()["stack"]["id"]
    assert _fault(pg_client.get(f"/v1/admin/stacks/s/{stack_id}/{tail}")) == (404, heat_type, message)


def test_a_resource_type_with_a_nul_is_resource_type_not_found(pg_client: Any) -> None:
    assert _fault(pg_client.get("/v1/admin/resource_types/OS::X%00")) == (
        404, "ResourceTypeNotFound", "The Resource Type (OS::X\x00) could not be found.")


@pytest.mark.parametrize("query, key", [
    ("name=a%00b", "name"), ("tags=a%00b", "tags"), ("marker=a%00b", "marker"),
    ("status=CREATE%00", "status"), ("a%00=b", "a\\x00"),
])
def test_a_query_value_with_a_nul_is_a_bad_request(pg_client: Any, query: str, key: str) -> None:
    assert _fault(pg_client.get(f"/v1/admin/stacks?{query}")) == (
        400, "HTTPBadRequest", f"Invalid query parameter '{key}': a NUL character (\\x00) is "
        "not allowed.")


def test_a_nul_in_a_stored_body_value_is_a_bad_request_and_nothing_is_written(
        pg_client: Any, row_count: Any) -> None:
    resp = pg_client.post("/v1/admin/stacks", json={
        "stack_name": "s", "template": {**TEMPLATE, "description": "a\x00b"}})
    assert _fault(resp) == (400, "HTTPBadRequest", "Invalid request: a NUL character (\\x00) "
                            "is not allowed in a stored value.")
    assert row_count(Stack) == 0


def test_the_cfn_api_answers_a_validation_error(pg_cfn: Any) -> None:
    body, headers = sign({"Version": "2010-05-15", "Action": "DescribeStacks",
                          "StackName": "a\x00b"})
    resp = pg_cfn.post("/v1/", data=body, headers=headers)
    assert resp.status_code == 400 and resp.mimetype == "application/xml"
    error = ET.fromstring(resp.data).find("Error")
    assert error is not None
    assert (error.findtext("Type"), error.findtext("Code"), error.findtext("Message")) == (
        "Sender", "ValidationError", "A bad or out-of-range value was supplied:Invalid "
        "parameter 'StackName': a NUL character (\\x00) is not allowed")
