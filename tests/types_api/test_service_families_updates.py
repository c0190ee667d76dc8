"""Updates of the Keystone, Swift and Barbican types that their own modules leave unchanged,
as Heat 27 decides them: a GroupRoleAssignment's roles in place (``update_allowed``); an S3
bucket, a SwiftSignal and the RSA and certificate containers replaced (none of their
properties is ``update_allowed``). A replaced SwiftSignal waits on the same handle, whose
container still holds the signal already sent, so it completes at once, as Heat's. A name
Keystone already has is Keystone's 409, in its words."""
from __future__ import annotations

import json

import pytest
import requests

from tests.types_api.conftest import Api

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  role: {type: string, default: reader}
  acl: {type: string, default: Private}
  timeout: {type: number, default: 60}
  label: {type: string, default: one}
resources:
  group: {type: OS::Keystone::Group}
  assignment:
    type: OS::Keystone::GroupRoleAssignment
    properties: {group: {get_resource: group}, roles: [{role: {get_param: role}, project: demo}]}
  bucket:
    type: AWS::S3::Bucket
    properties: {AccessControl: {get_param: acl}}
  handle: {type: OS::Heat::SwiftSignalHandle}
  signal:
    type: OS::Heat::SwiftSignal
    properties: {handle: {get_resource: handle}, timeout: {get_param: timeout}}
  private: {type: OS::Barbican::Secret, properties: {payload: k, secret_type: private}}
  public: {type: OS::Barbican::Secret, properties: {payload: p, secret_type: public}}
  cert: {type: OS::Barbican::Secret, properties: {payload: c, secret_type: certificate}}
  rsa:
    type: OS::Barbican::RSAContainer
    properties: {name: {get_param: label}, private_key_ref: {get_resource: private},
                 public_key_ref: {get_resource: public}}
  bundle:
    type: OS::Barbican::CertificateContainer
    properties: {name: {get_param: label}, certificate_ref: {get_resource: cert},
                 private_key_ref: {get_resource: private}}
outputs:
  data: {value: {get_attr: [signal, data]}}
  endpoint: {value: {get_attr: [handle, endpoint]}}
"""


def _roles(api: Api, group: str) -> set[str]:
    listed = api.cloud("identity").get("/role_assignments", params={"group.id": group}).json()
    return {a["role"]["id"] for a in listed["role_assignments"]}


def test_the_remaining_types_are_updated_as_heat_decides(api: Api) -> None:
    ids = api.sandbox("GET", "ids")["ids"]
    created = api.heat.stacks.create(stack_name="t-family-updates", template=TEMPLATE)
    stack_id = created["stack"]["id"]
    endpoint = None
    while endpoint is None:   # the handle exists before the signal waits on it
        try:
            endpoint = api.heat.resources.get(stack_id, "handle").attributes["endpoint"]
        except Exception:  # not created yet
            pass
    sent = requests.put(endpoint, data=json.dumps({"status": "SUCCESS", "id": "a", "data": "up"}),
                        timeout=10)
    assert sent.status_code == 201
    stack = api._settled(stack_id, "CREATE_COMPLETE", 60)
    before = {n: r["physical_resource_id"] for n, r in api.resources(stack).items()}
    assert _roles(api, before["group"]) == {ids["role:reader"]}

    stack = api.update(stack, TEMPLATE, {"role": "member", "acl": "PublicRead", "timeout": 90,
                                         "label": "two"})
    after = {n: r["physical_resource_id"] for n, r in api.resources(stack).items()}
    assert after["assignment"] == before["assignment"]               # in place
    assert _roles(api, before["group"]) == {ids["role:member"]}
    for replaced in ("bucket", "rsa", "bundle"):
        assert after[replaced] != before[replaced], replaced
    # a SwiftSignal has no physical id (Heat sets none): its replacement shows in the events
    created = [e for e in api.events(stack) if e["resource_name"] == "signal"
               and e["resource_status"] == "CREATE_COMPLETE"]
    assert len(created) == 2
    assert json.loads(api.output(stack, "data")) == {"a": "up"}
    swift, km = api.cloud("object-store"), api.cloud("key-manager")
    assert swift.head(f"/{before['bucket']}", raise_exc=False).status_code == 404
    assert swift.head(f"/{after['bucket']}").headers["X-Container-Read"] == ".r:*"
    for name in ("rsa", "bundle"):
        old = km.get(f"/v1/containers/{before[name].rsplit('/', 1)[1]}", raise_exc=False)
        assert old.status_code == 404, name
        assert km.get(f"/v1/containers/{after[name].rsplit('/', 1)[1]}").json()["name"] == "two"
    api.delete(stack)


DUPLICATES = """
heat_template_version: 2018-08-31
resources:
  fresh: {type: OS::Keystone::Role}
  project: {type: OS::Keystone::Project, properties: {name: demo}}
  user: {type: OS::Keystone::User, properties: {name: demo}}
  role: {type: OS::Keystone::Role, properties: {name: member}}
  region: {type: OS::Keystone::Region, properties: {id: RegionOne}}
"""


def test_a_name_keystone_already_has_is_keystones_conflict(api: Api) -> None:
    stack = api.create(DUPLICATES, expect="CREATE_FAILED")
    assert api.failures(stack) == {
        "project": "Conflict: resources.project: Conflict occurred attempting to store project - "
                   "Duplicate entry found with name demo at domain ID default.",
        "user": "Conflict: resources.user: Conflict occurred attempting to store user - "
                "Duplicate entry found with name demo at domain ID default.",
        "role": "Conflict: resources.role: Conflict occurred attempting to store role - "
                "Duplicate entry found with name member.",
        "region": "Conflict: resources.region: Conflict occurred attempting to store region - "
                  "Duplicate ID, RegionOne."}
    api.delete(stack)   # the role made before the failures goes too (api_no_leaks)
