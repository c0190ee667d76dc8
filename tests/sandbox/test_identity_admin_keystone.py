"""The sandbox Keystone's administration API for Heat's Keystone types, driven by
python-keystoneclient as Heat drives it: groups and membership, grants for users and groups on
projects and domains, ``GET /role_assignments`` (``include_names``, ``effective``), implied
roles in tokens, regions, services and endpoints in the catalog; Keystone's status codes and
error bodies; what a non-admin is refused; the inventory."""
from __future__ import annotations

import pytest
import requests
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from keystoneclient import exceptions as kc_exc
from keystoneclient.v3 import client as ks_client


def _session(sandbox, user="admin", project="admin", password="sandbox"):
    return ks_session.Session(auth=v3.Password(
        auth_url=sandbox.auth_url, username=user, password=password, user_domain_name="Default",
        project_name=project, project_domain_name="Default"))


def _access(sess):
    return sess.auth.get_access(sess)


@pytest.fixture(scope="module")
def kc(sandbox):
    return ks_client.Client(session=_session(sandbox))


def test_groups_grants_and_role_assignments_with_names(sandbox, kc, no_leaks):
    project = kc.projects.create(name="ka-project", domain="default", tags=["t"])
    child = kc.projects.create(name="ka-child", domain="default", parent=project)
    assert child.parent_id == project.id
    user = kc.users.create(name="ka-user", domain="default", password="pw", default_project=project)
    group = kc.groups.create(name="ka-group", domain="default")
    member = next(r for r in kc.roles.list(name="member"))
    kc.users.add_to_group(user, group)
    kc.users.check_in_group(user, group)
    assert [g.id for g in kc.groups.list(user=user)] == [group.id]
    kc.roles.grant(member, group=group, project=project)
    kc.roles.grant(member, user=user, domain="default")
    kc.roles.check(member, group=group, project=project)
    listed = kc.role_assignments.list(user=user, include_names=True)
    (only,) = listed
    assert only.user["name"] == "ka-user" and only.user["domain"]["name"] == "Default"
    assert only.role["name"] == "member" and only.scope["domain"]["name"] == "Default"
    # effective: the group's grant reaches its member, and member implies reader
    effective = kc.role_assignments.list(user=user, effective=True, project=project)
    assert {a.role["id"] for a in effective} == {member.id, kc.roles.list(name="reader")[0].id}
    # the member's token carries the implied role, as Keystone's
    token = _access(_session(sandbox, "ka-user", "ka-project", "pw"))
    assert sorted(token.role_names) == ["member", "reader"]
    with pytest.raises(kc_exc.Conflict):
        kc.groups.create(name="ka-group", domain="default")
    with pytest.raises(kc_exc.Forbidden):        # a project with children
        kc.projects.delete(project)
    kc.roles.revoke(member, group=group, project=project)
    with pytest.raises(kc_exc.NotFound):
        kc.roles.check(member, group=group, project=project)
    kc.users.remove_from_group(user, group)
    for obj, manager in ((user, kc.users), (group, kc.groups), (child, kc.projects), (project, kc.projects)):
        manager.delete(obj)
    assert kc.role_assignments.list(user=user) == []


def test_implied_roles_as_keystones_bootstrap(kc):
    by_name = {r.name: r.id for r in kc.roles.list()}
    inferences = {i.prior_role["name"]: [r["name"] for r in i.implies]
                  for i in kc.inference_rules.list_inference_roles()}
    assert inferences == {"admin": ["member"], "member": ["reader"]}
    kc.inference_rules.check(by_name["admin"], by_name["member"])
    with pytest.raises(kc_exc.NotFound):
        kc.inference_rules.check(by_name["reader"], by_name["admin"])


def test_regions_services_endpoints_and_the_catalog(sandbox, kc, no_leaks):
    parent = kc.regions.create(id="ka-parent", description="p")
    child = kc.regions.create(id="ka-child", parent_region=parent)
    with pytest.raises(kc_exc.Conflict):
        kc.regions.create(id="ka-parent")
    service = kc.services.create(name="ka-svc", type="ka-type")
    endpoint = kc.endpoints.create(service=service, url="http://ka.example/v1", interface="public",
                                   region=child.id)
    bad = kc.session.post("/endpoints", endpoint_filter={"service_type": "identity"}, raise_exc=False,
                          json={"endpoint": {"service_id": service.id, "url": "http://x", "interface": "nope"}})
    assert bad.status_code == 400
    catalog = _access(_session(sandbox)).service_catalog
    assert catalog.url_for(service_type="ka-type", interface="public", region_name="ka-child") == \
        "http://ka.example/v1"
    with pytest.raises(kc_exc.Forbidden):        # a region with children
        kc.regions.delete(parent)
    kc.endpoints.update(endpoint, enabled=False)
    assert not any(e["type"] == "ka-type" for e in _access(_session(sandbox)).service_catalog.catalog)
    kc.services.delete(service)                  # its endpoints go with it
    with pytest.raises(kc_exc.NotFound):
        kc.endpoints.get(endpoint)
    kc.regions.delete(child)
    kc.regions.delete(parent)


def test_domains_must_be_disabled_before_delete(kc, no_leaks):
    domain = kc.domains.create(name="ka-domain")
    kc.projects.create(name="in-domain", domain=domain)
    with pytest.raises(kc_exc.Forbidden):
        kc.domains.delete(domain)
    kc.domains.update(domain, enabled=False)
    kc.domains.delete(domain)                    # its project goes with it
    assert kc.projects.list(name="in-domain") == []


def test_errors_are_keystones_and_admin_calls_are_refused(sandbox, kc, no_leaks):
    token = _session(sandbox).get_token()
    resp = requests.get(f"{sandbox.auth_url}/groups/nope", headers={"X-Auth-Token": token}, timeout=10)
    assert resp.status_code == 404
    assert resp.json() == {"error": {"code": 404, "message": "Could not find group: nope.", "title": "Not Found"}}
    demo = ks_client.Client(session=_session(sandbox, "demo", "demo"))
    for call in (lambda: demo.groups.create(name="x", domain="default"),
                 lambda: demo.regions.create(id="x"),
                 lambda: demo.services.create(name="x", type="x"),
                 lambda: demo.role_assignments.list()):
        with pytest.raises(kc_exc.Forbidden):
            call()
    assert {r.id for r in demo.regions.list()} >= {"RegionOne"}   # regions are open to all


def test_created_objects_are_in_the_inventory(sandbox, kc):
    before = sandbox.created()
    group = kc.groups.create(name="ka-inv", domain="default")
    user = kc.users.create(name="ka-inv", domain="default")
    kc.users.add_to_group(user, group)
    kc.roles.grant(kc.roles.list(name="reader")[0], user=user, project=kc.projects.list(name="demo")[0])
    made = sandbox.created()
    assert {k for k in made if made[k] - before.get(k, set())} == {"groups", "users", "memberships",
                                                                     "assignments"}
    kc.users.delete(user)
    kc.groups.delete(group)
    assert sandbox.created() == before
