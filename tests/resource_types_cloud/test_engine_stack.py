"""A whole stack of cloud resources through the in-process engine against the sandbox:
net, subnet, router, interface, security group, port, server, volume, attachment and floating
IP created (CREATE_COMPLETE, outputs from the cloud) and deleted (DELETE_COMPLETE, nothing left
in the sandbox's inventory); a missing flavor fails the stack with Heat's wording; a transient
cloud error during the stack is retried."""
from __future__ import annotations

import time
from typing import Any

import pytest

from app import errors
from app.context import RequestContext
from app.services import resources, stacks, updates

CTX = RequestContext(tenant_id="admin")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string, default: m1.tiny}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: appnet}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.50.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  secgroup:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22}
        - {protocol: icmp}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      security_groups: [{get_resource: secgroup}]
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: {get_param: flavor}
      networks: [{port: {get_resource: port}}]
      user_data_format: RAW
      user_data: "#!/bin/sh\\necho up\\n"
      metadata: {role: web}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: server}
      volume_id: {get_resource: volume}
  fip:
    type: OS::Neutron::FloatingIP
    depends_on: iface
    properties:
      floating_network: public
      port_id: {get_resource: port}
outputs:
  server_ip:
    value: {get_attr: [server, networks, appnet, 0]}
  port_ip:
    value: {get_attr: [port, fixed_ips, 0, ip_address]}
  public_ip:
    value: {get_attr: [fip, floating_ip_address]}
  volume_status:
    value: {get_attr: [volume, status]}
  addresses:
    value: {get_attr: [server, addresses]}
"""


def _outputs(st: Any) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in stacks.stack_outputs(st)}


def test_stack_create_and_delete(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    before = sandbox.created()
    st = stacks.create_stack(CTX, stack_name="web", template=TEMPLATE)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    out = _outputs(st)
    assert out["server_ip"] == out["port_ip"] and out["server_ip"].startswith("10.50.0.")
    assert out["public_ip"].startswith("172.24.4.")
    assert out["volume_status"] in ("available", "in-use")
    assert out["addresses"]["appnet"][0]["addr"] == out["port_ip"]
    rows = {r.name: r for r, _ in resources.list_resources(CTX, st)}
    assert {r.status for r in rows.values()} == {"COMPLETE"}
    server = sandbox.admin("GET", "inventory")["created"]["servers"]
    assert [s["status"] for s in server] == ["ACTIVE"]
    stacks.delete_stack(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason
    assert sandbox.created() == before


def test_missing_flavor_is_refused_at_create_with_heats_message(db: Any, cloud_settings: Any,
                                                                sandbox: Any) -> None:
    """Heat validates cloud-backed constraints when the stack is created: a 400, nothing
    written, nothing created."""
    before = sandbox.created()
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.bogus"}}}}
    with pytest.raises(errors.ValidationError) as err:
        stacks.create_stack(CTX, stack_name="bad", template=tmpl)
    assert err.value.http_status == 400
    assert err.value.message == (
        "Property error: resources.server.properties.flavor: "
        "Error validating value 'm1.bogus': No Flavor matching {'name': 'm1.bogus'}. (HTTP 404)")
    assert not stacks.list_stacks(CTX)
    assert sandbox.created() == before


def test_a_missing_flavor_beside_a_port_of_the_stack_is_refused_at_create(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """The server's port waits for the stack, its flavor does not: Heat checks each value it
    knows, so the stack is a 400 before its network and port exist (it was a failed stack
    with the network and port created)."""
    before = sandbox.created()
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "port": {"type": "OS::Neutron::Port", "properties": {"network": {"get_resource": "net"}}},
        "server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": "m1.bogus",
            "networks": [{"port": {"get_resource": "port"}}]}}}}
    for create in (True, False):
        with pytest.raises(errors.ValidationError) as err:
            if create:
                stacks.create_stack(CTX, stack_name="bad", template=tmpl)
            else:
                good = {**tmpl, "resources": {**tmpl["resources"], "server": {
                    "type": "OS::Nova::Server", "properties": {
                        **tmpl["resources"]["server"]["properties"], "flavor": "m1.tiny"}}}}
                st = stacks.create_stack(CTX, stack_name="good", template=good)
                assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
                updates.update_stack(CTX, st.name, st.id, template=tmpl)
        assert err.value.http_status == 400
        assert err.value.message == (
            "Property error: resources.server.properties.flavor: Error validating value "
            "'m1.bogus': No Flavor matching {'name': 'm1.bogus'}. (HTTP 404)")
    (st,) = stacks.list_stacks(CTX)             # only the good one; its update never started
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    stacks.delete_stack(CTX, st.name, st.id)
    assert sandbox.created() == before


def test_a_flavor_known_only_at_create_fails_the_resource_with_heats_message(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """A value that depends on another resource is checked when the engine creates the
    resource: CREATE_FAILED with the same wording."""
    before = sandbox.created()
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "name": {"type": "OS::Heat::Value", "properties": {"value": "m1.bogus"}},
        "server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": {"get_attr": ["name", "value"]}}}}}
    st = stacks.create_stack(CTX, stack_name="bad", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == (
        "Resource CREATE failed: Property error: resources.server.properties.flavor: "
        "Error validating value 'm1.bogus': No Flavor matching {'name': 'm1.bogus'}. (HTTP 404)")
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert sandbox.created() == before


def test_an_unreachable_cloud_leaves_constraints_to_the_engine(db: Any, cloud_settings: Any,
                                                               sandbox: Any, faults: Any) -> None:
    """A cloud that fails (5xx) during validation does not refuse the stack; the engine checks
    (and retries) when it creates the resource."""
    faults({"match": "compute.GET.*", "status": 503, "times": 1})
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny"}}}}
    st = stacks.create_stack(CTX, stack_name="flaky", template=tmpl)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    behaviour = sandbox.admin("GET", "behaviour")
    assert not [f for f in behaviour.get("faults") or [] if f.get("times", 1) > 0], behaviour
    stacks.delete_stack(CTX, st.name, st.id)


@pytest.mark.parametrize("status", [503])
def test_transient_errors_in_a_stack_are_retried(db: Any, cloud_settings: Any, sandbox: Any,
                                                 faults: Any, status: int) -> None:
    before = sandbox.created()
    faults({"match": "network.POST.*", "status": status, "times": 2},
           {"match": "network.DELETE.*", "status": status, "times": 2})
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.51.0.0/24"}}}}
    st = stacks.create_stack(CTX, stack_name="flaky", template=tmpl)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert sandbox.created() == before


def test_permanent_error_in_a_stack_carries_the_clouds_message(db: Any, cloud_settings: Any,
                                                               sandbox: Any, faults: Any) -> None:
    before = sandbox.created()
    faults({"match": "network.POST.networks", "status": 403, "times": 1,
            "message": "Policy doesn't allow create_network to be performed."})
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"net": {"type": "OS::Neutron::Net"}}}
    st = stacks.create_stack(CTX, stack_name="denied", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == ("Resource CREATE failed: Forbidden: resources.net: "
                                "Policy doesn't allow create_network to be performed.")
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert sandbox.created() == before


def test_deletion_policies_retain_and_snapshot(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    before = sandbox.created()
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "kept": {"type": "OS::Neutron::Net", "deletion_policy": "Retain"},
        "vol": {"type": "OS::Cinder::Volume", "deletion_policy": "Snapshot",
                "properties": {"size": 1}}}}
    st = stacks.create_stack(CTX, stack_name="policies", template=tmpl)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    rows = {r.name: r for r, _ in resources.list_resources(CTX, stacks.get_by_id(CTX, st.id))}
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    left = {k: v - before.get(k, set()) for k, v in sandbox.created().items()}
    left = {k: v for k, v in left.items() if v}
    assert left.get("networks") == {rows["kept"].physical_resource_id}
    assert "volumes" not in left and len(left.get("backups", ())) == 1
    from app import clients
    cloud = clients.for_stack(type("I", (), {"project_id": "admin"})()).cloud()
    cloud.network.delete_network(rows["kept"].physical_resource_id)
    for backup_id in left["backups"]:
        cloud.block_storage.delete_backup(backup_id)
    deadline = time.monotonic() + 5      # backups go asynchronously: leave the cloud as found
    while sandbox.created() != before:
        assert time.monotonic() < deadline, sandbox.created()
        time.sleep(0.05)


def test_failed_server_rolls_the_stack_back(db: Any, cloud_settings: Any, sandbox: Any,
                                            faults: Any) -> None:
    """A server that goes to ERROR fails the create with Nova's fault; with rollback enabled
    every cloud object the stack made (the failed server and its port included) is removed."""
    before = sandbox.created()
    faults({"match": "compute.POST.servers", "kind": "server_error", "times": 1})
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "sub": {"type": "OS::Neutron::Subnet",
                "properties": {"network": {"get_resource": "net"}, "cidr": "10.52.0.0/24"}},
        "srv": {"type": "OS::Nova::Server", "depends_on": "sub", "properties": {
            "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": {"get_resource": "net"}}]}},
        "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}}
    st = stacks.create_stack(CTX, stack_name="rollback", template=tmpl, disable_rollback=False)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE", st.status_reason
    events = [e for e in stacks_events(st) if e.resource_name == "srv" and e.status == "FAILED"]
    assert events and events[0].status_reason.startswith(
        'ResourceInError: resources.srv: Went to status ERROR due to "Message: No valid host')
    assert sandbox.created() == before
    stacks.delete_stack(CTX, st.name, st.id)


def stacks_events(st: Any) -> list[Any]:
    from sqlalchemy import select

    from app.models import Event, read_session
    with read_session() as s:
        return list(s.execute(select(Event).where(Event.stack_id == st.id)).scalars())


def test_a_parameter_the_cloud_rejects_is_refused_at_create(db: Any, cloud_settings: Any,
                                                            sandbox: Any) -> None:
    """Heat validates a parameter's cloud-backed custom constraint even when no resource uses
    it: a 400 with Heat's parameter wording, nothing written."""
    tmpl = {"heat_template_version": "2018-08-31",
            "parameters": {"f": {"type": "string", "default": "m1.tiny",
                                 "constraints": [{"custom_constraint": "nova.flavor"}]}},
            "resources": {"none": {"type": "OS::Heat::None"}}}
    with pytest.raises(errors.ValidationError) as err:
        stacks.create_stack(CTX, stack_name="badparam", template=tmpl,
                            parameters={"f": "m1.bogus"})
    assert err.value.message == (
        "Parameter 'f' is invalid: Error validating value 'm1.bogus': "
        "No Flavor matching {'name': 'm1.bogus'}. (HTTP 404)")
    assert not stacks.list_stacks(CTX)
    st = stacks.create_stack(CTX, stack_name="goodparam", template=tmpl)  # the default is fine
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    stacks.delete_stack(CTX, st.name, st.id)
