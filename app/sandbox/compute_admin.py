"""Nova v2.1 operator views for the sandbox: the one hypervisor (``sandbox``), compute services,
host aggregates (none) and each server's instance actions (what was done to it, by whom)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, g

from app.sandbox import auth
from app.sandbox.compute_servers import get_server
from app.sandbox.http import SandboxError, iso, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("compute_admin", __name__)

HYPERVISOR_ID = "00000000-0000-4000-8000-00000000beef"


def record_action(server: Obj, action: str) -> None:
    """Append a Nova instance action (``create``, ``reboot``, ``delete``...) to ``server``."""
    c = auth.ctx()
    server.setdefault("_actions", []).append({
        "action": action, "instance_uuid": server["id"], "request_id": g.get("request_id", ""),
        "user_id": c.user_id, "project_id": c.project_id, "start_time": iso(store().clock(), "cinder"),
        "updated_at": iso(store().clock(), "cinder"), "message": None})


@bp.get("/servers/<server_id>/os-instance-actions")
def list_actions(server_id: str) -> Any:
    return reply({"instanceActions": list(reversed(get_server(server_id).get("_actions", [])))})


@bp.get("/servers/<server_id>/os-instance-actions/<request_id>")
def show_action(server_id: str, request_id: str) -> Any:
    for action in get_server(server_id).get("_actions", []):
        if action["request_id"] == request_id:
            return reply({"instanceAction": dict(action, events=[])})
    raise SandboxError(404, f"Action for request_id {request_id} on instance {server_id} not found")


def _hypervisor(detail: bool) -> Obj:
    st = store()
    servers = st.all("servers")
    out: Obj = {"id": HYPERVISOR_ID, "hypervisor_hostname": "sandbox", "state": "up", "status": "enabled"}
    if detail:
        out.update(hypervisor_type="sandbox", hypervisor_version=1, host_ip="127.0.0.1",
                   service={"host": "sandbox", "id": HYPERVISOR_ID, "disabled_reason": None},
                   running_vms=len(servers), vcpus=1024, memory_mb=1048576, local_gb=65536,
                   vcpus_used=sum(s["_flavor"]["vcpus"] for s in servers),
                   memory_mb_used=sum(s["_flavor"]["ram"] for s in servers),
                   local_gb_used=sum(s["_flavor"]["disk"] for s in servers), uptime=None)
    return out


@bp.get("/os-hypervisors")
def list_hypervisors() -> Any:
    auth.require_admin()
    return reply({"hypervisors": [_hypervisor(False)]})


@bp.get("/os-hypervisors/detail")
def list_hypervisors_detail() -> Any:
    auth.require_admin()
    return reply({"hypervisors": [_hypervisor(True)]})


@bp.get("/os-hypervisors/<hypervisor_id>")
def show_hypervisor(hypervisor_id: str) -> Any:
    auth.require_admin()
    if hypervisor_id not in (HYPERVISOR_ID, "sandbox"):
        raise SandboxError(404, f"Hypervisor with ID {hypervisor_id} could not be found.")
    return reply({"hypervisor": _hypervisor(True)})


@bp.get("/os-services")
def list_services() -> Any:
    auth.require_admin()
    now = iso(store().clock())
    return reply({"services": [{"id": f"00000000-0000-4000-8000-0000000000{i:02d}", "binary": binary,
                                "host": "sandbox", "zone": zone, "status": "enabled", "state": "up",
                                "updated_at": now, "disabled_reason": None, "forced_down": False}
                               for i, (binary, zone) in enumerate((("nova-scheduler", "internal"),
                                                                   ("nova-conductor", "internal"),
                                                                   ("nova-compute", "nova")))]})


@bp.get("/os-aggregates")
def list_aggregates() -> Any:
    auth.require_admin()
    return reply({"aggregates": []})
