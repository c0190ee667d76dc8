"""Heat's resource type policy: admin-only types (OS::Neutron::Quota, Segment, the QoS types,
OS::Keystone::* ...) are refused for a non-admin on stack create and update with Heat's
``Forbidden`` "You are not authorized to use <type>." (403), and nothing is created."""
from __future__ import annotations

from typing import Any

QUOTA = """
heat_template_version: 2018-08-31
resources:
  quota: {type: OS::Neutron::Quota, properties: {project: demo, network: 5}}
"""
OPEN = """
heat_template_version: 2018-08-31
resources:
  value: {type: OS::Heat::None}
"""
MEMBER = {"X-Roles": "member", "X-Project-Id": "beta"}


def test_a_member_may_not_use_an_admin_type(client: Any) -> None:
    resp = client.post("/v1/beta/stacks", headers=MEMBER, json={"stack_name": "q", "template": QUOTA})
    body = resp.get_json()
    assert resp.status_code == 403, body
    assert body["error"]["type"] == "Forbidden"
    assert body["error"]["message"] == "You are not authorized to use OS::Neutron::Quota."
    assert client.get("/v1/beta/stacks", headers=MEMBER).get_json()["stacks"] == []


def test_a_member_may_not_update_to_an_admin_type(client: Any) -> None:
    created = client.post("/v1/beta/stacks", headers=MEMBER, json={"stack_name": "s", "template": OPEN})
    assert created.status_code == 201, created.get_json()
    stack_id = created.get_json()["stack"]["id"]
    resp = client.put(f"/v1/beta/stacks/s/{stack_id}", headers=MEMBER, json={"template": QUOTA})
    assert resp.status_code == 403
    assert resp.get_json()["error"]["message"] == "You are not authorized to use OS::Neutron::Quota."
