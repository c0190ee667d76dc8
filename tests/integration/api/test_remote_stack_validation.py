"""OS::Heat::Stack is validated at stack create as Heat's ``RemoteStack.validate``: a region
that is not this cloud's and a child template that does not parse are 400s with Heat's words,
and nothing is created."""
from __future__ import annotations

REMOTE = "heat_template_version: 2013-05-23\nresources:\n  random1:\n    type: OS::Heat::RandomString\n"


def _template(region: str, child: str) -> dict:
    return {"heat_template_version": "2013-05-23", "resources": {"my_stack": {
        "type": "OS::Heat::Stack",
        "properties": {"context": {"region_name": region}, "template": child}}}}


def test_bad_region_and_bad_child_are_400s(client):
    child = REMOTE
    resp = client.post("/v1/admin/stacks", json={"stack_name": "r1",
                                                 "template": _template("DARKHOLE", child)})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == (
        'Cannot establish connection to Heat endpoint at region "DARKHOLE" due to '
        '"public endpoint for orchestration service in DARKHOLE region not found"')
    resp = client.post("/v1/admin/stacks", json={
        "stack_name": "r2", "template": _template("RegionOne", child.replace("resources", "resource"))})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == (
        'Failed validating stack template using Heat endpoint at region "RegionOne" due to '
        '"ERROR: The template section is invalid: resource"')
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
