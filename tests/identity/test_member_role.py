"""A user granted only ``member`` (no explicit ``reader``), in keystone mode against the
sandbox's Keystone: Keystone's bootstrap makes ``member`` imply ``reader`` and puts implied
roles in the token, so Heat's policy lets the member list and show its project's stacks (not
only create them); a member of another project asking for that stack under its own project's
URL gets 404 (Heat's ``stack_get`` scopes by project), not 403."""
from __future__ import annotations

from typing import Any

import pytest

from app import config
from tests.identity.conftest import PASSWORD, World, unique
from tests.identity.test_keystone_api import headers


@pytest.fixture()
def world(sandbox_world: World) -> World:
    """The sandbox's Keystone only (its implied roles are what this checks)."""
    return sandbox_world


def _member_only(world: World, name: str, project: str) -> str:
    kc = world.admin()
    if name not in world.users:
        member = next(r for r in kc.roles.list(name="member"))
        user = kc.users.create(name, domain="default", password=PASSWORD,
                               default_project=world.projects[project])
        kc.roles.grant(member, user=user, project=world.projects[project])
        world.users[name] = (user.id, project)
    return world.token(name)


def test_a_member_only_user_lists_and_shows_its_stacks(api: Any, world: World,
                                                       ks_settings: config.Settings) -> None:
    token = _member_only(world, "mia", "alpha")
    roles = world.session("mia").auth.get_access(world.session("mia")).role_names
    assert sorted(roles) == ["member", "reader"]
    alpha = world.projects["alpha"]
    template = {"heat_template_version": "2018-08-31",
                "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
    name = unique("m")
    resp = api.post(f"/v1/{alpha}/stacks", headers=headers(token),
                    json={"stack_name": name, "template": template})
    assert resp.status_code == 201, resp.get_json()
    sid = resp.get_json()["stack"]["id"]
    listed = api.get(f"/v1/{alpha}/stacks", headers=headers(token))
    assert listed.status_code == 200 and name in [s["stack_name"] for s in listed.get_json()["stacks"]]
    assert api.get(f"/v1/{alpha}/stacks/{name}/{sid}", headers=headers(token)).status_code == 200

    other = _member_only(world, "max", "beta")
    beta = world.projects["beta"]
    assert api.get(f"/v1/{beta}/stacks/{name}/{sid}", headers=headers(other)).status_code == 404
    assert api.get(f"/v1/{beta}/stacks/{sid}", headers=headers(other)).status_code == 404
    assert api.delete(f"/v1/{alpha}/stacks/{name}/{sid}", headers=headers(token)).status_code == 204
