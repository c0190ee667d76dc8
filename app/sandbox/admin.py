"""The sandbox admin API (under ``/sandbox``; no token needed — the sandbox listens on loopback).

More in docs/code/sandbox.md (app.sandbox.admin).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox.behaviour import RuleError
from app.sandbox.http import body, reply
from app.sandbox.runtime import Sandbox, sb
from app.sandbox.seed import seed

bp = Blueprint("sandbox", __name__, url_prefix="/sandbox")

HIDDEN = {"tokens", "quotas", "metrics", "alarm_history"}


def reseed(sandbox: Sandbox) -> dict[str, str]:
    """Reset ``sandbox``'s store to the bootstrap state and remember which objects that is."""
    st = sandbox.store
    with st.lock:
        st.reset()
        ids = seed(st)
        st.meta["bootstrap"] = {name: [o["id"] for o in st.all(name)] for name in st.collections()}
        st.meta["ids"] = ids
        st.save()
    return ids


def summary(obj: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "name", "status", "provisioning_status", "project_id", "tenant_id", "owner",
            "device_owner", "device_id", "floating_ip_address", "state")
    return {k: obj[k] for k in keys if k in obj and obj[k] not in (None, "")}


def inventory() -> dict[str, Any]:
    st = sb().store
    boot = st.meta.get("bootstrap", {})
    objects: dict[str, list[Any]] = {}
    created: dict[str, list[Any]] = {}
    with st.lock:
        for name in sorted(st.collections()):
            if name in HIDDEN:
                continue
            items = st.all(name)
            if items:
                objects[name] = [summary(o) for o in items]
            known = set(boot.get(name, []))
            fresh = [summary(o) for o in items if o["id"] not in known and not o.get("_auto")]
            if fresh:
                created[name] = fresh
    return {"objects": objects, "created": created}


@bp.get("/health")
def health() -> Any:
    return reply({"status": "ok"})


@bp.post("/reset")
def reset() -> Any:
    sandbox = sb()
    sandbox.behaviour.configure(latency=[], faults=[])
    sandbox.options.pop("notifications", None)
    return reply({"ids": reseed(sandbox)})


@bp.get("/inventory")
def get_inventory() -> Any:
    return reply(inventory())


@bp.get("/ids")
def ids() -> Any:
    return reply({"ids": sb().store.meta.get("ids", {})})


@bp.get("/behaviour")
def get_behaviour() -> Any:
    return reply(sb().behaviour.as_dict())


@bp.put("/behaviour")
def put_behaviour() -> Any:
    data = body()
    if not isinstance(data, dict):
        return reply({"error": "the behaviour must be an object"}, 400)
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        return reply({"error": f"'seed' must be an integer, not {seed!r}"}, 400)
    try:
        sb().behaviour.configure(delays=data.get("delays"), latency=data.get("latency"),
                                 faults=data.get("faults"), seed=seed)
    except RuleError as exc:
        return reply({"error": str(exc)}, 400)
    return reply(sb().behaviour.as_dict())


@bp.post("/faults")
def add_fault() -> Any:
    behaviour = sb().behaviour
    try:
        behaviour.configure(faults=behaviour.faults + [body()])
    except RuleError as exc:
        return reply({"error": str(exc)}, 400)
    return reply(behaviour.as_dict(), 201)


@bp.delete("/faults")
def clear_faults() -> Any:
    sb().behaviour.configure(faults=[])
    return reply(sb().behaviour.as_dict())


@bp.get("/requests")
def get_requests() -> Any:
    return reply({"requests": sb().behaviour.request_counts()})


@bp.delete("/requests")
def reset_requests() -> Any:
    return reply({"requests": sb().behaviour.request_counts(reset=True)})


@bp.get("/servers/<server_id>/agent")
def get_agent(server_id: str) -> Any:
    """What the server agent did with the server's user data (:mod:`app.sandbox.agent`)."""
    server = sb().store.get("servers", server_id)
    if server is None:
        return reply({"error": f"No server with id {server_id}"}, 404)
    return reply({"server_id": server_id, "commands": list(server.get("_agent", []))})
