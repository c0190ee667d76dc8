"""Keystone v3 of the sandbox, driven by keystoneauth, python-keystoneclient and openstacksdk."""
from __future__ import annotations

import json
import time

import pytest
import requests
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from keystoneclient.contrib.ec2.utils import Ec2Signer
from keystoneclient.v3 import client as ks_client


def password_session(sandbox, user="admin", project="admin", **extra):
    auth = v3.Password(auth_url=sandbox.auth_url, username=user, password="sandbox", user_domain_name="Default",
                       **({"project_name": project, "project_domain_name": "Default"} if project else {}), **extra)
    return ks_session.Session(auth=auth)


@pytest.fixture(scope="module")
def kc(sandbox):
    return ks_client.Client(session=password_session(sandbox))


def test_version_discovery(sandbox):
    doc = requests.get(f"{sandbox.url}/identity").json()
    assert doc["versions"]["values"][0]["id"].startswith("v3")
    assert requests.get(sandbox.auth_url).json()["version"]["status"] == "stable"


def test_password_token_has_catalog_of_every_service(sandbox):
    access = password_session(sandbox).auth.get_access(password_session(sandbox))
    types = {s["type"] for s in access.service_catalog.catalog}
    assert {"identity", "compute", "network", "volumev3", "block-storage", "image", "load-balancer",
            "alarming"} <= types
    assert access.project_name == "admin" and "admin" in access.role_names
    url = access.service_catalog.url_for(service_type="compute", interface="public")
    assert url == f"{sandbox.url}/compute/v2.1"


def test_wrong_password_is_401(sandbox):
    sess = ks_session.Session(auth=v3.Password(auth_url=sandbox.auth_url, username="admin", password="nope",
                                               user_domain_name="Default", project_name="admin",
                                               project_domain_name="Default"))
    with pytest.raises(ks_exc.Unauthorized):
        sess.get_token()


def test_token_validation_as_keystonemiddleware_does(sandbox, kc):
    user_sess = password_session(sandbox, "demo", "demo")
    token = user_sess.get_token()
    access = kc.tokens.validate(token)
    assert access.username == "demo" and access.project_name == "demo"
    assert "admin" not in access.role_names
    resp = requests.get(f"{sandbox.auth_url}/auth/tokens", headers={"X-Auth-Token": kc.session.get_token(),
                                                                     "X-Subject-Token": "bogus"})
    assert resp.status_code == 404
    kc.tokens.revoke_token(token)
    with pytest.raises(ks_exc.NotFound):
        kc.tokens.validate(token)


def test_token_method_rescopes(sandbox):
    unscoped = password_session(sandbox, project=None)
    token = unscoped.get_token()
    auth = v3.Token(auth_url=sandbox.auth_url, token=token, project_name="admin", project_domain_name="Default")
    access = auth.get_access(ks_session.Session())
    assert access.project_name == "admin" and access.auth_token != token


def test_unauthenticated_service_call_is_401(sandbox):
    resp = requests.get(f"{sandbox.url}/compute/v2.1/servers", headers={"X-Auth-Token": "nope"})
    assert resp.status_code == 401
    resp = requests.get(f"{sandbox.url}/network/v2.0/networks")
    assert resp.status_code == 401 and "NeutronError" in resp.json()


def test_projects_users_roles_for_a_service_user(conn, no_leaks):
    project = conn.identity.create_project(name="svc-test", domain_id="default")
    user = conn.identity.create_user(name="svc-user", password="pw", default_project_id=project.id,
                                     domain_id="default")
    role = conn.identity.find_role("service")
    conn.identity.assign_project_role_to_user(project, user, role)
    assert conn.identity.validate_user_has_project_role(project, user, role)
    sess = ks_session.Session(auth=v3.Password(auth_url=conn.session.auth.auth_url, username="svc-user",
                                               password="pw", user_domain_name="Default",
                                               project_id=project.id))
    assert sess.auth.get_access(sess).role_names == ["service"]
    assert [p.name for p in conn.identity.user_projects(user)] == ["svc-test"]
    conn.identity.unassign_project_role_from_user(project, user, role)
    conn.identity.delete_user(user)
    conn.identity.delete_project(project)
    assert conn.identity.find_project("svc-test") is None


def test_duplicate_project_is_409(conn):
    from openstack import exceptions
    with pytest.raises(exceptions.ConflictException):
        conn.identity.create_project(name="admin", domain_id="default")


def test_trusts_with_impersonation_and_role_delegation(sandbox, kc):
    admin_id = kc.session.get_user_id()
    project_id = kc.session.get_project_id()
    trustee = kc.users.find(name="stoker")
    trust = kc.trusts.create(trustor_user=admin_id, trustee_user=trustee.id, project=project_id,
                             role_names=["member"], impersonation=True)
    assert [t.id for t in kc.trusts.list(trustor_user=admin_id)] == [trust.id]
    assert kc.trusts.get(trust.id).impersonation is True
    trust_auth = v3.Password(auth_url=sandbox.auth_url, username="stoker", password="sandbox",
                             user_domain_name="Default", trust_id=trust.id)
    access = trust_auth.get_access(ks_session.Session())
    assert access.user_id == admin_id          # impersonation: the token is the trustor's
    assert access.trust_id == trust.id and access.is_federated is False
    assert access.role_names == ["member"]     # only the delegated role
    assert access.project_id == project_id
    # a role the trustor does not hold cannot be delegated
    with pytest.raises(ks_exc.Forbidden):
        kc.trusts.create(trustor_user=admin_id, trustee_user=trustee.id, project=project_id,
                         role_names=["heat_stack_user"])
    # someone who is not the trustee cannot use the trust
    demo = v3.Password(auth_url=sandbox.auth_url, username="demo", password="sandbox",
                       user_domain_name="Default", trust_id=trust.id)
    with pytest.raises(ks_exc.Forbidden):
        demo.get_access(ks_session.Session())
    token = access.auth_token
    kc.trusts.delete(trust)
    resp = requests.get(f"{sandbox.url}/network/v2.0/networks", headers={"X-Auth-Token": token})
    assert resp.status_code == 401   # deleting the trust revokes its tokens


def test_trust_without_impersonation_and_remaining_uses(sandbox, kc):
    admin_id = kc.session.get_user_id()
    trustee = kc.users.find(name="stoker")
    trust = kc.trusts.create(trustor_user=admin_id, trustee_user=trustee.id, project=kc.session.get_project_id(),
                             role_names=["admin"], impersonation=False, remaining_uses=1)
    auth = v3.Password(auth_url=sandbox.auth_url, username="stoker", password="sandbox",
                       user_domain_name="Default", trust_id=trust.id)
    assert auth.get_access(ks_session.Session()).user_id == trustee.id
    again = v3.Password(auth_url=sandbox.auth_url, username="stoker", password="sandbox",
                        user_domain_name="Default", trust_id=trust.id)
    with pytest.raises(ks_exc.Unauthorized):
        again.get_access(ks_session.Session())
    kc.trusts.delete(trust)


def test_ec2_credentials_and_ec2tokens(sandbox, kc):
    user_id, project_id = kc.session.get_user_id(), kc.session.get_project_id()
    cred = kc.credentials.create(user=user_id, type="ec2", project=project_id,
                                 blob=json.dumps({"access": "AKSANDBOX", "secret": "s3cret"}))
    assert cred.id and json.loads(kc.credentials.get(cred.id).blob)["access"] == "AKSANDBOX"
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2", "AWSAccessKeyId": "AKSANDBOX",
              "Timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "Action": "ListStacks"}
    creds = {"access": "AKSANDBOX", "host": "127.0.0.1:8000", "verb": "GET", "path": "/v1", "params": params,
             "headers": {}, "body_hash": ""}
    creds["signature"] = Ec2Signer("s3cret").generate(creds)
    resp = requests.post(f"{sandbox.auth_url}/ec2tokens", json={"credentials": creds})
    assert resp.status_code == 200 and resp.headers["X-Subject-Token"]
    assert resp.json()["token"]["user"]["id"] == user_id
    creds["signature"] = "forged"
    assert requests.post(f"{sandbox.auth_url}/ec2tokens", json={"credentials": creds}).status_code == 401
    ec2 = kc.ec2.create(user_id, project_id)
    assert [c.access for c in kc.ec2.list(user_id) if c.access == ec2.access]
    kc.ec2.delete(user_id, ec2.access)
    kc.credentials.delete(cred.id)
    assert not [c for c in kc.credentials.list() if c.id == cred.id]


def test_extra_catalog_entries_get_the_project_substituted():
    from tests.sandbox.conftest import start_sandbox
    handle = start_sandbox(extra_catalog=[{"type": "orchestration", "name": "heat",
                                           "url": "http://127.0.0.1:8004/v1/%(tenant_id)s"}])
    try:
        sess = password_session(handle)
        url = sess.get_endpoint(service_type="orchestration", interface="public")
        assert url == f"http://127.0.0.1:8004/v1/{sess.get_project_id()}"
    finally:
        handle.server.shutdown()


def test_services_endpoints_regions(conn):
    services = {s.type: s for s in conn.identity.services()}
    assert {"compute", "network", "identity"} <= set(services)
    endpoints = list(conn.identity.endpoints(service_id=services["compute"].id))
    assert {e.interface for e in endpoints} == {"public", "internal", "admin"}
    assert [r.id for r in conn.identity.regions()] == ["RegionOne"]
