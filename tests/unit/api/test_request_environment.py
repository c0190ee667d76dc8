"""Integer arguments on create, as heat-api checks them: ``timeout_mins`` beyond a 32-bit integer
is a 400 before anything reaches the store."""
from __future__ import annotations

from typing import Any

T = {"heat_template_version": "2018-08-31",
     "parameters": {"p": {"type": "string", "default": "d"}},
     "resources": {"r": {"type": "OS::Heat::None"}},
     "outputs": {"p": {"value": {"get_param": "p"}}}}


def _post(client: Any, **body: Any) -> Any:
    return client.post("/v1/t1/stacks", json={"stack_name": "env", "template": T, **body})


def test_an_out_of_range_timeout_is_a_400_not_a_database_error(client):
    resp = _post(client, timeout_mins=2**31)
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == (
        f"Value '{2**31}' is invalid for 'timeout_mins' which only accepts integer up to "
        f"{2**31 - 1}.")
