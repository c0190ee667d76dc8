"""Cinder v3 volume types (extra specs, encryption), snapshots and backups (minimal: create,
list, show, delete, restore) for the sandbox. Snapshots and backups are ``creating`` until their
delay has passed, ``deleting`` then gone.

A backup keeps the volume's metadata as it was when backed up, and a restore puts it back on the
target volume (merged over what is there, as Cinder's backup metadata restore): the sandbox's
observable trace of "the backup's data". During a restore the target volume is
``restoring-backup`` and the backup ``restoring`` until the ``backup_restore`` delay has passed;
restoring onto an existing volume needs it ``available`` and at least as large as the backup.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, quotas
from app.sandbox.http import SandboxError, body, iso, no_content, paginate, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj
from app.sandbox.volume import get_volume, new_volume, vol_links, volume_type

bp = Blueprint("volume_extras", __name__)


# ---- types ----------------------------------------------------------------------------------
def type_view(t: Obj) -> Obj:
    return {k: v for k, v in t.items() if not k.startswith("_")}


def _type(type_id: str) -> Obj:
    t = store().get("volume_types", type_id)
    if t is None:
        raise SandboxError(404, f"Volume type {type_id} could not be found.")
    return t


@bp.get("/types")
def list_types() -> Any:
    items = store().all("volume_types")
    if not auth.ctx().is_admin:
        items = [t for t in items if t.get("is_public", True)]
    return reply({"volume_types": [type_view(t) for t in items]})


@bp.get("/types/default")
def default_type() -> Any:
    return reply({"volume_type": type_view(volume_type(None))})


@bp.get("/types/<type_id>")
def show_type(type_id: str) -> Any:
    return reply({"volume_type": type_view(volume_type(type_id))})


@bp.post("/types")
def create_type() -> Any:
    auth.require_admin()
    data = body("volume_type")
    st = store()
    if not data.get("name"):
        raise SandboxError(400, "Invalid input received: name is required.")
    if st.find("volume_types", name=data["name"]):
        raise SandboxError(409, f"Volume Type {data['name']} already exists.")
    public = bool(data.get("os-volume-type-access:is_public", data.get("is_public", True)))
    t = {"id": st.new_id(), "name": data["name"], "description": data.get("description"), "is_public": public,
         "os-volume-type-access:is_public": public, "extra_specs": dict(data.get("extra_specs") or {}),
         "qos_specs_id": None}
    st.add("volume_types", t)
    return reply({"volume_type": type_view(t)})


@bp.put("/types/<type_id>")
def update_type(type_id: str) -> Any:
    auth.require_admin()
    t = _type(type_id)
    data = body("volume_type")
    for key in ("name", "description"):
        if key in data:
            t[key] = data[key]
    if "is_public" in data:
        t["is_public"] = t["os-volume-type-access:is_public"] = bool(data["is_public"])
    store().touch()
    return reply({"volume_type": type_view(t)})


@bp.delete("/types/<type_id>")
def delete_type(type_id: str) -> Any:
    auth.require_admin()
    st = store()
    _type(type_id)
    if st.find("volumes", _type_id=type_id):
        raise SandboxError(400, "Target volume type is still in use.")
    st.remove("volume_types", type_id)
    return no_content(202)


@bp.get("/types/<type_id>/extra_specs")
def get_specs(type_id: str) -> Any:
    return reply({"extra_specs": _type(type_id)["extra_specs"]})


@bp.post("/types/<type_id>/extra_specs")
def set_specs(type_id: str) -> Any:
    auth.require_admin()
    t = _type(type_id)
    t["extra_specs"].update({str(k): str(v) for k, v in (body().get("extra_specs") or {}).items()})
    store().touch()
    return reply({"extra_specs": t["extra_specs"]})


@bp.delete("/types/<type_id>/extra_specs/<key>")
def delete_spec(type_id: str, key: str) -> Any:
    auth.require_admin()
    _type(type_id)["extra_specs"].pop(key, None)
    store().touch()
    return no_content(202)


@bp.get("/types/<type_id>/encryption")
def get_encryption(type_id: str) -> Any:
    return reply(_type(type_id).get("_encryption") or {})


@bp.post("/types/<type_id>/encryption")
def create_encryption(type_id: str) -> Any:
    auth.require_admin()
    t = _type(type_id)
    if t.get("_encryption"):
        raise SandboxError(400, f"Volume type encryption for type {type_id} already exists.")
    if store().find("volumes", _type_id=type_id):
        raise SandboxError(400, "Volume type is in use.")
    data = body("encryption")
    if data.get("control_location", "front-end") not in ("front-end", "back-end") or not data.get("provider"):
        raise SandboxError(400, "Invalid input received: provider and a valid control_location are required.")
    enc = {"volume_type_id": type_id, "encryption_id": store().new_id(), "provider": data["provider"],
           "cipher": data.get("cipher"), "key_size": data.get("key_size"),
           "control_location": data.get("control_location", "front-end"), "deleted": False,
           "created_at": iso(store().clock(), "cinder"), "updated_at": None, "deleted_at": None}
    t["_encryption"] = enc
    store().touch()
    return reply({"encryption": enc})


@bp.put("/types/<type_id>/encryption/<encryption_id>")
def update_encryption(type_id: str, encryption_id: str) -> Any:
    auth.require_admin()
    enc = _type(type_id).get("_encryption")
    if not enc or enc["encryption_id"] != encryption_id:
        raise SandboxError(404, f"Volume type encryption for type {type_id} does not exist.")
    data = body("encryption")
    for key in ("provider", "cipher", "key_size", "control_location"):
        if key in data:
            enc[key] = data[key]
    store().touch()
    return reply({"encryption": {k: enc[k] for k in ("provider", "cipher", "key_size", "control_location")}})


@bp.delete("/types/<type_id>/encryption/<encryption_id>")
def delete_encryption(type_id: str, encryption_id: str) -> Any:
    auth.require_admin()
    t = _type(type_id)
    if not t.get("_encryption") or t["_encryption"]["encryption_id"] != encryption_id:
        raise SandboxError(404, f"Volume type encryption for type {type_id} does not exist.")
    if store().find("volumes", _type_id=type_id):
        raise SandboxError(400, "Cannot delete encryption specs. Volume type in use.")
    t.pop("_encryption")
    store().touch()
    return no_content(202)


# ---- snapshots ------------------------------------------------------------------------------
def snap_view(s: Obj, detail: bool = True) -> Obj:
    out = {k: v for k, v in s.items() if not k.startswith("_")}
    out["links"] = vol_links("snapshots", s["id"])
    return out if detail else {k: out[k] for k in ("id", "name", "status", "volume_id", "size", "links")}


def get_snapshot(snap_id: str) -> Obj:
    snap = store().get("snapshots", snap_id)
    if snap is None or not auth.can_see(snap):
        raise SandboxError(404, f"Snapshot {snap_id} could not be found.")
    return snap


@bp.post("/snapshots")
def create_snapshot() -> Any:
    data = body("snapshot")
    st = store()
    vol = get_volume(str(data.get("volume_id")))
    force = str(data.get("force", False)).lower() in ("true", "1")
    if vol["status"] != "available" and not (force and vol["status"] == "in-use"):
        raise SandboxError(400, f"Invalid volume: Volume {vol['id']} status must be available, but current status "
                           f"is: {vol['status']}.")
    project = auth.ctx().project_id
    used = [s for s in st.all("snapshots") if s["_project_id"] == project]
    quotas.check(st, project, "volume", "snapshots", len(used))
    snap = {"id": st.new_id(), "name": data.get("name") or data.get("display_name"),
            "description": data.get("description"), "volume_id": vol["id"], "size": vol["size"],
            "status": "creating", "created_at": iso(st.clock(), "cinder"), "updated_at": None,
            "metadata": {str(k): str(v) for k, v in (data.get("metadata") or {}).items()},
            "os-extended-snapshot-attributes:project_id": project, "os-extended-snapshot-attributes:progress": "0%",
            "user_id": auth.ctx().user_id, "group_snapshot_id": None, "consumes_quota": True, "_project_id": project}
    st.add("snapshots", snap)
    st.schedule(snap, sb().behaviour.delay("snapshot_create"),
                {"status": "available", "os-extended-snapshot-attributes:progress": "100%"})
    return reply({"snapshot": snap_view(snap)}, 202)


def _snapshots() -> list[Obj]:
    items = auth.visible(store().all("snapshots"), all_param="all_tenants")
    for key in ("name", "status", "volume_id"):
        if request.args.get(key):
            items = [s for s in items if str(s.get(key)) == request.args[key]]
    return paginate(items)


@bp.get("/snapshots")
def list_snapshots() -> Any:
    return reply({"snapshots": [snap_view(s, False) for s in _snapshots()]})


@bp.get("/snapshots/detail")
def list_snapshots_detail() -> Any:
    return reply({"snapshots": [snap_view(s) for s in _snapshots()]})


@bp.get("/snapshots/<snap_id>")
def show_snapshot(snap_id: str) -> Any:
    return reply({"snapshot": snap_view(get_snapshot(snap_id))})


@bp.put("/snapshots/<snap_id>")
def update_snapshot(snap_id: str) -> Any:
    snap = get_snapshot(snap_id)
    data = body("snapshot")
    for key in ("name", "description"):
        if key in data:
            snap[key] = data[key]
    store().touch()
    return reply({"snapshot": snap_view(snap)})


@bp.delete("/snapshots/<snap_id>")
def delete_snapshot(snap_id: str) -> Any:
    st = store()
    snap = get_snapshot(snap_id)
    if snap["status"] not in ("available", "error", "deleting"):
        raise SandboxError(400, "Invalid snapshot: Snapshot status must be available or error and must not be "
                           "part of a group.")
    if st.find("volumes", snapshot_id=snap_id):
        pass  # Cinder allows it for the LVM driver's copies; the sandbox follows that
    snap["status"] = "deleting"
    st.schedule(snap, sb().behaviour.delay("volume_delete"), delete=True)
    return no_content(202)


# ---- backups (minimal) ----------------------------------------------------------------------
def backup_view(b: Obj, detail: bool = True) -> Obj:
    out = {k: v for k, v in b.items() if not k.startswith("_")}
    out["links"] = vol_links("backups", b["id"])
    return out if detail else {k: out[k] for k in ("id", "name", "links")}


def get_backup(backup_id: str) -> Obj:
    backup = store().get("backups", backup_id)
    if backup is None or not auth.can_see(backup):
        raise SandboxError(404, f"Backup {backup_id} could not be found.")
    return backup


@bp.post("/backups")
def create_backup() -> Any:
    data = body("backup")
    st = store()
    vol = get_volume(str(data.get("volume_id")))
    force = bool(data.get("force"))
    if vol["status"] != "available" and not (force and vol["status"] == "in-use"):
        raise SandboxError(400, f"Invalid volume: Volume to be backed up must be available or in-use, but the "
                           f"current status is \"{vol['status']}\".")
    project = auth.ctx().project_id
    mine = [b for b in st.all("backups") if b["_project_id"] == project]
    quotas.check(st, project, "volume", "backups", len(mine))
    now = st.clock()
    backup = {"id": st.new_id(), "name": data.get("name"), "description": data.get("description"),
              "volume_id": vol["id"], "snapshot_id": data.get("snapshot_id"), "size": vol["size"],
              "status": "creating", "availability_zone": "nova", "container": data.get("container") or "backups",
              "created_at": iso(now, "cinder"), "updated_at": None, "data_timestamp": iso(now, "cinder"),
              "fail_reason": None, "object_count": 0, "has_dependent_backups": False,
              "is_incremental": bool(data.get("incremental")), "metadata": dict(data.get("metadata") or {}),
              "os-backup-project-attr:project_id": project, "user_id": auth.ctx().user_id,
              "encryption_key_id": None, "_project_id": project,
              "_volume_metadata": dict(vol.get("metadata") or {})}
    st.add("backups", backup)
    st.schedule(backup, sb().behaviour.delay("backup_create"), {"status": "available", "object_count": 1})
    return reply({"backup": {"id": backup["id"], "name": backup["name"], "links": vol_links("backups", backup["id"])}},
                 202)


@bp.get("/backups")
def list_backups() -> Any:
    return reply({"backups": [backup_view(b, False) for b in
                              paginate(auth.visible(store().all("backups"), all_param="all_tenants"))]})


@bp.get("/backups/detail")
def list_backups_detail() -> Any:
    return reply({"backups": [backup_view(b) for b in
                              paginate(auth.visible(store().all("backups"), all_param="all_tenants"))]})


@bp.get("/backups/<backup_id>")
def show_backup(backup_id: str) -> Any:
    return reply({"backup": backup_view(get_backup(backup_id))})


@bp.delete("/backups/<backup_id>")
def delete_backup(backup_id: str) -> Any:
    st = store()
    backup = get_backup(backup_id)
    if backup["status"] not in ("available", "error", "deleting"):
        raise SandboxError(400, "Invalid backup: Backup status must be available or error")
    backup["status"] = "deleting"
    st.schedule(backup, sb().behaviour.delay("volume_delete"), delete=True)
    return no_content(202)


@bp.post("/backups/<backup_id>/restore")
def restore_backup(backup_id: str) -> Any:
    st = store()
    backup = get_backup(backup_id)
    if backup["status"] != "available":
        raise SandboxError(400, "Invalid backup: Backup status must be available")
    data = body("restore", required=False)
    if data.get("volume_id"):
        vol = get_volume(data["volume_id"])
        if vol["status"] != "available" or vol["size"] < backup["size"]:
            raise SandboxError(400, "Invalid volume: Volume to be restored to must be available and large enough")
    else:
        vol = new_volume(auth.ctx().project_id, backup["size"], name=data.get("name") or f"restore_backup_{backup_id}")
    st.cancel_pending(vol)
    delay = sb().behaviour.delay("backup_restore")
    vol["status"], backup["status"] = "restoring-backup", "restoring"
    st.schedule(vol, delay, {"status": "available",
                             "metadata": {**vol["metadata"], **backup.get("_volume_metadata", {})}})
    st.schedule(backup, delay, {"status": "available"})
    return reply({"restore": {"backup_id": backup_id, "volume_id": vol["id"], "volume_name": vol["name"]}}, 202)
