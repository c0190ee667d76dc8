"""Two stacks created at the same time on the sandbox (the engine in-process, one thread per
stack): in the same project, and in two projects. Each gets its own network, subnet, port and
server in its own project, both complete, and deleting both leaves the sandbox as it was."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from app.context import RequestContext
from app.services import stacks

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  cidr: {type: string}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: {get_param: cidr}}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
  server:
    type: OS::Nova::Server
    properties:
      image: cirros
      flavor: m1.tiny
      networks: [{port: {get_resource: port}}]
  volume: {type: OS::Cinder::Volume, properties: {size: 1}}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: volume}}
outputs:
  ip: {value: {get_attr: [port, fixed_ips, 0, ip_address]}}
  server_project: {value: {get_attr: [server, show, tenant_id]}}
"""


@contextlib.contextmanager
def _granted_admin(sandbox: Any, project: str) -> Iterator[None]:
    """The stack's project must be one the cloud user may scope to (as an operator grants
    Heat's user a role on a tenant's project); the grant is revoked afterwards."""
    from tests.sandbox.conftest import connect
    conn = connect(sandbox)
    ids = dict(sandbox.admin("GET", "ids")["ids"])
    args = (ids[f"project:{project}"], ids["user:admin"], ids["role:member"])
    conn.identity.assign_project_role_to_user(*args)
    try:
        yield
    finally:
        conn.identity.unassign_project_role_from_user(*args)


def _create_in_parallel(specs: list[tuple[str, str, str]]) -> list[Any]:
    """Create one stack per ``(tenant, name, cidr)`` in its own thread; the stacks once done."""
    made: dict[int, Any] = {}
    failures: list[BaseException] = []

    def run(i: int, tenant: str, name: str, cidr: str) -> None:
        try:
            made[i] = stacks.create_stack(RequestContext(tenant_id=tenant), stack_name=name,
                                          template=TEMPLATE, parameters={"cidr": cidr})
        except BaseException as exc:  # reported in the main thread
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i, *spec)) for i, spec in enumerate(specs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures, failures
    return [stacks.get_by_id(RequestContext(tenant_id=specs[i][0]), made[i].id)
            for i in range(len(specs))]


def _delete(st: Any, tenant: str) -> str:
    ctx = RequestContext(tenant_id=tenant)
    stacks.delete_stack(ctx, st.name, st.id)
    return str(stacks.get_by_id(ctx, st.id).stack_status)


def _outputs(st: Any) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in stacks.stack_outputs(st)}


@pytest.mark.parametrize("tenants", [("admin", "admin"), ("admin", "demo")],
                         ids=["same-project", "two-projects"])
def test_two_stacks_in_parallel(tenants: tuple[str, str], db: Any, cloud_settings: Any,
                                sandbox: Any, no_leaks: None) -> None:
    with _granted_admin(sandbox, "demo") if "demo" in tenants else contextlib.nullcontext():
        _check_two_stacks(tenants, sandbox)


def _check_two_stacks(tenants: tuple[str, str], sandbox: Any) -> None:
    ids = dict(sandbox.admin("GET", "ids")["ids"])
    first, second = _create_in_parallel([(tenants[0], "par-a", "10.61.0.0/24"),
                                          (tenants[1], "par-b", "10.62.0.0/24")])
    for st in (first, second):
        assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    out_a, out_b = _outputs(first), _outputs(second)
    assert out_a["ip"].startswith("10.61.0.") and out_b["ip"].startswith("10.62.0.")
    assert out_a["server_project"] == ids[f"project:{tenants[0]}"]
    assert out_b["server_project"] == ids[f"project:{tenants[1]}"]
    servers = {o["id"]: o for o in sandbox.admin("GET", "inventory")["created"]["servers"]}
    assert len(servers) == 2
    assert _delete(first, tenants[0]) == "DELETE_COMPLETE"
    assert _delete(second, tenants[1]) == "DELETE_COMPLETE"
