"""The body's ``environment`` on create, as heat-api reads it: a bad one is Heat's parse error and
creates nothing; JSON text is read as YAML, and the stored registry always has ``resources``."""
from __future__ import annotations

import pytest

from tests.unit.api.test_request_environment import _post


@pytest.mark.parametrize(("env", "message"), [
    ("parameters: [\n", "Environment not in valid format: while parsing a flow node"),
    ("- a\n", "Environment not in valid format: The environment is not a valid YAML mapping "
              "data type."),
    ({"paramters": {"p": 1}}, 'Environment not in valid format: environment has wrong '
                              'section "paramters"'),
])
def test_a_bad_body_environment_is_heats_parse_error(client, env, message):
    resp = _post(client, environment=env)
    assert resp.status_code == 400
    body = resp.get_json()
    assert body["error"]["type"] == "HTTPBadRequest"
    assert body["error"]["message"].startswith(message), body
    assert client.get("/v1/t1/stacks").get_json()["stacks"] == []


def test_json_text_is_read_as_yaml_and_the_registry_always_has_resources(client):
    resp = _post(client, environment='{"parameters": {"p": "from-env"}}')
    assert resp.status_code == 201, resp.get_json()
    base = resp.headers["Location"].split("localhost", 1)[1]
    outs = client.get(base).get_json()["stack"]["outputs"]
    assert outs == [{"output_key": "p", "output_value": "from-env",
                     "description": "No description given"}]
    env = client.get(f"{base}/environment").get_json()
    assert env["resource_registry"] == {"resources": {}}
