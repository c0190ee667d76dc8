"""Nova v2.1 server actions for the sandbox (``POST /servers/{id}/action``: reboot, rebuild,
resize + confirm/revert, stop/start, suspend/resume, pause/unpause, lock/unlock, shelve/unshelve,
add/remove security group, console output), ``os-interface`` attach/detach,
and ``os-volume_attachments`` (metadata and tags: :mod:`app.sandbox.compute_meta`).

Each state-changing action sets Nova's transitional status and task state, then the final state
after the ``server_action`` delay; an action on a server in a task state (or in the wrong state)
is a 409 ``conflictingRequest`` as in Nova.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox import volume as cinder
from app.sandbox.compute_boot import attach_nics, networks_for, security_groups_for
from app.sandbox.compute_hosts import record_action
from app.sandbox.compute_meta import console_url
from app.sandbox.compute_servers import check_unlocked, find_flavor, find_image, get_server, server_view
from app.sandbox.http import SandboxError, body, iso, no_content, reply
from app.sandbox.network_ports import bind_port, release_port
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("compute_actions", __name__)

STATES = {  # status -> (vm_state, power_state)
    "ACTIVE": ("active", 1), "SHUTOFF": ("stopped", 4), "SUSPENDED": ("suspended", 4),
    "PAUSED": ("paused", 3), "VERIFY_RESIZE": ("resized", 1), "SHELVED_OFFLOADED": ("shelved_offloaded", 4),
}


def _final(status: str, **extra: Any) -> Obj:
    vm_state, power = STATES[status]
    return {"status": status, "OS-EXT-STS:vm_state": vm_state, "OS-EXT-STS:task_state": None,
            "OS-EXT-STS:power_state": power, **extra}


def _check_state(server: Obj, action: str, allowed: tuple[str, ...]) -> None:
    """Nova's ``check_instance_state``: 409 unless the server is in one of ``allowed`` with no
    task in progress (checked before anything else about the request, as Nova's decorator)."""
    if server.get("OS-EXT-STS:task_state"):
        raise SandboxError(409, f"Cannot '{action}' instance {server['id']} while it is in task_state "
                           f"{server['OS-EXT-STS:task_state']}")
    if server["status"] not in allowed:
        raise SandboxError(409, f"Cannot '{action}' instance {server['id']} while it is in vm_state "
                           f"{server.get('OS-EXT-STS:vm_state')}")


def _transition(server: Obj, action: str, allowed: tuple[str, ...], interim: str, task: str,
                final: Obj) -> None:
    _check_state(server, action, allowed)
    st = store()
    server.update({"status": interim, "OS-EXT-STS:task_state": task, "updated": iso(st.clock())})
    st.schedule(server, sb().behaviour.delay("server_action"), final)


RUNNING = ("ACTIVE",)


def _reboot(server: Obj, arg: Obj) -> None:
    hard = str((arg or {}).get("type", "SOFT")).upper() == "HARD"
    _transition(server, "reboot", ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED") if hard else ("ACTIVE", "SHUTOFF"),
                "HARD_REBOOT" if hard else "REBOOT", "reboot_started_hard" if hard else "reboot_started",
                _final("ACTIVE"))


def _rebuild(server: Obj, arg: Obj) -> Obj:
    image = find_image(arg.get("imageRef"))
    if image is None:
        raise SandboxError(400, f"Image {arg.get('imageRef')} could not be found.")
    _transition(server, "rebuild", ("ACTIVE", "SHUTOFF", "ERROR"), "REBUILD", "rebuilding", _final("ACTIVE"))
    server["_image_id"] = image["id"]
    for key in ("name", "description", "key_name"):
        if key in arg:
            server[key] = arg[key]
    if "metadata" in arg:
        server["metadata"] = {str(k): str(v) for k, v in (arg["metadata"] or {}).items()}
    if "user_data" in arg:
        server["OS-EXT-SRV-ATTR:user_data"] = arg["user_data"]
    return {"server": dict(server_view(server), adminPass=arg.get("adminPass", "sandbox"))}


def _resize(server: Obj, arg: Obj) -> None:
    _check_state(server, "resize", ("ACTIVE", "SHUTOFF"))
    flavor = find_flavor(arg.get("flavorRef"))
    if flavor is None:
        raise SandboxError(400, f"Flavor {arg.get('flavorRef')} could not be found.")
    if flavor["id"] == server["_flavor"]["id"]:
        raise SandboxError(400, "When resizing, instances must change flavor!")
    before = server["status"]  # a stopped server is stopped again once confirmed, as in Nova
    _transition(server, "resize", ("ACTIVE", "SHUTOFF"), "RESIZE", "resize_prep", _final("VERIFY_RESIZE"))
    server["_old_flavor"], server["_flavor"] = server["_flavor"], dict(flavor)
    server["_resized_from"] = before


def _confirm(server: Obj, revert: bool) -> None:
    if server["status"] != "VERIFY_RESIZE":
        raise SandboxError(409, f"Cannot '{'revertResize' if revert else 'confirmResize'}' instance {server['id']} "
                           f"while it is in vm_state {server.get('OS-EXT-STS:vm_state')}")
    back = server.pop("_resized_from", "ACTIVE")
    if revert:
        server["_flavor"] = server.pop("_old_flavor", server["_flavor"])
        _transition(server, "revertResize", ("VERIFY_RESIZE",), "REVERT_RESIZE", "resize_reverting",
                    _final(back))
    else:
        server.pop("_old_flavor", None)
        server.update(_final(back))


def _simple(action: str, allowed: tuple[str, ...], interim: str, task: str,
            final: str) -> Callable[[Obj, Obj], None]:
    def run(server: Obj, _: Obj) -> None:
        _transition(server, action, allowed, interim, task, _final(final))
    return run


def _lock(server: Obj, arg: Obj) -> None:
    server["locked"] = True
    server["locked_reason"] = (arg or {}).get("locked_reason") if isinstance(arg, dict) else None


def _unlock(server: Obj, _: Obj) -> None:
    server["locked"] = False
    server["locked_reason"] = None


def _add_sg(server: Obj, arg: Obj) -> None:
    group = security_groups_for({"security_groups": [{"name": arg.get("name")}]}, server["_project_id"])[0]
    if group["name"] in server["_sg_names"]:
        raise SandboxError(400, f"Security group {group['name']} is already associated with the instance "
                           f"{server['id']}")
    server["_sg_names"].append(group["name"])
    for port in store().find("ports", device_id=server["id"]):
        port["security_groups"] = list(dict.fromkeys(port["security_groups"] + [group["id"]]))


def _remove_sg(server: Obj, arg: Obj) -> None:
    name = arg.get("name")
    if name not in server["_sg_names"]:
        raise SandboxError(404, f"Security group {name} not associated with the instance {server['id']}")
    group = security_groups_for({"security_groups": [{"name": name}]}, server["_project_id"])[0]
    server["_sg_names"].remove(name)
    for port in store().find("ports", device_id=server["id"]):
        port["security_groups"] = [g for g in port["security_groups"] if g != group["id"]]


def _create_image(server: Obj, arg: Obj) -> Obj:
    """Snapshot the server into a Glance image owned by its project (active after ``image_import``)."""
    if not arg.get("name"):
        raise SandboxError(400, "Invalid input for field/attribute name.")
    if server["status"] not in ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED") or server.get("OS-EXT-STS:task_state"):
        raise SandboxError(409, f"Cannot 'createImage' instance {server['id']} while it is in vm_state "
                           f"{server.get('OS-EXT-STS:vm_state')}")
    st = store()
    source = st.get("images", server.get("_image_id") or "") or {}
    now = iso(st.clock())
    image = {"id": st.new_id(), "name": arg["name"], "status": "queued", "visibility": "private", "protected": False,
             "owner": server["_project_id"], "container_format": "bare", "disk_format": source.get("disk_format", "qcow2"),
             "size": source.get("size"), "virtual_size": source.get("virtual_size"), "min_disk": server["_flavor"]["disk"],
             "min_ram": source.get("min_ram", 0), "checksum": None, "os_hash_algo": None, "os_hash_value": None,
             "tags": [], "os_hidden": False, "image_type": "snapshot", "instance_uuid": server["id"],
             "base_image_ref": server.get("_image_id"), "created_at": now, "updated_at": now, "_members": [],
             **{str(k): str(v) for k, v in (arg.get("metadata") or {}).items()}}
    st.add("images", image)
    st.schedule(image, sb().behaviour.delay("image_import"), {"status": "active"})
    return {"image_id": image["id"]}


def _legacy_console(server: Obj, arg: Obj) -> Obj:
    kind = str(arg.get("type"))
    return {"console": {"type": kind, "url": console_url(server["id"], kind)[1]}}


ACTION_NAMES = {"os-stop": "stop", "os-start": "start", "confirmResize": "confirmResize",
                "revertResize": "revertResize", "addSecurityGroup": "addSecurityGroup"}

ACTIONS: dict[str, Callable[[Obj, Obj], Any]] = {
    "reboot": _reboot, "rebuild": _rebuild, "resize": _resize,
    "confirmResize": lambda s, a: _confirm(s, False), "revertResize": lambda s, a: _confirm(s, True),
    "os-stop": _simple("stop", ("ACTIVE", "ERROR"), "ACTIVE", "powering-off", "SHUTOFF"),
    "os-start": _simple("start", ("SHUTOFF",), "SHUTOFF", "powering-on", "ACTIVE"),
    "suspend": _simple("suspend", RUNNING, "ACTIVE", "suspending", "SUSPENDED"),
    "resume": _simple("resume", ("SUSPENDED",), "SUSPENDED", "resuming", "ACTIVE"),
    "pause": _simple("pause", RUNNING, "ACTIVE", "pausing", "PAUSED"),
    "unpause": _simple("unpause", ("PAUSED",), "PAUSED", "unpausing", "ACTIVE"),
    "shelve": _simple("shelve", ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED"), "ACTIVE", "shelving",
                      "SHELVED_OFFLOADED"),
    "unshelve": _simple("unshelve", ("SHELVED_OFFLOADED",), "SHELVED_OFFLOADED", "unshelving", "ACTIVE"),
    "lock": _lock, "unlock": _unlock, "addSecurityGroup": _add_sg, "removeSecurityGroup": _remove_sg,
    "changePassword": lambda s, a: None, "createImage": _create_image,
    "os-getConsoleOutput": lambda s, a: {"output": f"sandbox console of {s['name']}\nlogin: \n"},
    "os-getVNCConsole": lambda s, a: _legacy_console(s, a), "os-getSPICEConsole": lambda s, a: _legacy_console(s, a),
    "os-getSerialConsole": lambda s, a: _legacy_console(s, a),
}


@bp.post("/servers/<server_id>/action")
def server_action(server_id: str) -> Any:
    server = get_server(server_id)
    data = body()
    if len(data) != 1 or next(iter(data)) not in ACTIONS:
        raise SandboxError(400, f"There is no such action: {', '.join(data) or 'None'}")
    name, arg = next(iter(data.items()))
    if name != "unlock" and not name.startswith("os-get"):
        check_unlocked(server)
    if name == "unlock" and server.get("locked") and not auth.ctx().is_admin and \
            server["user_id"] != auth.ctx().user_id:
        raise SandboxError(403, "Policy doesn't allow os_compute_api:os-lock-server:unlock to be performed.")
    result = ACTIONS[name](server, arg if isinstance(arg, dict) else {})
    readonly = name.startswith("os-get")
    if not readonly:
        record_action(server, ACTION_NAMES.get(name, name))
    store().touch()
    if name == "createImage":
        return reply(result, 202, {"Location": f"{request.host_url.rstrip('/')}/image/v2/images/{result['image_id']}"})
    if result is not None:
        return reply(result, 200 if readonly else 202)
    return no_content(202)


# ---- os-interface ---------------------------------------------------------------------------
def _iface(port: Obj) -> Obj:
    return {"port_id": port["id"], "net_id": port["network_id"], "mac_addr": port["mac_address"],
            "port_state": port["status"], "fixed_ips": [dict(ip) for ip in port["fixed_ips"]], "tag": None}


@bp.get("/servers/<server_id>/os-interface")
def list_interfaces(server_id: str) -> Any:
    get_server(server_id)
    return reply({"interfaceAttachments": [_iface(p) for p in store().find("ports", device_id=server_id)]})


@bp.get("/servers/<server_id>/os-interface/<port_id>")
def show_interface(server_id: str, port_id: str) -> Any:
    get_server(server_id)
    port = store().get("ports", port_id)
    if port is None or port["device_id"] != server_id:
        raise SandboxError(404, f"Port {port_id} is not attached")
    return reply({"interfaceAttachment": _iface(port)})


@bp.post("/servers/<server_id>/os-interface")
def attach_interface(server_id: str) -> Any:
    server = get_server(server_id)
    check_unlocked(server)
    if server["status"] not in ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED") or server.get("OS-EXT-STS:task_state"):
        raise SandboxError(409, f"Cannot 'attach_interface' instance {server_id} while it is in vm_state "
                           f"{server.get('OS-EXT-STS:vm_state')}")
    data = body("interfaceAttachment", required=False)
    nic: Obj = {}
    if data.get("port_id"):
        nic = {"port": data["port_id"]}
    elif data.get("net_id"):
        ips = data.get("fixed_ips") or []
        nic = {"uuid": data["net_id"], "fixed_ip": ips[0].get("ip_address") if ips else None}
    nics = networks_for({"networks": [nic] if nic else None}, server["_project_id"])
    before = {p["id"] for p in store().find("ports", device_id=server_id)}
    groups = security_groups_for({"security_groups": [{"name": n} for n in server["_sg_names"]]}, server["_project_id"])
    attach_nics(server, nics[:1], groups)
    new = [p for p in store().find("ports", device_id=server_id) if p["id"] not in before]
    return reply({"interfaceAttachment": _iface(new[0])})


@bp.delete("/servers/<server_id>/os-interface/<port_id>")
def detach_interface(server_id: str, port_id: str) -> Any:
    server = get_server(server_id)
    check_unlocked(server)
    port = store().get("ports", port_id)
    if port is None or port["device_id"] != server_id:
        raise SandboxError(404, f"Port {port_id} is not attached")
    if port_id in server["_own_ports"]:
        server["_own_ports"].remove(port_id)
        release_port(port_id)
    else:
        bind_port(port, "", "")
    return no_content(202)


# ---- volume attachments ---------------------------------------------------------------------
def _vol_attachment(server: Obj, bdm: Obj) -> Obj:
    return {"id": bdm["volume_id"], "serverId": server["id"], "volumeId": bdm["volume_id"], "device": bdm["device"],
            "tag": None, "delete_on_termination": bdm.get("delete_on_termination", False),
            "attachment_id": bdm.get("attachment_id"), "bdm_uuid": bdm.get("attachment_id")}


@bp.get("/servers/<server_id>/os-volume_attachments")
def list_volume_attachments(server_id: str) -> Any:
    server = get_server(server_id)
    return reply({"volumeAttachments": [_vol_attachment(server, b) for b in server["_bdm"]]})


@bp.get("/servers/<server_id>/os-volume_attachments/<volume_id>")
def show_volume_attachment(server_id: str, volume_id: str) -> Any:
    server = get_server(server_id)
    for bdm in server["_bdm"]:
        if bdm["volume_id"] == volume_id:
            return reply({"volumeAttachment": _vol_attachment(server, bdm)})
    raise SandboxError(404, f"Volume {volume_id} is not attached to the instance {server_id}")


@bp.post("/servers/<server_id>/os-volume_attachments")
def attach_volume(server_id: str) -> Any:
    server = get_server(server_id)
    check_unlocked(server)
    data = body("volumeAttachment")
    vol = store().get("volumes", str(data.get("volumeId")))
    if vol is None or not auth.can_see(vol):
        raise SandboxError(404, f"Volume {data.get('volumeId')} could not be found.")
    if vol["status"] != "available" and not vol.get("multiattach"):
        raise SandboxError(400, f"Invalid volume: volume {vol['id']} status must be 'available'. Currently in "
                           f"'{vol['status']}'")
    if server["status"] not in ("ACTIVE", "SHUTOFF", "PAUSED", "SUSPENDED"):
        raise SandboxError(409, f"Cannot 'attach_volume' instance {server_id} while it is in vm_state "
                           f"{server.get('OS-EXT-STS:vm_state')}")
    device = data.get("device") or f"/dev/vd{chr(ord('a') + len(server['_bdm']) + 1)}"
    attachment = cinder.attach(vol, server_id, device)
    bdm = {"volume_id": vol["id"], "device": device, "attachment_id": attachment["attachment_id"],
           "delete_on_termination": bool(data.get("delete_on_termination", False))}
    server["_bdm"].append(bdm)
    return reply({"volumeAttachment": _vol_attachment(server, bdm)})


@bp.delete("/servers/<server_id>/os-volume_attachments/<volume_id>")
def detach_volume(server_id: str, volume_id: str) -> Any:
    server = get_server(server_id)
    check_unlocked(server)
    bdm = next((b for b in server["_bdm"] if b["volume_id"] == volume_id), None)
    if bdm is None:
        raise SandboxError(404, f"Volume {volume_id} is not attached to the instance {server_id}")
    server["_bdm"].remove(bdm)
    vol = store().get("volumes", volume_id)
    if vol is not None:
        cinder.detach(vol, server_id)
    return no_content(202)
