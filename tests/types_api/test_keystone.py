"""The ten OS::Keystone::* types through the API with real workers: one stack of all of them is
created, updated (in place: a project's description and enabled flag, a user's groups and
roles, a service's name; replaced: a Region's ``id`` and a Role's ``domain``, which Heat 27 does
not update in place) and deleted, leaving the sandbox's Keystone as it was; bad input (an
unknown role or project) is Heat's validation error with nothing made. The keystone corpus
templates (heat-templates/hot/keystone) run too: keystone.yaml updated to keystone_updated.yaml,
and the single-type ones with parameters."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from heatclient import exc

pytestmark = pytest.mark.usefixtures("api_no_leaks")

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "heat-templates" / "hot" / "keystone"

TEMPLATE = """
heat_template_version: 2021-04-16
parameters:
  project_description: {type: string, default: first}
  project_enabled: {type: boolean, default: true}
  phase: {type: string, default: one}
  region_id: {type: string, default: ks-region-a}
  role_domain: {type: string, default: ""}
  service_name: {type: string, default: ks-svc}
  domain_enabled: {type: boolean, default: true}
conditions:
  has_groups: {equals: [{get_param: phase}, two]}
  role_in_domain: {not: {equals: [{get_param: role_domain}, ""]}}
resources:
  domain:
    type: OS::Keystone::Domain
    properties: {name: ks-domain, description: a domain, enabled: {get_param: domain_enabled}}
  project:
    type: OS::Keystone::Project
    properties:
      name: ks-project
      description: {get_param: project_description}
      enabled: {get_param: project_enabled}
      tags: [a, b]
  child:
    type: OS::Keystone::Project
    properties: {name: ks-child, parent: {get_resource: project}}
  role:
    type: OS::Keystone::Role
    properties:
      name: ks-role
      domain: {if: [role_in_domain, {get_param: role_domain}, null]}
  group:
    type: OS::Keystone::Group
    properties:
      name: ks-group
      roles: [{role: {get_resource: role}, project: {get_resource: project}}]
  other_group:
    type: OS::Keystone::Group
    properties: {name: ks-group-2, domain: {get_resource: domain}}
  user:
    type: OS::Keystone::User
    properties:
      name: ks-user
      password: secret
      email: u@example.com
      default_project: {get_resource: project}
      groups: {if: [has_groups, [{get_resource: other_group}], [{get_resource: group}]]}
      roles:
        if:
          - has_groups
          - [{role: reader, domain: default}, {role: member, project: {get_resource: child}}]
          - [{role: member, project: {get_resource: project}}]
  user_roles:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: demo
      roles: [{role: {get_resource: role}, project: demo}]
  group_roles:
    type: OS::Keystone::GroupRoleAssignment
    properties:
      group: {get_resource: group}
      roles: [{role: reader, domain: default}]
  region:
    type: OS::Keystone::Region
    properties: {id: {get_param: region_id}, description: a region}
  service:
    type: OS::Keystone::Service
    properties: {name: {get_param: service_name}, type: ks-test, description: a service}
  endpoint:
    type: OS::Keystone::Endpoint
    properties:
      service: {get_resource: service}
      region: {get_resource: region}
      interface: public
      url: http://ks.example.com/v1
outputs:
  project_id: {value: {get_resource: project}}
  child_parent: {value: {get_attr: [child, parent_id]}}
  project_enabled: {value: {get_attr: [project, enabled]}}
  user_id: {value: {get_resource: user}}
  user_project: {value: {get_attr: [user, default_project_id]}}
  role_id: {value: {get_resource: role}}
  group_id: {value: {get_resource: group}}
  other_group_id: {value: {get_resource: other_group}}
  region_id: {value: {get_resource: region}}
  service_id: {value: {get_resource: service}}
  domain_show: {value: {get_attr: [domain, show, name]}}
  assignment_ref: {value: {get_resource: user_roles}}
"""


def _ks(api: Any) -> Any:
    return api.cloud("identity")


def _assignments(api: Any, **params: str) -> set[tuple[str, str]]:
    listed = _ks(api).get("/role_assignments", params=params).json()["role_assignments"]
    return {(a["role"]["id"], (a["scope"].get("project") or a["scope"].get("domain"))["id"]) for a in listed}


def _ids(api: Any) -> dict[str, str]:
    return api.sandbox("GET", "ids")["ids"]


def test_every_keystone_type_is_created_updated_and_deleted(api: Any) -> None:
    ks, ids = _ks(api), _ids(api)
    stack = api.create(TEMPLATE)
    out = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    project, user, role = out["project_id"], out["user_id"], out["role_id"]
    assert out["child_parent"] == project and out["project_enabled"] is True
    assert out["user_project"] == project and out["domain_show"] == "ks-domain"
    assert out["region_id"] == "ks-region-a" and out["assignment_ref"] == "user_roles"
    shown = ks.get(f"/projects/{project}").json()["project"]
    assert (shown["description"], shown["tags"]) == ("first", ["a", "b"])
    assert [g["id"] for g in ks.get(f"/users/{user}/groups").json()["groups"]] == [out["group_id"]]
    assert _assignments(api, **{"user.id": user}) == {(ids["role:member"], project)}
    assert _assignments(api, **{"user.id": ids["user:demo"], "role.id": role}) == {(role, ids["project:demo"])}
    assert _assignments(api, **{"group.id": out["group_id"]}) == {(role, project), (ids["role:reader"], "default")}
    # the service and its endpoint are in a token's catalog
    catalog = ks.get("/auth/catalog").json()["catalog"]
    entry = next(e for e in catalog if e["type"] == "ks-test")
    assert entry["id"] == out["service_id"] and entry["endpoints"][0]["region_id"] == "ks-region-a"

    stack = api.update(stack, TEMPLATE, {
        "project_description": "second", "project_enabled": False, "phase": "two",
        "region_id": "ks-region-b", "role_domain": "default", "service_name": "ks-svc-2",
        "domain_enabled": False})   # Keystone deletes a disabled domain only
    after = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert (after["project_id"], after["user_id"], after["service_id"]) == (project, user, out["service_id"])
    assert after["project_enabled"] is False
    assert ks.get(f"/projects/{project}").json()["project"]["description"] == "second"
    assert [g["id"] for g in ks.get(f"/users/{user}/groups").json()["groups"]] == [after["other_group_id"]]
    child = ks.get("/projects", params={"name": "ks-child"}).json()["projects"][0]["id"]
    assert _assignments(api, **{"user.id": user}) == {(ids["role:reader"], "default"), (ids["role:member"], child)}
    # replaced: the region (a new id) and the role (a domain now)
    assert after["region_id"] == "ks-region-b" and after["role_id"] != role
    assert ks.get("/regions/ks-region-a", raise_exc=False).status_code == 404
    new_role = ks.get(f"/roles/{after['role_id']}").json()["role"]
    assert new_role["domain_id"] == "default" and ks.get(f"/roles/{role}", raise_exc=False).status_code == 404
    assert ks.get(f"/services/{out['service_id']}").json()["service"]["name"] == "ks-svc-2"
    api.delete(stack)
    assert _assignments(api, **{"user.id": ids["user:demo"]}) == {
        (ids["role:member"], ids["project:demo"]), (ids["role:reader"], ids["project:demo"])}
    assert not any(e["type"] == "ks-test" for e in ks.get("/auth/catalog").json()["catalog"])


BAD = """
heat_template_version: 2021-04-16
resources:
  project:
    type: OS::Keystone::Project
    properties: {name: ks-bad}
  assignment:
    type: OS::Keystone::UserRoleAssignment
    properties:
      user: demo
      roles: [{role: %s, project: %s}]
"""


@pytest.mark.parametrize(("role", "project", "message"), [
    ("no-such-role", "demo", "resources.assignment.properties.roles[0].role: Error validating value "
                             "'no-such-role': The KeystoneRole (no-such-role) could not be found."),
    ("member", "no-such-project", "resources.assignment.properties.roles[0].project: Error validating "
                                  "value 'no-such-project': The KeystoneProject (no-such-project) could not "
                                  "be found."),
])
def test_an_unknown_role_or_project_is_heats_error(api: Any, role: str, project: str, message: str) -> None:
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.create(BAD % (role, project))
    assert message in str(err.value)


def _corpus(name: str) -> str:
    return (CORPUS / name).read_text()


def test_the_keystone_corpus_templates_run(api: Any) -> None:
    stack = api.create(_corpus("keystone.yaml"))
    stack = api.update(stack, _corpus("keystone_updated.yaml"))
    out = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    user = _ks(api).get(f"/users/{out['test_user_a_id']}").json()["user"]
    assert (user["name"], user["enabled"], user["default_project_id"]) == (
        "test_user_a_updated", False, out["test_project_b_id"])
    api.delete(stack)
    singles = [
        ("keystone_domain.yaml", {"domain_name": "corpus-domain", "domain_enabled": False}),
        ("keystone_role.yaml", {"role_name": "corpus-role"}),
        ("keystone_service.yaml", {"name": "corpus-svc", "description": "d", "type": "corpus"}),
        ("keystone_region.yaml", {"region_id": "corpus-child", "parent_region_id": "corpus-parent"}),
        ("keystone_project.yaml", {"project_name": "corpus-p", "project_description": "d",
                                   "project_enabled": True, "project_domain": "default"}),
        ("keystone_group.yaml", {"group_name": "corpus-g", "group_description": "d", "group_domain": "default",
                                 "group_role": "member", "group_role_domain": "default",
                                 "group_role_project": "demo"}),
        ("keystone_user.yaml", {"user_name": "corpus-u", "user_description": "d", "user_enabled": True,
                                "user_domain": "default", "user_email": "e@x", "user_password": "p",
                                "user_default_project": "demo", "user_groups": "", "group_role": "reader",
                                "group_role_domain": "default", "group_role_project": "demo"}),
    ]
    for name, params in singles:
        api.delete(api.create(_corpus(name), params))


def test_a_role_with_a_project_and_a_domain_is_heats_error(api: Any) -> None:
    template = BAD.replace("project: %s", "project: %s, domain: default") % ("member", "demo")
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.create(template)
    assert "Cannot define the following properties at the same time: project, domain." in str(err.value)
