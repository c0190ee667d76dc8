"""Cinder v3 volumes for the sandbox: create (size, type, image, snapshot or volume source,
metadata, multiattach), ``creating`` -> ``available`` after the ``volume_create`` delay, ``in-use``
while attached (:func:`attach` / :func:`detach`, used by Nova), extend, delete (``deleting`` ->
gone), metadata, limits, quota sets and availability zones.

Types, encryption, snapshots and backups are in :mod:`app.sandbox.volume_extras`.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, quotas
from app.sandbox.http import SandboxError, body, iso, no_content, paginate, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("volume", __name__)

DELETABLE = ("available", "error", "error_restoring", "error_extending", "error_managing")


def vol_links(kind: str, obj_id: str) -> list[Obj]:
    base = request.host_url.rstrip("/") + "/volume"
    return [{"rel": "self", "href": f"{base}/v3/{kind}/{obj_id}"}, {"rel": "bookmark", "href": f"{base}/{kind}/{obj_id}"}]


def get_volume(volume_id: str) -> Obj:
    vol = store().get("volumes", volume_id)
    if vol is None or not auth.can_see(vol):
        raise SandboxError(404, f"Volume {volume_id} could not be found.")
    return vol


def volume_type(ref: str | None) -> Obj:
    st = store()
    if not ref:
        return next(t for t in st.all("volume_types") if t.get("_default")) if any(
            t.get("_default") for t in st.all("volume_types")) else st.all("volume_types")[0]
    found = st.get("volume_types", ref) or next((t for t in st.all("volume_types") if t["name"] == ref), None)
    if found is None:
        raise SandboxError(404, f"Volume type with name {ref} could not be found.")
    return found


def volume_view(vol: Obj, detail: bool = True) -> Obj:
    if not detail:
        return {"id": vol["id"], "name": vol["name"], "links": vol_links("volumes", vol["id"])}
    out = {k: v for k, v in vol.items() if not k.startswith("_")}
    vtype = store().get("volume_types", vol["_type_id"]) or {}
    out["volume_type"] = vtype.get("name")
    out["volume_type_id"] = vol["_type_id"]
    out["encrypted"] = bool(vtype.get("_encryption"))
    out["links"] = vol_links("volumes", vol["id"])
    return out


def new_volume(project_id: str | None, size: int, *, name: str = "", description: str | None = None,
               type_ref: str | None = None, image_id: str | None = None, snapshot_id: str | None = None,
               source_volid: str | None = None, metadata: Obj | None = None, multiattach: bool = False,
               availability_zone: str | None = None, ready: bool = False) -> Obj:
    """Create a volume record (quota-checked); ``creating`` until the ``volume_create`` delay, or
    ``available`` at once when ``ready`` (Nova's boot-from-volume waits for it anyway).

    :raises SandboxError: 400 invalid size/source, 404 unknown type/source, 413 over quota.
    """
    st = store()
    if not isinstance(size, int) or size < 1:
        raise SandboxError(400, f"Invalid input received: Invalid volume size provided for create request: {size} "
                           "(size argument must be an integer (or string represention of an integer) and greater "
                           "than zero).")
    if availability_zone not in (None, "", "nova"):
        raise SandboxError(400, f"Invalid input received: Availability zone '{availability_zone}' is invalid.")
    vtype = volume_type(type_ref)
    image_meta = None
    if image_id:
        image = st.get("images", image_id)
        if image is None:
            raise SandboxError(400, "Invalid image identifier or unable to access requested image.")
        if image.get("min_disk", 0) > size:
            raise SandboxError(400, f"Invalid input received: Image minDisk size {image['min_disk']} is larger than "
                               f"the volume size {size}.")
        image_meta = {"image_id": image["id"], "image_name": image["name"], "min_disk": str(image.get("min_disk", 0)),
                      "min_ram": str(image.get("min_ram", 0)), "disk_format": image.get("disk_format"),
                      "container_format": image.get("container_format"), "size": str(image.get("size") or 0)}
    if snapshot_id:
        snap = st.get("snapshots", snapshot_id)
        if snap is None or not auth.can_see(snap):
            raise SandboxError(404, f"Snapshot {snapshot_id} could not be found.")
        if size < snap["size"]:
            raise SandboxError(400, f"Invalid input received: Volume size '{size}'GB cannot be smaller than the "
                               f"snapshot size {snap['size']}GB. They must be >= original snapshot size.")
    if source_volid:
        src = get_volume(source_volid)
        if size < src["size"]:
            raise SandboxError(400, "Invalid input received: Clones currently must be >= original volume size.")
    mine = st.find("volumes", _project_id=project_id)
    quotas.check(st, project_id, "volume", "volumes", len(mine))
    quotas.check(st, project_id, "volume", "gigabytes", sum(v["size"] for v in mine), size)
    now = st.clock()
    vol: Obj = {
        "id": st.new_id(), "name": name, "description": description, "status": "creating", "size": size,
        "availability_zone": availability_zone or "nova", "created_at": iso(now, "cinder"), "updated_at": None,
        "snapshot_id": snapshot_id, "source_volid": source_volid, "bootable": "true" if image_id else "false",
        "multiattach": bool(multiattach), "metadata": {str(k): str(v) for k, v in (metadata or {}).items()},
        "attachments": [], "os-vol-tenant-attr:tenant_id": project_id, "user_id": auth.ctx().user_id,
        "os-vol-host-attr:host": "sandbox@lvmdriver-1#lvmdriver-1", "replication_status": None,
        "consistencygroup_id": None, "group_id": None, "migration_status": None,
        "os-vol-mig-status-attr:migstat": None, "os-vol-mig-status-attr:name_id": None, "provider_id": None,
        "service_uuid": None, "shared_targets": False, "cluster_name": None, "consumes_quota": True,
        "_project_id": project_id, "_type_id": vtype["id"]}
    if image_meta:
        vol["volume_image_metadata"] = image_meta
    st.add("volumes", vol)
    if ready:
        vol["status"] = "available"
    else:
        st.schedule(vol, sb().behaviour.delay("volume_create"), {"status": "available"})
    return vol


def attach(vol: Obj, server_id: str, device: str) -> Obj:
    """Record an attachment of ``vol`` to the server; the volume becomes ``in-use``."""
    st = store()
    attachment = {"id": vol["id"], "attachment_id": st.new_id(), "volume_id": vol["id"], "server_id": server_id,
                  "host_name": "sandbox", "device": device, "attached_at": iso(st.clock(), "cinder")}
    vol["attachments"].append(attachment)
    vol.update(status="in-use", attach_status="attached")
    st.cancel_pending(vol)
    return attachment


def detach(vol: Obj, server_id: str) -> None:
    vol["attachments"] = [a for a in vol["attachments"] if a["server_id"] != server_id]
    if not vol["attachments"]:
        vol.update(status="available", attach_status="detached")
    store().touch()


@bp.post("/volumes")
def create_volume() -> Any:
    data = body("volume")
    try:
        size = int(data.get("size")) if data.get("size") is not None else None
    except (TypeError, ValueError):
        size = data.get("size")
    if size is None and data.get("snapshot_id"):
        size = (store().get("snapshots", data["snapshot_id"]) or {}).get("size")
    if size is None and data.get("backup_id"):
        size = (store().get("backups", data["backup_id"]) or {}).get("size")
    if size is None and data.get("source_volid"):
        size = (store().get("volumes", data["source_volid"]) or {}).get("size")
    vol = new_volume(auth.ctx().project_id, size, name=data.get("name") or "",  # type: ignore[arg-type]
                     description=data.get("description"), type_ref=data.get("volume_type"),
                     image_id=data.get("imageRef") or data.get("image_id"), snapshot_id=data.get("snapshot_id"),
                     source_volid=data.get("source_volid"), metadata=data.get("metadata"),
                     multiattach=bool(data.get("multiattach")), availability_zone=data.get("availability_zone"))
    return reply({"volume": volume_view(vol)}, 202)


def _listed() -> list[Obj]:
    items = auth.visible(store().all("volumes"), all_param="all_tenants")
    for key in ("name", "status", "bootable", "availability_zone"):
        if request.args.get(key):
            items = [v for v in items if str(v.get(key)) == request.args[key]]
    items.sort(key=lambda v: v["created_at"], reverse=True)
    return paginate(items)


@bp.get("/volumes")
def list_volumes() -> Any:
    return reply({"volumes": [volume_view(v, False) for v in _listed()]})


@bp.get("/volumes/detail")
def list_volumes_detail() -> Any:
    return reply({"volumes": [volume_view(v) for v in _listed()]})


@bp.get("/volumes/<volume_id>")
def show_volume(volume_id: str) -> Any:
    return reply({"volume": volume_view(get_volume(volume_id))})


@bp.put("/volumes/<volume_id>")
def update_volume(volume_id: str) -> Any:
    vol = get_volume(volume_id)
    data = body("volume")
    for key in ("name", "description"):
        if key in data:
            vol[key] = data[key]
    if "metadata" in data:
        vol["metadata"] = {str(k): str(v) for k, v in (data["metadata"] or {}).items()}
    vol["updated_at"] = iso(store().clock(), "cinder")
    return reply({"volume": volume_view(vol)})


@bp.delete("/volumes/<volume_id>")
def delete_volume(volume_id: str) -> Any:
    st = store()
    vol = get_volume(volume_id)
    cascade = request.args.get("cascade", "false").lower() == "true"
    if vol["status"] == "deleting":
        return no_content(202)
    snaps = st.find("snapshots", volume_id=volume_id)
    if vol["status"] not in DELETABLE or vol["attachments"] or (snaps and not cascade):
        raise SandboxError(400, "Invalid volume: Volume status must be available or error or error_restoring or "
                           "error_extending or error_managing and must not be migrating, attached, belong to a "
                           "group, have snapshots, awaiting a transfer, or be disassociated from snapshots after "
                           "volume transfer.")
    for snap in snaps:
        st.remove("snapshots", snap["id"])
    vol.update(status="deleting", updated_at=iso(st.clock(), "cinder"))
    st.schedule(vol, sb().behaviour.delay("volume_delete"), delete=True)
    return no_content(202)


@bp.post("/volumes/<volume_id>/action")
def volume_action(volume_id: str) -> Any:
    st = store()
    vol = get_volume(volume_id)
    data = body()
    name, arg = next(iter(data.items())) if data else ("", None)
    arg = arg if isinstance(arg, dict) else {}
    if name == "os-extend":
        try:
            new_size = int(arg.get("new_size") or 0)
        except (TypeError, ValueError):
            raise SandboxError(400, f"Invalid input received: new_size {arg.get('new_size')!r} is not an "
                               "integer.") from None
        if vol["status"] not in ("available", "in-use"):
            raise SandboxError(400, f"Invalid volume: Volume {volume_id} status must be available or in-use, but "
                               f"current status is: {vol['status']}.")
        if new_size <= vol["size"]:
            raise SandboxError(400, f"Invalid input received: New size for extend must be greater than current "
                               f"size. (current: {vol['size']}, extended: {new_size}).")
        mine = st.find("volumes", _project_id=vol["_project_id"])
        quotas.check(st, vol["_project_id"], "volume", "gigabytes", sum(v["size"] for v in mine), new_size - vol["size"])
        final = vol["status"]
        vol.update(status="extending")
        st.schedule(vol, sb().behaviour.delay("volume_create"), {"status": final, "size": new_size})
    elif name == "os-reset_status":
        auth.require_admin()
        vol["status"] = arg.get("status", vol["status"])
    elif name == "os-set_bootable":
        vol["bootable"] = "true" if str(arg.get("bootable")).lower() in ("true", "1") else "false"
    elif name == "os-update_readonly_flag":
        vol["metadata"]["readonly"] = str(arg.get("readonly", False))
    elif name == "os-retype":
        vol["_type_id"] = volume_type(arg.get("new_type"))["id"]
    elif name == "os-attach":
        attach(vol, arg.get("instance_uuid") or "", arg.get("mountpoint") or "/dev/vdb")
    elif name == "os-detach":
        detach(vol, next((a["server_id"] for a in vol["attachments"]
                          if a["attachment_id"] == arg.get("attachment_id")), vol["attachments"][0]["server_id"]
                         if vol["attachments"] else ""))
    elif name in ("os-reserve", "os-unreserve", "os-begin_detaching", "os-roll_detaching"):
        pass
    else:
        raise SandboxError(400, f"Invalid request: unsupported volume action {name!r}.")
    st.touch()
    return no_content(202)


@bp.get("/volumes/<volume_id>/metadata")
def get_metadata(volume_id: str) -> Any:
    return reply({"metadata": get_volume(volume_id)["metadata"]})


@bp.route("/volumes/<volume_id>/metadata", methods=["POST", "PUT"])
def set_metadata(volume_id: str) -> Any:
    vol = get_volume(volume_id)
    new = {str(k): str(v) for k, v in (body().get("metadata") or {}).items()}
    vol["metadata"] = new if request.method == "PUT" else {**vol["metadata"], **new}
    store().touch()
    return reply({"metadata": vol["metadata"]})


@bp.delete("/volumes/<volume_id>/metadata/<key>")
def delete_meta_item(volume_id: str, key: str) -> Any:
    vol = get_volume(volume_id)
    vol["metadata"].pop(key, None)
    store().touch()
    return no_content(200)


# ---- limits, quotas, availability zones -----------------------------------------------------
def _usage(project_id: str | None) -> Obj:
    st = store()
    vols = st.find("volumes", _project_id=project_id)
    snaps = [s for s in st.all("snapshots") if s.get("os-extended-snapshot-attributes:project_id") == project_id]
    backups = [b for b in st.all("backups") if b.get("os-backup-project-attr:project_id") == project_id]
    return {"volumes": len(vols), "gigabytes": sum(v["size"] for v in vols), "snapshots": len(snaps),
            "backups": len(backups), "backup_gigabytes": sum(b["size"] for b in backups)}


@bp.get("/limits")
def limits() -> Any:
    project = auth.ctx().project_id
    q = quotas.limits(store(), project, "volume")
    used = _usage(project)
    absolute = {"maxTotalVolumes": q["volumes"], "maxTotalVolumeGigabytes": q["gigabytes"],
                "maxTotalSnapshots": q["snapshots"], "maxTotalBackups": q["backups"],
                "maxTotalBackupGigabytes": q["backup_gigabytes"], "totalVolumesUsed": used["volumes"],
                "totalGigabytesUsed": used["gigabytes"], "totalSnapshotsUsed": used["snapshots"],
                "totalBackupsUsed": used["backups"], "totalBackupGigabytesUsed": used["backup_gigabytes"]}
    return reply({"limits": {"rate": [], "absolute": absolute}})


@bp.get("/os-quota-sets/<project_id>")
def show_quota(project_id: str) -> Any:
    if project_id != auth.ctx().project_id:
        auth.require_admin()
    q: dict[str, Any] = dict(quotas.limits(store(), project_id, "volume"))
    if request.args.get("usage", "").lower() == "true":
        used = _usage(project_id)
        q = {k: {"limit": v, "in_use": used.get(k, 0), "reserved": 0, "allocated": 0} for k, v in q.items()}
    return reply({"quota_set": dict(q, id=project_id)})


@bp.get("/os-quota-sets/<project_id>/defaults")
def quota_defaults(project_id: str) -> Any:
    return reply({"quota_set": dict(quotas.DEFAULTS["volume"], id=project_id)})


@bp.put("/os-quota-sets/<project_id>")
def update_quota(project_id: str) -> Any:
    auth.require_admin()
    return reply({"quota_set": quotas.update(store(), project_id, "volume", body("quota_set"))})


@bp.delete("/os-quota-sets/<project_id>")
def delete_quota(project_id: str) -> Any:
    auth.require_admin()
    quotas.reset(store(), project_id, "volume")
    return no_content(200)


@bp.get("/os-availability-zone")
def list_azs() -> Any:
    return reply({"availabilityZoneInfo": [{"zoneName": "nova", "zoneState": {"available": True}}]})
