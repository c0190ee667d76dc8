"""Bad input refused by the API before the services reach the store: a template over the size
limit on every path (Heat's RequestLimitExceeded), an unknown sort direction."""
from __future__ import annotations

import pytest

BASE = "/v1/bad/stacks"


def test_validate_applies_the_size_limit_to_json_templates(client):
    big = {"heat_template_version": "2018-08-31", "description": "x" * 600000}
    r = client.post("/v1/bad/validate", json={"template": big})
    assert r.status_code == 400 and "exceeds maximum allowed size" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("path", ["/v1/bad/validate", "/v1/bad/stacks",
                                  "/v1/bad/stacks/preview"])
def test_oversized_template_is_request_limit_exceeded_on_every_path(client, path):
    # heat-api checks the size in InstantiationData.template(), before the engine, so validate
    # answers RequestLimitExceeded as create does (not the engine's HTTPBadRequest wrapping)
    big = {"heat_template_version": "2018-08-31", "description": "x" * 600000}
    r = client.post(path, json={"stack_name": "big", "template": big})
    assert r.status_code == 400
    error = r.get_json()["error"]
    assert error["type"] == "RequestLimitExceeded"
    assert error["message"].startswith("Request limit exceeded: Template size (")
    assert error["message"].endswith("exceeds maximum allowed size (524288 bytes).")


def test_unknown_sort_direction(client):
    assert client.get(BASE + "?sort_dir=sideways").status_code == 400
