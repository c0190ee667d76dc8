"""Resource names PostgreSQL cannot store, refused as a template's error on every path that
writes resources (create, update, change set, the CFN API's create/update/change set): a NUL
character (PostgreSQL's text holds none) or more than 255 characters (the ``resource.name``
column) is a 400 (``StackValidationFailed`` / AWS ``ValidationError``), nothing written, as on
SQLite. A name of 255 characters is a resource."""
from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from sqlalchemy import select

from app.models import Resource, Stack, read_session
from tests.integration.cfn.conftest import sign

NUL, LONG, FITS = "r\x00x", "r" * 256, "f" * 255
MESSAGES = {NUL: "Resource name may not contain a NUL character (\\x00)",
            LONG: f"Resource name {LONG} must be 255 characters or less"}
GOOD = {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "OS::Heat::None"}}}


def hot(name: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31",
            "resources": {name: {"type": "OS::Heat::None"}}}


def cfn_body(name: str) -> str:
    return json.dumps({"AWSTemplateFormatVersion": "2010-09-09",
                       "Resources": {name: {"Type": "OS::Heat::None"}}})


def _fault(resp: Any) -> tuple[int, str, str]:
    body = resp.get_json()
    assert body["code"] == resp.status_code and body["error"]["traceback"] is None, body
    return resp.status_code, body["error"]["type"], body["error"]["message"]


def _aws(cfn: Any, **params: str) -> tuple[int, str | None, str | None]:
    body, headers = sign({"Version": "2010-05-15", **params})
    resp = cfn.post("/v1/", data=body, headers=headers)
    error = ET.fromstring(resp.data).find("Error")
    assert error is not None, resp.data
    return resp.status_code, error.findtext("Code"), error.findtext("Message")


@pytest.mark.parametrize("name", [NUL, LONG], ids=["nul", "long"])
def test_create_refuses_the_name_and_writes_nothing(row_count: Any, pg_client: Any, name: str) -> None:
    resp = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": hot(name)})
    assert _fault(resp) == (400, "StackValidationFailed", MESSAGES[name])
    assert (row_count(Stack), row_count(Resource)) == (0, 0)


@pytest.mark.parametrize("name", [NUL, LONG], ids=["nul", "long"])
def test_update_and_change_set_refuse_the_name(pg_client: Any, name: str) -> None:
    created = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": GOOD})
    assert created.status_code == 201, created.get_data(as_text=True)
    base = f"/v1/admin/stacks/s/{created.get_json()['stack']['id']}"
    for resp in (pg_client.put(base, json={"template": hot(name)}),
                 pg_client.patch(base, json={"template": hot(name)}),
                 pg_client.post(f"{base}/change_sets", json={"name": "c", "template": hot(name)})):
        assert _fault(resp) == (400, "StackValidationFailed", MESSAGES[name])
    with read_session() as s:
        assert s.execute(select(Resource.name)).scalars().all() == ["r"]


@pytest.mark.parametrize("name", [NUL, LONG], ids=["nul", "long"])
def test_the_cfn_api_answers_a_validation_error(row_count: Any, pg_client: Any, pg_cfn: Any, name: str) -> None:
    created = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": GOOD})
    assert created.status_code == 201, created.get_data(as_text=True)
    for params in ({"Action": "CreateStack", "StackName": "t"},
                   {"Action": "UpdateStack", "StackName": "s"},
                   {"Action": "CreateChangeSet", "StackName": "s", "ChangeSetName": "c"},
                   {"Action": "CreateChangeSet", "StackName": "u", "ChangeSetName": "c",
                    "ChangeSetType": "CREATE"}):
        assert _aws(pg_cfn, TemplateBody=cfn_body(name), **params) == (
            400, "ValidationError",
            f"A bad or out-of-range value was supplied:{MESSAGES[name]}"), params
    assert (row_count(Stack), row_count(Resource)) == (1, 1)


def test_a_name_of_255_characters_is_a_resource(pg_client: Any) -> None:
    assert Resource.__table__.c.name.type.length == 255
    resp = pg_client.post("/v1/admin/stacks", json={"stack_name": "s", "template": hot(FITS)})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    with read_session() as s:
        assert s.execute(select(Resource.name)).scalars().all() == [FITS]
