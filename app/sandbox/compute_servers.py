"""Nova v2.1 servers for the sandbox: create (flavor, image, key_name, networks, ports,
security_groups, user_data, metadata, config_drive, block_device_mapping_v2, scheduler hints),
list/show in Nova's shapes, and delete. BUILD becomes ACTIVE after the ``server_build`` delay
(or ERROR when a ``server_error`` fault fires), and then its user data's signalling commands are
performed (:mod:`app.sandbox.agent`); a deleted server is gone after ``server_delete``.

Server records keep Nova's field names; private keys: ``_project_id``, ``_flavor`` (the flavor
snapshot), ``_own_ports`` (ports Nova created and deletes), ``_bdm`` (attached volumes).
What a boot request asks of Neutron and Cinder (NICs, security groups, block devices) is in
:mod:`app.sandbox.compute_boot`; actions, interfaces, volume attachments and metadata are in
:mod:`app.sandbox.compute_actions`.
"""
from __future__ import annotations

import base64
import binascii
import re
import secrets
from typing import Any

from flask import Blueprint, request

from app.sandbox import agent, auth, quotas
from app.sandbox import volume as cinder
from app.sandbox.compute_boot import attach_block_devices, attach_nics, networks_for, security_groups_for
from app.sandbox.compute_hosts import host_id, place, record_action
from app.sandbox.http import SandboxError, body, iso, microversion, no_content, paginate, reply
from app.sandbox.network_ports import bind_port, release_port
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("compute", __name__)

ACTIVE_STATE = {"status": "ACTIVE", "OS-EXT-STS:vm_state": "active", "OS-EXT-STS:task_state": None,
                "OS-EXT-STS:power_state": 1, "progress": 100}


def base_url() -> str:
    return request.host_url.rstrip("/") + "/compute/v2.1"


def links(kind: str, obj_id: str) -> list[Obj]:
    return [{"rel": "self", "href": f"{base_url()}/{kind}/{obj_id}"},
            {"rel": "bookmark", "href": f"{request.host_url.rstrip('/')}/compute/{kind}/{obj_id}"}]


def get_server(server_id: str) -> Obj:
    server = store().get("servers", server_id)
    if server is None or not auth.can_see(server):
        raise SandboxError(404, f"Instance {server_id} could not be found.")
    return server


def find_flavor(ref: Any) -> Obj | None:
    ref = str(ref or "").rstrip("/").rsplit("/", 1)[-1]
    st = store()
    return st.get("flavors", ref) or next((f for f in st.all("flavors") if f["name"] == ref), None)


def find_image(ref: Any) -> Obj | None:
    ref = str(ref or "").rstrip("/").rsplit("/", 1)[-1]
    image = store().get("images", ref)
    if image is None or image.get("status") != "active":
        return None
    if image.get("visibility") in ("public", "community", "shared") or image.get("owner") == auth.ctx().project_id:
        return image
    return None


class PortIndex:
    """The ports by device and the floating IPs by port, read once for a listing of many servers
    (each server's ``addresses`` otherwise scans every port: a listing was O(servers x ports))."""

    def __init__(self) -> None:
        st = store()
        self.ports: dict[Any, list[Obj]] = {}
        for port in st.all("ports"):
            self.ports.setdefault(port.get("device_id"), []).append(port)
        self.fips: dict[Any, list[Obj]] = {}
        for fip in st.all("floatingips"):
            self.fips.setdefault(fip.get("port_id"), []).append(fip)

    def ports_of(self, server_id: str) -> list[Obj]:
        return self.ports.get(server_id, [])

    def floating(self, port_id: str, address: str) -> list[Obj]:
        return [f for f in self.fips.get(port_id, []) if f.get("fixed_ip_address") == address]


def addresses(server: Obj, index: PortIndex | None = None) -> Obj:
    """Nova's ``addresses``: fixed IPs of the server's ports by network name, plus floating IPs
    (``index``: the ports and floating IPs read once for a listing)."""
    st = store()
    out: Obj = {}
    ports = index.ports_of(server["id"]) if index else st.find("ports", device_id=server["id"])
    for port in ports:
        net = st.get("networks", port["network_id"]) or {"name": port["network_id"]}
        entries = out.setdefault(net["name"], [])
        for ip in port["fixed_ips"]:
            entries.append({"version": 6 if ":" in ip["ip_address"] else 4, "addr": ip["ip_address"],
                            "OS-EXT-IPS:type": "fixed", "OS-EXT-IPS-MAC:mac_addr": port["mac_address"]})
            fips = index.floating(port["id"], ip["ip_address"]) if index else st.find(
                "floatingips", port_id=port["id"], fixed_ip_address=ip["ip_address"])
            for fip in fips:
                entries.append({"version": 4, "addr": fip["floating_ip_address"], "OS-EXT-IPS:type": "floating",
                                "OS-EXT-IPS-MAC:mac_addr": port["mac_address"]})
    return out


def server_view(server: Obj, detail: bool = True, index: PortIndex | None = None) -> Obj:
    """Nova's server body (a superset of the fields of every microversion); ``index``: see
    :class:`PortIndex`."""
    if not detail:
        return {"id": server["id"], "name": server["name"], "links": links("servers", server["id"])}
    out = {k: v for k, v in server.items() if not k.startswith("_")}
    flavor = server["_flavor"]
    out["flavor"] = {"id": flavor["id"], "links": links("flavors", flavor["id"]), "original_name": flavor["name"],
                     "vcpus": flavor["vcpus"], "ram": flavor["ram"], "disk": flavor["disk"],
                     "ephemeral": flavor.get("OS-FLV-EXT-DATA:ephemeral", 0), "swap": flavor.get("swap", 0) or 0,
                     "extra_specs": dict(flavor.get("extra_specs", {}))}
    out["image"] = {"id": server["_image_id"], "links": links("images", server["_image_id"])} \
        if server.get("_image_id") else ""
    out["addresses"] = addresses(server, index)
    out["links"] = links("servers", server["id"])
    out["os-extended-volumes:volumes_attached"] = [
        {"id": b["volume_id"], "delete_on_termination": b.get("delete_on_termination", False)}
        for b in server.get("_bdm", [])]
    st = store()
    out["security_groups"] = [{"name": n} for n in _group_names(st, server)] if server["status"] != "ERROR" else []
    out["server_groups"] = [g["id"] for g in st.all("server_groups") if server["id"] in g["members"]]
    return out


# ---- create ---------------------------------------------------------------------------------
def _group_names(st: Any, server: Obj) -> list[str]:
    """Nova's ``security_groups`` of a server: the groups of its ports in Neutron (each name
    once, in port order), so a group set on a port shows; a server without ports keeps the
    names it was booted with."""
    ports = [p for p in st.all("ports") if p.get("device_id") == server["id"]]
    if not ports:
        return list(server.get("_sg_names", []))
    names: list[str] = []
    for port in ports:
        for gid in port.get("security_groups") or []:
            group = st.get("security_groups", gid)
            if group is not None and group["name"] not in names:
                names.append(group["name"])
    return names


@bp.post("/servers")
def create_server() -> Any:
    payload = body()
    data = payload.get("server")
    if not isinstance(data, dict):
        raise SandboxError(400, "Invalid input for field/attribute server.")
    c = auth.ctx()
    st = store()
    name = data.get("name")
    if not name or not isinstance(name, str) or len(name) > 255:
        raise SandboxError(400, "Invalid input for field/attribute name.")
    flavor = find_flavor(data.get("flavorRef"))
    if flavor is None:
        raise SandboxError(400, f"Flavor {data.get('flavorRef')} could not be found.")
    bdms = data.get("block_device_mapping_v2") or []
    boot_from_volume = any(b.get("boot_index") in (0, "0") and b.get("destination_type") == "volume" for b in bdms)
    image = None
    if data.get("imageRef"):
        image = find_image(data["imageRef"])
        if image is None:
            raise SandboxError(400, f"Image {data['imageRef']} could not be found.")
    elif not boot_from_volume:
        raise SandboxError(400, "Block Device Mapping is Invalid: Boot sequence for the instance and image/block "
                           "device mapping combination is not valid.")
    if data.get("key_name") and not st.find("keypairs", name=data["key_name"], user_id=c.user_id):
        raise SandboxError(400, "Invalid key_name provided.")
    if data.get("user_data"):
        try:
            base64.b64decode(data["user_data"], validate=True)
        except (binascii.Error, ValueError):
            raise SandboxError(400, "User data needs to be valid base 64.") from None
    tags = _create_tags(data)
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict) or len(metadata) > quotas.limits(st, c.project_id, "compute")["metadata_items"]:
        raise SandboxError(400 if not isinstance(metadata, dict) else 403, "Quota exceeded for metadata_items")
    mine = st.find("servers", _project_id=c.project_id)
    quotas.check(st, c.project_id, "compute", "instances", len(mine))
    quotas.check(st, c.project_id, "compute", "cores", sum(s["_flavor"]["vcpus"] for s in mine), flavor["vcpus"])
    quotas.check(st, c.project_id, "compute", "ram", sum(s["_flavor"]["ram"] for s in mine), flavor["ram"])
    hints = payload.get("os:scheduler_hints") or payload.get("OS-SCH-HNT:scheduler_hints") or {}
    group = None
    if hints.get("group"):
        group = st.get("server_groups", hints["group"])
        if group is None or not auth.can_see(group):
            raise SandboxError(400, f"Invalid server group {hints['group']}.")
        quotas.check(st, c.project_id, "compute", "server_group_members", len(group["members"]))
    zone = str(data.get("availability_zone") or "nova").split(":")[0]
    if zone != "nova":
        raise SandboxError(400, "The requested availability zone is not available")
    nics = networks_for(data, c.project_id)
    groups = security_groups_for(data, c.project_id)
    now = st.clock()
    server_id = st.new_id()
    server: Obj = {
        "id": server_id, "name": name, "status": "BUILD", "tenant_id": c.project_id, "user_id": c.user_id,
        "metadata": {str(k): str(v) for k, v in metadata.items()}, "hostId": "",
        "created": iso(now), "updated": iso(now), "accessIPv4": data.get("accessIPv4", ""),
        "accessIPv6": data.get("accessIPv6", ""), "OS-DCF:diskConfig": data.get("OS-DCF:diskConfig", "MANUAL"),
        "progress": 0, "OS-EXT-AZ:availability_zone": zone,
        "config_drive": "True" if data.get("config_drive") else "", "key_name": data.get("key_name"),
        "OS-SRV-USG:launched_at": None, "OS-SRV-USG:terminated_at": None,
        "OS-EXT-SRV-ATTR:host": None, "OS-EXT-SRV-ATTR:hypervisor_hostname": None,
        "OS-EXT-SRV-ATTR:instance_name": f"instance-{st.next_number('instance'):08x}",
        "OS-EXT-SRV-ATTR:user_data": data.get("user_data"), "OS-EXT-SRV-ATTR:hostname": re.sub(
            r"[^a-z0-9-]", "-", name.lower())[:63],
        "OS-EXT-SRV-ATTR:reservation_id": "r-" + secrets.token_hex(4), "OS-EXT-SRV-ATTR:launch_index": 0,
        "OS-EXT-SRV-ATTR:kernel_id": "", "OS-EXT-SRV-ATTR:ramdisk_id": "", "OS-EXT-SRV-ATTR:root_device_name":
            "/dev/vda", "OS-EXT-STS:vm_state": "building", "OS-EXT-STS:task_state": "scheduling",
        "OS-EXT-STS:power_state": 0, "locked": False, "locked_reason": None,
        "description": data.get("description"), "tags": tags,
        "trusted_image_certificates": None, "host_status": "UP", "pinned_availability_zone": None,
        "_project_id": c.project_id, "_flavor": dict(flavor), "_image_id": image["id"] if image else "",
        "_own_ports": [], "_bdm": [], "_sg_names": [g["name"] for g in groups], "_hints": hints,
        "_personality": data.get("personality") or []}
    st.add("servers", server)
    try:
        attach_nics(server, nics, groups)
        attach_block_devices(server, data)
    except SandboxError:
        _cleanup(server)
        st.remove("servers", server_id)
        raise
    host = place(group)
    if host is not None:
        server.update({"OS-EXT-SRV-ATTR:host": host, "OS-EXT-SRV-ATTR:hypervisor_hostname": host,
                       "hostId": host_id(c.project_id, host)})
        if group is not None:
            group["members"].append(server_id)
    record_action(server, "create")
    delay = sb().behaviour.delay("server_build")
    if host is None or sb().behaviour.fault_for("compute.POST.servers", kinds=("server_error",)):
        reason = "No valid host was found. " + ("There are not enough hosts available." if host is None else "")
        st.schedule(server, delay, {"status": "ERROR", "OS-EXT-STS:vm_state": "error", "OS-EXT-STS:task_state": None,
                                    "fault": {"code": 500, "message": reason, "created": iso(now + delay)}})
    else:
        st.schedule(server, delay, dict(ACTIVE_STATE, **{"OS-SRV-USG:launched_at": iso(now + delay, "cinder")}))
        agent.boot(sb(), server, delay)  # cloud-init's part: the user data's signals, once ACTIVE
    admin_pass = data.get("adminPass") or secrets.token_urlsafe(9)
    resp = {"id": server_id, "links": links("servers", server_id), "OS-DCF:diskConfig": server["OS-DCF:diskConfig"],
            "security_groups": [{"name": g["name"]} for g in groups], "adminPass": admin_pass}
    return reply({"server": resp}, 202, {"Location": f"{base_url()}/servers/{server_id}"})


def _create_tags(data: Obj) -> list[str]:
    """The create body's ``tags`` (2.52+, Nova's tag rules: at most 50, each 1 to 60 characters
    without ``,`` or ``/``); below 2.52 the body's schema refuses the key, as Nova's.

    :raises SandboxError: 400 with Nova's schema message."""
    if "tags" not in data:
        return []
    tags = data["tags"]
    if microversion("compute") < (2, 52):
        raise SandboxError(400, "Invalid input for field/attribute server. Value: "
                           f"{data}. Additional properties are not allowed ('tags' was unexpected)")
    if not isinstance(tags, list) or len(tags) > 50 or not all(
            isinstance(t, str) and 0 < len(t) <= 60 and "," not in t and "/" not in t for t in tags):
        raise SandboxError(400, f"Invalid input for field/attribute tags. Value: {tags}.")
    return list(dict.fromkeys(tags))


# ---- list / show / update / delete ----------------------------------------------------------
def _listed(view: str) -> list[Obj]:
    """The servers a list shows. ``all_tenants`` (any value but a false one) is admin-only: Nova
    refuses it (403 ``os_compute_api:servers:<view>:get_all_tenants``) rather than ignoring it."""
    args = request.args
    if "all_tenants" in args and args["all_tenants"].strip().lower() not in ("0", "false", "off", "no", "n", "f"):
        auth.require_admin(f"Policy doesn't allow os_compute_api:servers:{view}:get_all_tenants to be performed.")
    items = auth.visible(store().all("servers"), all_param="all_tenants")
    if args.get("name"):
        pattern = re.compile(args["name"])
        items = [s for s in items if pattern.search(s["name"])]
    if args.get("status"):
        items = [s for s in items if s["status"] == args["status"].upper()]
    if args.get("flavor"):
        items = [s for s in items if s["_flavor"]["id"] == args["flavor"]]
    if args.get("image"):
        items = [s for s in items if s.get("_image_id") == args["image"]]
    if args.get("ip"):
        items = [s for s in items if any(args["ip"] in a["addr"] for al in addresses(s).values() for a in al)]
    if args.get("tags") and microversion("compute") >= (2, 26):  # below: ignored, as Nova
        wanted = set(args["tags"].split(","))
        items = [s for s in items if wanted <= set(s.get("tags", []))]
    items.sort(key=lambda s: s["created"], reverse=True)
    return paginate(items)


@bp.get("/servers")
def list_servers() -> Any:
    return reply({"servers": [server_view(s, detail=False) for s in _listed("index")]})


@bp.get("/servers/detail")
def list_servers_detail() -> Any:
    listed = _listed("detail")
    index = PortIndex() if len(listed) > 1 else None
    return reply({"servers": [server_view(s, index=index) for s in listed]})


@bp.get("/servers/<server_id>")
def show_server(server_id: str) -> Any:
    return reply({"server": server_view(get_server(server_id))})


@bp.put("/servers/<server_id>")
def update_server(server_id: str) -> Any:
    server = get_server(server_id)
    data = body("server")
    for key in ("name", "description", "accessIPv4", "accessIPv6", "OS-DCF:diskConfig"):
        if key in data:
            server[key] = data[key]
    server["updated"] = iso(store().clock())
    return reply({"server": server_view(server)})


def _cleanup(server: Obj) -> None:
    """Release what the server holds: Nova's own ports are deleted, user ports unbound, volumes
    detached (``delete_on_termination`` ones deleted), server-group membership dropped."""
    st = store()
    for port in st.find("ports", device_id=server["id"]):
        if port["id"] in server["_own_ports"]:
            release_port(port["id"])
        else:
            bind_port(port, "", "")
    for bdm in server.get("_bdm", []):
        vol = st.get("volumes", bdm["volume_id"])
        if vol is not None:
            cinder.detach(vol, server["id"])
            if bdm.get("delete_on_termination"):
                st.remove("volumes", vol["id"])
    server["_bdm"] = []
    for group in st.all("server_groups"):
        if server["id"] in group["members"]:
            group["members"].remove(server["id"])


def check_unlocked(server: Obj) -> None:
    if server.get("locked") and not auth.ctx().is_admin:
        raise SandboxError(409, f"Instance {server['id']} is locked")


@bp.delete("/servers/<server_id>")
def delete_server(server_id: str) -> Any:
    st = store()
    server = get_server(server_id)
    check_unlocked(server)
    if server.get("OS-EXT-STS:task_state") == "deleting":
        return no_content()
    st.cancel_pending(server)
    record_action(server, "delete")
    _cleanup(server)
    server.update({"OS-EXT-STS:task_state": "deleting", "updated": iso(st.clock())})
    st.schedule(server, sb().behaviour.delay("server_delete"), delete=True)
    return no_content()
