"""Manila v2 for the sandbox, part three: share snapshots (what Heat's ``OS::Manila::Share``
``snapshot`` property names: a share made from one), as Manila's API reference.

    POST   /v2/snapshots            {"snapshot": {"share_id", "name", "description", "force"}}
                                    202 {"snapshot"}: ``creating`` -> ``available``
    GET    /v2/snapshots[/detail]   ?share_id= ?name=      GET /v2/snapshots/{id}
    PUT    /v2/snapshots/{id}       {"snapshot": {"display_name" | "name", "description"}}
    DELETE /v2/snapshots/{id}       202: ``deleting``, then gone

A snapshot needs an ``available`` share (400 "Invalid share: Source share status must be
available." unless ``force``); a share with snapshots cannot be deleted (403, in
:mod:`app.sandbox.share_core`), nor a snapshot that a share is being made from. Delays
``share_snapshot_create``, ``share_snapshot_delete``.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, iso, no_content, public, reply
from app.sandbox.runtime import sb, store
from app.sandbox.share_misc import answer_version, error, owned
from app.sandbox.store import Obj

bp = Blueprint("share_snapshots", __name__)
bp.register_error_handler(SandboxError, error)
bp.after_request(answer_version)
SNAPSHOTS, SHARES = "manila_snapshots", "manila_shares"
DELAYS = {"share_snapshot_create": 0.3, "share_snapshot_delete": 0.2}


def _delay(name: str) -> float:
    return float(sb().behaviour.delays.get(name, DELAYS[name]))


def snapshot(ident: str) -> Obj:
    """The token project's snapshot ``ident``. :raises SandboxError: 404."""
    return owned(SNAPSHOTS, ident, "Snapshot")


@bp.post("/snapshots")
def create_snapshot() -> Any:
    data = body("snapshot")
    if not data.get("share_id"):
        raise SandboxError(400, "Must supply 'share_id' attribute.")
    share = owned(SHARES, str(data["share_id"]), "Share")
    force = str(data.get("force", False)).lower() in ("true", "1", "yes")
    if share["status"] != "available" and not force:
        raise SandboxError(400, "Invalid share: Source share status must be available.")
    if not share.get("snapshot_support", True):
        raise SandboxError(422, "Snapshots cannot be created for share "
                                f"'{share['id']}' since it does not have that capability.")
    st = store()
    snap = st.add(SNAPSHOTS, {
        "id": st.new_id(), "share_id": share["id"], "share_size": share["size"],
        "size": share["size"], "share_proto": share["share_proto"], "status": "creating",
        "name": data.get("name") or data.get("display_name"),
        "description": data.get("description") or data.get("display_description"),
        "created_at": iso(st.clock(), "cinder"), "project_id": auth.ctx().project_id,
        "user_id": auth.ctx().user_id, "provider_location": None, "links": []})
    st.schedule(snap, _delay("share_snapshot_create"),
                {"status": "available", "provider_location": f"/snapshots/{snap['id']}"})
    return reply({"snapshot": public(snap)}, 202)


@bp.get("/snapshots")
@bp.get("/snapshots/detail")
def list_snapshots() -> Any:
    items = auth.visible(store().all(SNAPSHOTS), all_param="all_tenants")
    for key in ("share_id", "name", "status"):
        if request.args.get(key):
            items = [s for s in items if s.get(key) == request.args[key]]
    return reply({"snapshots": [public(s) for s in items]})


@bp.get("/snapshots/<ident>")
def show_snapshot(ident: str) -> Any:
    return reply({"snapshot": public(snapshot(ident))})


@bp.put("/snapshots/<ident>")
def update_snapshot(ident: str) -> Any:
    snap, data = snapshot(ident), body("snapshot")
    for key, field in (("display_name", "name"), ("name", "name"),
                       ("display_description", "description"), ("description", "description")):
        if key in data:
            snap[field] = data[key]
    store().touch()
    return reply({"snapshot": public(snap)})


@bp.delete("/snapshots/<ident>")
def delete_snapshot(ident: str) -> Any:
    snap = snapshot(ident)
    if snap["status"] not in ("available", "error", "deleting"):
        raise SandboxError(400, "Invalid share snapshot: Share Snapshot status must be one of "
                                "('available', 'error').")
    st = store()
    if any(s.get("snapshot_id") == snap["id"] and s["status"] == "creating"
           for s in st.all(SHARES)):
        raise SandboxError(400, f"Invalid share snapshot: a share is being created from "
                                f"snapshot {snap['id']}.")
    st.cancel_pending(snap)
    snap["status"] = "deleting"
    st.schedule(snap, _delay("share_snapshot_delete"), delete=True)
    return no_content(202)
