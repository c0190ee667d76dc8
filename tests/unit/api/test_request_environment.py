"""The body's ``environment`` and integer arguments on create, as heat-api checks them."""
from __future__ import annotations

from typing import Any

import pytest

T = {"heat_template_version": "2018-08-31",
     "parameters": {"p": {"type": "string", "default": "d"}},
     "resources": {"r": {"type": "OS::Heat::None"}},
     "outputs": {"p": {"value": {"get_param": "p"}}}}


def _post(client: Any, **body: Any) -> Any:
    return client.post("/v1/t1/stacks", json={"stack_name": "env", "template": T, **body})


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


def test_an_out_of_range_timeout_is_a_400_not_a_database_error(client):
    resp = _post(client, timeout_mins=2**31)
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == (
        f"Value '{2**31}' is invalid for 'timeout_mins' which only accepts integer up to "
        f"{2**31 - 1}.")
