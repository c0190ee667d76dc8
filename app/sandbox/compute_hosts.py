"""Nova's compute hosts in the sandbox: eight hosts (``sandbox-1`` .. ``sandbox-8``) that new
servers are placed on as their server group's policy says, Nova's ``hostId`` hash, and the
instance-action log every server keeps (``create``, ``reboot``, ``delete``...).

Shared by the server views (:mod:`app.sandbox.compute_servers`, which place and record) and the
operator views (:mod:`app.sandbox.compute_admin`, which list hypervisors and actions).
"""
from __future__ import annotations

import hashlib

from flask import g

from app.sandbox import auth
from app.sandbox.http import iso
from app.sandbox.runtime import store
from app.sandbox.store import Obj

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
