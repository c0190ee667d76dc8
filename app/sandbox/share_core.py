"""Manila v2 for the sandbox, part two: shares, their access rules, export locations, metadata
and the extend / shrink actions (share types and networks: :mod:`app.sandbox.share_misc`).

More in docs/code/sandbox.md (app.sandbox.share_core).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, iso, no_content, public, reply
from app.sandbox.runtime import sb, store
from app.sandbox.share_misc import NETWORKS, answer_version, error, find_type, owned
from app.sandbox.store import Obj

bp = Blueprint("share_core", __name__)
bp.register_error_handler(SandboxError, error)
bp.after_request(answer_version)
SHARES, RULES, SNAPSHOTS = "manila_shares", "manila_access_rules", "manila_snapshots"
PROTOCOLS = ("NFS", "CIFS", "GLUSTERFS", "HDFS", "CEPHFS", "MAPRFS")
ACCESS_TYPES = ("ip", "user", "cert", "cephx")
DELAYS = {"share_create": 0.5, "share_delete": 0.3, "share_extend": 0.3}


def _delay(name: str) -> float:
    return float(sb().behaviour.delays.get(name, DELAYS[name]))


def _share(ident: str) -> Obj:
    return owned(SHARES, ident, "Share")


def _export_path(share: Obj) -> str:
    proto = share["share_proto"].upper()
    ip = f"10.254.0.{store().next_number('manila_export') % 250 + 2}"
    name = f"share_{share['id'].replace('-', '_')}"
    return f"\\\\{ip}\\{name}" if proto == "CIFS" else f"{ip}:/{name}"


def _view(share: Obj) -> Obj:
    out = public(share)
    locations = share.get("_exports") or []
    out["export_location"] = locations[0] if locations else None
    out["export_locations"] = list(locations)
    return out


@bp.post("/shares")
def create_share() -> Any:
    data = body("share")
    proto = str(data.get("share_proto") or "")
    if proto.upper() not in PROTOCOLS:
        raise SandboxError(400, f"Invalid share protocol provided: {proto or None}")
    size = data.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise SandboxError(400, "Share size must be an integer and greater than 0")
    st = store()
    share_type = find_type(str(data["share_type"])) if data.get("share_type") else None
    network = owned(NETWORKS, str(data["share_network_id"]), "Share network") \
        if data.get("share_network_id") else None
    source = None
    if data.get("snapshot_id"):
        source = owned(SNAPSHOTS, str(data["snapshot_id"]), "Snapshot")
        if source["status"] != "available":
            raise SandboxError(400, "Invalid snapshot: Snapshot status must be available.")
        if size < source["size"]:
            raise SandboxError(400, f"Share size '{size}' must be equal or greater than "
                                    f"snapshot size ({source['size']}).")
        parent = st.get(SHARES, source["share_id"]) or {}
        if share_type is None and parent.get("share_type"):
            share_type = find_type(str(parent["share_type"]))
        if network is None and parent.get("share_network_id"):
            network = owned(NETWORKS, str(parent["share_network_id"]), "Share network")
    dhss = (share_type or {}).get("extra_specs", {}).get("driver_handles_share_servers") == "True"
    if dhss and network is None:
        raise SandboxError(400, "Share network must be set when the share type's "
                                "driver_handles_share_servers extra spec is True.")
    if not dhss and network is not None and share_type is not None:
        raise SandboxError(400, "Share network must not be set when the share type's "
                                "driver_handles_share_servers extra spec is False.")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise SandboxError(400, "Invalid metadata: it must be a map.")
    sid = st.new_id()
    share = {"id": sid, "name": data.get("name") or data.get("display_name"),
             "description": data.get("description") or data.get("display_description"),
             "share_proto": proto, "size": size, "status": "creating",
             "availability_zone": data.get("availability_zone") or "nova", "host": "",
             "share_network_id": network["id"] if network else None,
             "share_server_id": None,
             "share_type": share_type["id"] if share_type else None,
             "share_type_name": share_type["name"] if share_type else "default",
             "snapshot_id": source["id"] if source else None, "snapshot_support": True, "is_public": bool(data.get("is_public", False)),
             "metadata": {str(k): str(v) for k, v in metadata.items()},
             "project_id": auth.ctx().project_id, "user_id": auth.ctx().user_id,
             "created_at": iso(st.clock(), "cinder"), "access_rules_status": "active",
             "has_replicas": False, "replication_type": None, "task_state": None,
             "volume_type": share_type["name"] if share_type else "default",
             "links": [], "_exports": []}
    ready = {"status": "available", "host": "sandbox@generic#pool", "_exports": [_export_path(share)],
             "share_server_id": st.new_id() if network else None}
    st.add(SHARES, share)
    st.schedule(share, _delay("share_create"), ready)
    return reply({"share": _view(share)})


@bp.get("/shares")
@bp.get("/shares/detail")
def list_shares() -> Any:
    items = auth.visible(store().all(SHARES), all_param="all_tenants")
    name = request.args.get("name")
    if name:
        items = [s for s in items if s.get("name") == name]
    return reply({"shares": [_view(s) for s in items]})


@bp.get("/shares/<ident>")
def show_share(ident: str) -> Any:
    return reply({"share": _view(_share(ident))})


@bp.put("/shares/<ident>")
def update_share(ident: str) -> Any:
    share = _share(ident)
    data = body("share")
    for key, field in (("display_name", "name"), ("name", "name"), ("display_description", "description"),
                       ("description", "description"), ("is_public", "is_public")):
        if key in data:
            share[field] = data[key]
    store().touch()
    return reply({"share": _view(share)})


@bp.delete("/shares/<ident>")
def delete_share(ident: str) -> Any:
    share = _share(ident)
    if share["status"] not in ("available", "error", "deleting"):
        raise SandboxError(403, "Invalid share: Share status must be one of ('available', 'error', "
                                "'inactive').")
    st = store()
    snapshots = [x for x in st.all(SNAPSHOTS) if x["share_id"] == share["id"]]
    if snapshots:
        raise SandboxError(403, f"Invalid share: Share still has {len(snapshots)} dependent "
                                f"snapshots.")
    st.cancel_pending(share)
    share["status"] = "deleting"
    for rule in [r for r in st.all(RULES) if r["share_id"] == share["id"]]:
        st.remove(RULES, rule["id"])
    st.schedule(share, _delay("share_delete"), delete=True)
    return no_content(202)


def _rule_view(rule: Obj) -> Obj:
    return public(rule)


def _require_available(share: Obj) -> None:
    if share["status"] != "available":
        raise SandboxError(400, "Invalid share: Share status must be available.")


def _allow(share: Obj, args: Obj) -> Any:
    _require_available(share)
    kind, to = args.get("access_type"), args.get("access_to")
    level = args.get("access_level") or "rw"
    if kind not in ACCESS_TYPES:
        raise SandboxError(400, "Only 'ip', 'user', 'cert' or 'cephx' access types are supported.")
    if not to:
        raise SandboxError(400, "Invalid access_to: it must be given.")
    if level not in ("rw", "ro"):
        raise SandboxError(400, f"Invalid access_level: {level}. Valid levels are ['rw', 'ro'].")
    st = store()
    if any(r["share_id"] == share["id"] and r["access_type"] == kind and r["access_to"] == to
           for r in st.all(RULES)):
        raise SandboxError(400, f"Share access {kind}:{to} exists.")
    now = iso(st.clock(), "cinder")
    rule = st.add(RULES, {"id": st.new_id(), "share_id": share["id"], "access_type": kind,
                          "access_to": to, "access_level": level, "state": "active",
                          "access_key": None, "created_at": now, "updated_at": None,
                          "metadata": {}, "project_id": share["project_id"]})
    return reply({"access": _rule_view(rule)})


def _deny(share: Obj, args: Obj) -> Any:
    rule = store().get(RULES, str(args.get("access_id")))
    if rule is None or rule["share_id"] != share["id"]:
        raise SandboxError(404, f"Access {args.get('access_id')} not found.")
    store().remove(RULES, rule["id"])
    return no_content(202)


def _resize(share: Obj, args: Obj, grow: bool) -> Any:
    _require_available(share)
    new_size = args.get("new_size")
    if not isinstance(new_size, int) or isinstance(new_size, bool) or new_size < 1:
        raise SandboxError(400, "New size for extend must be specified as an integer.")
    if grow and new_size <= share["size"]:
        raise SandboxError(400, f"New size for extend must be greater than current size. (current: "
                                f"{share['size']}, extended: {new_size}).")
    if not grow and new_size >= share["size"]:
        raise SandboxError(400, f"New size for shrink must be less than current size. (current: "
                                f"{share['size']}, new: {new_size}).")
    st = store()
    share["status"] = "extending" if grow else "shrinking"
    st.schedule(share, _delay("share_extend"), {"status": "available", "size": new_size})
    return no_content(202)


@bp.post("/shares/<ident>/action")
def share_action(ident: str) -> Any:
    share = _share(ident)
    data = body()
    for name, args in data.items():
        action = name.removeprefix("os-")
        if action == "allow_access":
            return _allow(share, args or {})
        if action == "deny_access":
            return _deny(share, args or {})
        if action == "access_list":
            rules = [_rule_view(r) for r in store().all(RULES) if r["share_id"] == share["id"]]
            return reply({"access_list": rules})
        if action in ("extend", "shrink"):
            return _resize(share, args or {}, action == "extend")
    raise SandboxError(400, "Invalid request body: unknown share action.")


@bp.get("/share-access-rules")
def list_rules() -> Any:
    share = _share(str(request.args.get("share_id")))
    return reply({"access_list": [_rule_view(r) for r in store().all(RULES) if r["share_id"] == share["id"]]})


@bp.get("/shares/<ident>/export_locations")
def export_locations(ident: str) -> Any:
    share = _share(ident)
    out = [{"id": f"{share['id'][:24]}{i:012d}", "path": path, "preferred": i == 0,
            "is_admin_only": False, "share_instance_id": share["id"]}
           for i, path in enumerate(share.get("_exports") or [])]
    return reply({"export_locations": out})


@bp.get("/shares/<ident>/metadata")
def get_metadata(ident: str) -> Any:
    return reply({"metadata": _share(ident)["metadata"]})


@bp.post("/shares/<ident>/metadata")
@bp.put("/shares/<ident>/metadata")
def set_metadata(ident: str) -> Any:
    share = _share(ident)
    metadata = body().get("metadata")
    if not isinstance(metadata, dict):
        raise SandboxError(400, "Malformed request body: metadata must be a map.")
    clean = {str(k): str(v) for k, v in metadata.items()}
    share["metadata"] = clean if request.method == "PUT" else {**share["metadata"], **clean}
    store().touch()
    return reply({"metadata": share["metadata"]})
