"""The README's wait condition example (``examples/wait-condition.yaml``) through the API: the
stack waits, its ``curl_cli`` output is readable while it waits, and running that command (the
token header and URL it names, with the README's JSON body) completes it."""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "wait-condition.yaml"


@pytest.fixture()
def real(client: Any) -> Any:
    client.application.config["SERVER_NAME"] = "127.0.0.1:8004"
    return client


def _output(real: Any, base: str, key: str) -> Any:
    resp = real.get(f"{base}/outputs/{key}")
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["output"]["output_value"]


def test_the_readme_wait_condition_example(real: Any) -> None:
    resp = real.post("/v1/admin/stacks", json={"stack_name": "waiting",
                                               "template": EXAMPLE.read_text()})
    assert resp.status_code == 201, resp.get_json()
    base = f"/v1/admin/stacks/waiting/{resp.get_json()['stack']['id']}"
    assert real.get(base).get_json()["stack"]["stack_status"] == "CREATE_IN_PROGRESS"

    argv = shlex.split(_output(real, base, "curl_cli"))  # read while the stack waits
    assert argv[:4] == ["curl", "-i", "-X", "POST"]
    headers = dict(h.split(": ", 1) for h in argv[5:-1:2])
    url = argv[-1]
    assert url.startswith("http://127.0.0.1:8004/v1/admin/stacks/waiting/")
    assert url.endswith("/resources/handle/signal") and headers["X-Auth-Token"]

    body = '{"status": "SUCCESS", "data": "hello"}'  # the README's --data-binary
    resp = real.post(url.removeprefix("http://127.0.0.1:8004"), data=body, headers=headers)
    assert resp.status_code == 200, resp.get_data()
    stack = real.get(base).get_json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    assert json.loads(_output(real, base, "data")) == {"1": "hello"}
