"""Nova v2.1 operator views for the sandbox: hypervisors (the eight hosts of
:mod:`app.sandbox.compute_hosts`), compute services, and each server's
instance actions (recorded by :func:`app.sandbox.compute_hosts.record_action`)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth
from app.sandbox.compute_hosts import HOSTS
from app.sandbox.compute_servers import get_server
from app.sandbox.http import SandboxError, iso, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("compute_admin", __name__)

@bp.get("/servers/<server_id>/os-instance-actions")
def list_actions(server_id: str) -> Any:
    return reply({"instanceActions": list(reversed(get_server(server_id).get("_actions", [])))})


@bp.get("/servers/<server_id>/os-instance-actions/<request_id>")
def show_action(server_id: str, request_id: str) -> Any:
    for action in get_server(server_id).get("_actions", []):
        if action["request_id"] == request_id:
            return reply({"instanceAction": dict(action, events=[])})
    raise SandboxError(404, f"Action for request_id {request_id} on instance {server_id} not found")


def _hypervisor(index: int, detail: bool) -> Obj:
    host = HOSTS[index]
    hid = f"00000000-0000-4000-a000-{index + 1:012d}"
    out: Obj = {"id": hid, "hypervisor_hostname": host, "state": "up", "status": "enabled"}
    if detail:
        servers = [s for s in store().all("servers") if s.get("OS-EXT-SRV-ATTR:host") == host]
        out.update(hypervisor_type="sandbox", hypervisor_version=1, host_ip="127.0.0.1",
                   service={"host": host, "id": hid, "disabled_reason": None},
                   running_vms=len(servers), vcpus=128, memory_mb=262144, local_gb=8192,
                   vcpus_used=sum(s["_flavor"]["vcpus"] for s in servers),
                   memory_mb_used=sum(s["_flavor"]["ram"] for s in servers),
                   local_gb_used=sum(s["_flavor"]["disk"] for s in servers), uptime=None)
    return out


@bp.get("/os-hypervisors")
def list_hypervisors() -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-hypervisors:list to be performed.")
    return reply({"hypervisors": [_hypervisor(i, False) for i in range(len(HOSTS))]})


@bp.get("/os-hypervisors/detail")
def list_hypervisors_detail() -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-hypervisors:list-detail to be performed.")
    return reply({"hypervisors": [_hypervisor(i, True) for i in range(len(HOSTS))]})


@bp.get("/os-hypervisors/<hypervisor_id>")
def show_hypervisor(hypervisor_id: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-hypervisors:show to be performed.")
    for i, host in enumerate(HOSTS):
        view = _hypervisor(i, True)
        if hypervisor_id in (view["id"], host):
            return reply({"hypervisor": view})
    raise SandboxError(404, f"Hypervisor with ID {hypervisor_id} could not be found.")


@bp.get("/os-services")
def list_services() -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-services:list to be performed.")
    now = iso(store().clock())
    return reply({"services": [{"id": f"00000000-0000-4000-8000-0000000000{i:02d}", "binary": binary,
                                "host": "sandbox", "zone": zone, "status": "enabled", "state": "up",
                                "updated_at": now, "disabled_reason": None, "forced_down": False}
                               for i, (binary, zone) in enumerate((("nova-scheduler", "internal"),
                                                                   ("nova-conductor", "internal"),
                                                                   ("nova-compute", "nova")))]})
