"""Magnum, Manila and Trove types through the API with real workers: one stack of every type
(and Heat's HIDDEN OS::Magnum::Bay and BayModel) created, updated (a cluster's node_count, a
share's access rules, an instance's flavor and volume size in place; a share's size replaced,
as Heat's ``size`` is not update_allowed) and deleted with nothing left; bad input answered as
Heat answers it; the corpus's Magnum template created and deleted."""
from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from heatclient import exc

pytestmark = pytest.mark.usefixtures("api_no_leaks")

CORPUS = Path("/work/shared/corpus/heat-templates/hot/magnum/create_coe_cluster.yaml")
DELAYS = {"cluster_create": 0.3, "cluster_update": 0.2, "cluster_delete": 0.1, "share_create": 0.2,
          "share_extend": 0.1, "share_delete": 0.1, "db_build": 0.3, "db_resize": 0.2, "db_delete": 0.1}

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  suffix: {type: string}
  node_count: {type: number, default: 1}
  share_size: {type: number, default: 1}
  rules: {type: json, default: [{access_type: ip, access_to: 10.0.0.0/24, access_level: ro}]}
  db_flavor: {type: string, default: m1.small}
  db_size: {type: number, default: 1}
  ldap_server: {type: string, default: ldap.example.org}
  public: {type: boolean, default: false}
  specs: {type: json, default: {replication_type: readable}}
  snet_name: {type: string, default: snet-a}
  users: {type: json, default: [{name: appuser, password: secret1, databases: [app]}]}
  member_size: {type: number, default: 1}
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: {list_join: ['-', [key, {get_param: suffix}]]}}
  ct:
    type: OS::Magnum::ClusterTemplate
    properties:
      coe: kubernetes
      image: ubuntu-24.04
      external_network: public
      keypair: {get_resource: key}
      flavor: m1.small
      volume_driver: cinder
      public: {get_param: public}
  cluster:
    type: OS::Magnum::Cluster
    properties:
      cluster_template: {get_resource: ct}
      node_count: {get_param: node_count}
  bay:
    type: OS::Magnum::Bay
    properties: {baymodel: anything, node_count: 3}
  baymodel:
    type: OS::Magnum::BayModel
    properties: {coe: swarm, image: fedora-40, external_network: public, ssh_authorized_key: x}
  stype:
    type: OS::Manila::ShareType
    properties:
      name: {list_join: ['-', [type, {get_param: suffix}]]}
      driver_handles_share_servers: true
      extra_specs: {get_param: specs}
  net:
    type: OS::Neutron::Net
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.77.0.0/24}
  ldap:
    type: OS::Manila::SecurityService
    properties: {type: ldap, server: {get_param: ldap_server}}
  snet:
    type: OS::Manila::ShareNetwork
    properties:
      neutron_network: {get_resource: net}
      neutron_subnet: {get_resource: subnet}
      security_services: [{get_resource: ldap}]
      name: {get_param: snet_name}
  share:
    type: OS::Manila::Share
    properties:
      share_protocol: NFS
      size: {get_param: share_size}
      share_type: {get_resource: stype}
      share_network: {get_resource: snet}
      access_rules: {get_param: rules}
  db:
    type: OS::Trove::Instance
    properties:
      flavor: {get_param: db_flavor}
      size: {get_param: db_size}
      datastore_type: mysql
      datastore_version: "8.0"
      databases: [{name: app}]
      users: {get_param: users}
  dbc:
    type: OS::Trove::Cluster
    properties:
      datastore_type: mysql
      datastore_version: "8.0"
      instances:
        - {flavor: m1.small, volume_size: {get_param: member_size}}
        - {flavor: m1.small, volume_size: {get_param: member_size}}
outputs:
  ct: {value: {get_resource: ct}}
  stype: {value: {get_resource: stype}}
  snet: {value: {get_resource: snet}}
  dbc: {value: {get_resource: dbc}}
  cluster: {value: {get_resource: cluster}}
  api_address: {value: {get_attr: [cluster, api_address]}}
  node_addresses: {value: {get_attr: [cluster, node_addresses]}}
  coe_version: {value: {get_attr: [cluster, coe_version]}}
  share: {value: {get_resource: share}}
  exports: {value: {get_attr: [share, export_locations]}}
  share_status: {value: {get_attr: [share, status]}}
  db: {value: {get_resource: db}}
  hostname: {value: {get_attr: [db, hostname]}}
  href: {value: {get_attr: [db, href]}}
  members: {value: {get_attr: [dbc, instances]}}
  bay: {value: {get_resource: bay}}
"""


@pytest.fixture(autouse=True)
def _fast(api: Any) -> None:
    api.sandbox("PUT", "behaviour", json={"delays": DELAYS})


def test_every_type_is_created_updated_and_deleted(api: Any) -> None:
    suffix = uuid.uuid4().hex[:6]
    stack = api.create(TEMPLATE, {"suffix": suffix})
    out = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert out["api_address"].startswith("https://") and len(out["node_addresses"]) == 1
    assert out["coe_version"] and out["share_status"] == "available"
    assert out["exports"] and ":/share_" in out["exports"][0]
    assert out["href"].endswith(f"/instances/{out['db']}") and out["hostname"]
    assert len(out["members"]) == 2 and out["bay"]
    magnum, manila, trove = api.cloud("container-infra"), api.cloud("sharev2"), api.cloud("database")
    assert magnum.get(f"/clusters/{out['cluster']}").json()["status"] == "CREATE_COMPLETE"
    rules = manila.post(f"/shares/{out['share']}/action", json={"access_list": None}).json()
    assert [(r["access_to"], r["access_level"]) for r in rules["access_list"]] == [("10.0.0.0/24", "ro")]
    users = trove.get(f"/instances/{out['db']}/users").json()["users"]
    assert users == [{"name": "appuser", "host": "%", "databases": [{"name": "app"}]}]

    stack = api.update(stack, TEMPLATE, {
        "suffix": suffix, "node_count": 2, "share_size": 2, "db_flavor": "m1.medium", "db_size": 2,
        "rules": [{"access_type": "ip", "access_to": "10.1.0.0/24", "access_level": "rw"}],
        "ldap_server": "ldap2.example.org", "public": True, "specs": {"replication_type": "dr"},
        "snet_name": "snet-b", "member_size": 2,
        "users": [{"name": "appuser", "password": "secret1", "databases": ["app"]},
                  {"name": "second", "password": "secret2", "databases": ["app"]}]})
    after = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    # in place: a template's public flag, a type's extra specs, a share network's name, users
    assert (after["ct"], after["stype"], after["snet"]) == (out["ct"], out["stype"], out["snet"])
    assert magnum.get(f"/clustertemplates/{out['ct']}").json()["public"] is True
    specs = manila.get(f"/types/{out['stype']}/extra_specs").json()["extra_specs"]
    assert specs["replication_type"] == "dr"
    snet = manila.get(f"/share-networks/{out['snet']}").json()["share_network"]
    assert snet["name"] == "snet-b"
    users = trove.get(f"/instances/{out['db']}/users").json()["users"]
    assert sorted(u["name"] for u in users) == ["appuser", "second"]
    # a Trove cluster's instances are not update_allowed: a new cluster, the old one gone
    assert after["dbc"] != out["dbc"] and len(after["members"]) == 2
    assert trove.get(f"/clusters/{out['dbc']}", raise_exc=False).status_code == 404
    assert after["cluster"] == out["cluster"] and len(after["node_addresses"]) == 2
    cluster = magnum.get(f"/clusters/{out['cluster']}").json()
    assert (cluster["status"], cluster["node_count"]) == ("UPDATE_COMPLETE", 2)
    assert after["share"] != out["share"]               # size is not update_allowed: replaced
    assert manila.get(f"/shares/{after['share']}").json()["share"]["size"] == 2
    rules = manila.post(f"/shares/{after['share']}/action", json={"access_list": None}).json()
    assert [(r["access_to"], r["access_level"]) for r in rules["access_list"]] == [("10.1.0.0/24", "rw")]
    assert after["db"] == out["db"]                      # resized in place
    inst = trove.get(f"/instances/{out['db']}").json()["instance"]
    assert (inst["flavor"]["id"], inst["volume"]["size"], inst["status"]) == ("3", 2, "ACTIVE")
    api.delete(stack)


def test_missing_property_and_unknown_flavor_are_refused_as_heat_refuses_them(api: Any) -> None:
    missing = """
heat_template_version: 2018-08-31
resources:
  share: {type: OS::Manila::Share, properties: {size: 1}}
"""
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.heat.stacks.create(stack_name=f"t-{uuid.uuid4().hex[:8]}", template=missing)
    assert "share_protocol" in str(err.value)
    unknown = """
heat_template_version: 2018-08-31
resources:
  db: {type: OS::Trove::Instance, properties: {flavor: nope, size: 1}}
"""
    with pytest.raises(exc.HTTPBadRequest) as err:
        api.heat.stacks.create(stack_name=f"t-{uuid.uuid4().hex[:8]}", template=unknown)
    assert "Error validating value 'nope': No Flavor matching {'name': 'nope'}. (HTTP 404)" in str(err.value)
    oracle = unknown.replace("flavor: nope", "flavor: m1.small, datastore_type: oracle")
    with pytest.raises(exc.HTTPBadRequest) as err:   # Heat lists the type's versions: a 404
        api.heat.stacks.create(stack_name=f"t-{uuid.uuid4().hex[:8]}", template=oracle)
    assert "NotFound: resources.db: Datastore 'oracle' cannot be found. (HTTP 404)" in str(err.value)


def test_a_share_type_name_taken_fails_with_manilas_message_and_leaves_nothing(api: Any) -> None:
    name = f"dup-{uuid.uuid4().hex[:6]}"
    template = f"""
heat_template_version: 2018-08-31
resources:
  a: {{type: OS::Manila::ShareType, properties: {{name: {name}, driver_handles_share_servers: false}}}}
  b: {{type: OS::Manila::ShareType, properties: {{name: {name}, driver_handles_share_servers: false}},
      depends_on: a}}
"""
    stack = api.create(template, expect="CREATE_FAILED")
    assert f"Share Type {name} already exists." in api.failures(stack)["b"]
    api.delete(stack)


def test_the_corpus_magnum_template_runs_on_the_sandbox(api: Any) -> None:
    compute = api.cloud("compute")
    key = f"corpus-{uuid.uuid4().hex[:6]}"
    compute.post("/os-keypairs", json={"keypair": {"name": key}})
    try:
        stack = api.create(CORPUS.read_text(), {"image": "fedora-40", "external_network": "public",
                                                "keypair": key})
        outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
        assert outputs["coe_api_address"].startswith("https://") and outputs["coe_stack"]
        api.delete(stack)
    finally:
        compute.delete(f"/os-keypairs/{key}")


SHARE = """
heat_template_version: 2018-08-31
parameters:
  snapshot: {type: string, default: ""}
  size: {type: number, default: 1}
conditions:
  from_snapshot: {not: {equals: [{get_param: snapshot}, ""]}}
resources:
  share:
    type: OS::Manila::Share
    properties:
      share_protocol: NFS
      size: {get_param: size}
      snapshot: {if: [from_snapshot, {get_param: snapshot}, null]}
outputs:
  share: {value: {get_resource: share}}
"""


def test_a_share_is_made_from_a_snapshot(api: Any) -> None:
    manila = api.cloud("sharev2")
    source = api.create(SHARE)
    share_id = api.output(source, "share")
    name = f"snap-{uuid.uuid4().hex[:6]}"
    made = manila.post("/snapshots", json={"snapshot": {"share_id": share_id, "name": name}})
    assert made.status_code == 202 and made.json()["snapshot"]["status"] == "creating"
    snap = made.json()["snapshot"]["id"]
    deadline = time.monotonic() + 10
    while manila.get(f"/snapshots/{snap}").json()["snapshot"]["status"] != "available":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    with pytest.raises(exc.HTTPBadRequest) as err:   # Heat's constraint on the name
        api.heat.stacks.create(stack_name=f"t-{uuid.uuid4().hex[:8]}", template=SHARE,
                               parameters={"snapshot": "no-such-snapshot"})
    assert "The share snapshot (no-such-snapshot) could not be found." in str(err.value)
    copy = api.create(SHARE, {"snapshot": name, "size": 2})
    shown = manila.get(f"/shares/{api.output(copy, 'share')}").json()["share"]
    assert (shown["snapshot_id"], shown["size"], shown["status"]) == (snap, 2, "available")
    # Manila keeps a share that has snapshots
    refused = manila.delete(f"/shares/{share_id}", raise_exc=False)
    assert refused.status_code == 403
    assert "Share still has 1 dependent snapshots." in refused.text
    api.delete(copy)
    assert manila.delete(f"/snapshots/{snap}").status_code == 202
    deadline = time.monotonic() + 10
    while manila.get(f"/snapshots/{snap}", raise_exc=False).status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    api.delete(source)
