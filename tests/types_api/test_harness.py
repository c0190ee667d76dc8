"""The harness itself, on types that exist everywhere: a stack of a network and a generated
value is created, updated (a value replaced, the network renamed in place) and deleted through
the API, and the sandbox is left as it was."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  net_name: {type: string}
  length: {type: number, default: 8}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: {get_param: net_name}}
  value:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  net_id: {value: {get_resource: net}}
  value: {value: {get_attr: [value, value]}}
"""


def test_a_stack_is_created_updated_and_deleted_through_the_api(api: Any) -> None:
    stack = api.create(TEMPLATE, {"net_name": "harness-a"})
    net_id, value = api.output(stack, "net_id"), api.output(stack, "value")
    assert len(value) == 8
    live = api.cloud("network").get(f"/v2.0/networks/{net_id}").json()["network"]
    assert live["name"] == "harness-a"

    stack = api.update(stack, TEMPLATE, {"net_name": "harness-b", "length": 12})
    assert api.output(stack, "net_id") == net_id          # renamed in place (update_allowed)
    assert len(api.output(stack, "value")) == 12          # length forces a replacement
    assert api.cloud("network").get(f"/v2.0/networks/{net_id}").json()["network"]["name"] == "harness-b"
    assert {r["resource_status"] for r in api.resources(stack).values()} == {"UPDATE_COMPLETE",
                                                                             "CREATE_COMPLETE"}
    api.delete(stack)
