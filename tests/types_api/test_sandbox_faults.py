"""The sandbox's fault injection as docs/sandbox.md describes its outcome, through the API with
real workers: a 500 on a server's create request is retried ``client_retry_limit`` (2) times,
so a server fails, and its stack, only when three tries in a row are refused; the stack's
reason is the cloud's own message. (With ``"rate": 0.3`` on every request, that is 0.3³ ≈
2.7 % of servers, not 30 %.)"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.types_api.conftest import Api

pytestmark = pytest.mark.usefixtures("api_no_leaks")

SERVER = """
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties: {image: cirros, flavor: m1.tiny, networks: [{network: private}]}
"""


@pytest.fixture()
def faults(api: Api) -> Iterator[Any]:
    def add(rule: dict[str, Any]) -> None:
        api.sandbox("POST", "faults", json=rule)
    api.sandbox("DELETE", "requests")
    yield add
    api.sandbox("DELETE", "faults")


def _server_creates(api: Api) -> int:
    return int(api.sandbox("GET", "requests")["requests"].get("compute.POST.servers", 0))


def test_two_refused_server_creates_are_retried_and_the_stack_completes(api: Api, faults):
    faults({"match": "compute.POST.servers", "status": 500, "times": 2})
    stack = api.create(SERVER)
    assert _server_creates(api) == 3
    api.delete(stack)


def test_three_refused_server_creates_fail_the_server_and_its_stack(api: Api, faults):
    faults({"match": "compute.POST.servers", "status": 500, "times": 3,
            "message": "nova-api is restarting"})
    stack = api.create(SERVER, expect="CREATE_FAILED")
    assert _server_creates(api) == 3
    reason = api.resources(stack)["server"]["resource_status_reason"]
    assert reason == "InternalServerError: resources.server: nova-api is restarting"
    assert stack["stack_status_reason"] == f"Resource CREATE failed: {reason}"
    api.delete(stack)
