"""Nova v2.1 placement and operator views for the sandbox: eight compute hosts (``sandbox-1`` ..
``sandbox-8``) that servers are placed on as their server group's policy says, hypervisors,
compute services, host aggregates (none) and each server's instance actions."""
from __future__ import annotations

import hashlib
from typing import Any

from flask import Blueprint, g

from app.sandbox import auth
from app.sandbox.compute_servers import get_server
from app.sandbox.http import SandboxError, iso, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("compute_admin", __name__)

HOSTS = tuple(f"sandbox-{i}" for i in range(1, 9))    # the sandbox's compute hosts


def host_id(project_id: str | None, host: str) -> str:
    """Nova's ``hostId``: a hash of the project and the host (same host, same project -> same id)."""
    return hashlib.sha224(f"{project_id}{host}".encode()).hexdigest()


def place(group: Obj | None) -> str | None:
    """The host a new server goes to, honouring its server group's policy (``affinity``,
    ``anti-affinity`` with ``max_server_per_host``, and the soft variants); otherwise the least
    loaded host. None when no host fits (the server goes to ERROR: "No valid host was found.")."""
    st = store()
    load = {h: 0 for h in HOSTS}
    for s in st.all("servers"):
        if s.get("OS-EXT-SRV-ATTR:host") in load:
            load[s["OS-EXT-SRV-ATTR:host"]] += 1
    least = min(HOSTS, key=lambda h: (load[h], h))
    if group is None:
        return least
    used = [m["OS-EXT-SRV-ATTR:host"] for m in (st.get("servers", i) for i in group["members"]) if m]
    policy = group["policy"]
    if policy in ("affinity", "soft-affinity"):
        return used[0] if used else least
    if policy == "anti-affinity":
        limit = int((group.get("rules") or {}).get("max_server_per_host", 1))
        free = [h for h in HOSTS if used.count(h) < limit]
        return min(free, key=lambda h: (used.count(h), load[h], h)) if free else None
    return min(HOSTS, key=lambda h: (used.count(h), load[h], h))      # soft-anti-affinity


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
    auth.require_admin()
    return reply({"hypervisors": [_hypervisor(i, False) for i in range(len(HOSTS))]})


@bp.get("/os-hypervisors/detail")
def list_hypervisors_detail() -> Any:
    auth.require_admin()
    return reply({"hypervisors": [_hypervisor(i, True) for i in range(len(HOSTS))]})


@bp.get("/os-hypervisors/<hypervisor_id>")
def show_hypervisor(hypervisor_id: str) -> Any:
    auth.require_admin()
    for i, host in enumerate(HOSTS):
        view = _hypervisor(i, True)
        if hypervisor_id in (view["id"], host):
            return reply({"hypervisor": view})
    raise SandboxError(404, f"Hypervisor with ID {hypervisor_id} could not be found.")


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
