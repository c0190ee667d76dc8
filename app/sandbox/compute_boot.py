"""What a Nova boot request asks of the other sandbox services: the NICs (ports bound, ports made
on networks), the security groups, and the block devices (Cinder volumes attached or made).
Used by server create (:mod:`app.sandbox.compute_servers`) and interface attach
(:mod:`app.sandbox.compute_actions`).
"""
from __future__ import annotations

from app.sandbox import auth
from app.sandbox import volume as cinder
from app.sandbox.http import SandboxError
from app.sandbox.network_ports import bind_port, create_port
from app.sandbox.network_sg import ensure_default_sg
from app.sandbox.runtime import store
from app.sandbox.store import Obj


def networks_for(data: Obj, project_id: str | None) -> list[Obj]:
    """The NIC requests: ``[{"port": id} | {"uuid": net, "fixed_ip": ip}]``."""
    st = store()
    nets = data.get("networks")
    if nets == "none":
        return []
    if nets is None or nets == "auto":
        candidates = [n for n in st.all("networks") if not n.get("router:external")
                      and (n["project_id"] == project_id or n.get("shared"))]
        if len(candidates) > 1:
            raise SandboxError(409, "Multiple possible networks found, use a Network ID to be more specific.")
        return [{"uuid": c["id"]} for c in candidates]
    if not isinstance(nets, list):
        raise SandboxError(400, "Invalid input for field/attribute networks.")
    out = []
    for nic in nets:
        if nic.get("port"):
            port = st.get("ports", nic["port"])
            if port is None or not auth.can_see(port):
                raise SandboxError(404, f"Port id {nic['port']} could not be found.")
            if port["device_id"]:
                raise SandboxError(409, f"Port {port['id']} is still in use.")
            out.append({"port": port["id"]})
        elif nic.get("uuid"):
            net = st.get("networks", nic["uuid"])
            if net is None or not (auth.can_see(net) or net.get("shared") or net.get("router:external")):
                raise SandboxError(400, f"Network {nic['uuid']} could not be found.")
            out.append({"uuid": net["id"], "fixed_ip": nic.get("fixed_ip")})
        else:
            raise SandboxError(400, "Bad networks format: network uuid is not in proper format ()")
    return out


def security_groups_for(data: Obj, project_id: str | None) -> list[Obj]:
    """The security groups a boot request names (``default`` when none), by id or name."""
    ensure_default_sg(project_id)
    names = [g.get("name") for g in data.get("security_groups") or [{"name": "default"}]]
    st = store()
    groups = []
    for name in names:
        sg = st.get("security_groups", name) or next(
            (s for s in st.all("security_groups") if s["name"] == name and s["project_id"] == project_id), None)
        if sg is None:
            raise SandboxError(400, f"Security group {name} not found for project {project_id}.")
        groups.append(sg)
    return groups


def attach_nics(server: Obj, nics: list[Obj], groups: list[Obj]) -> None:
    """Bind the requested ports to ``server`` and create a port (Nova's own) for each network."""
    st = store()
    for nic in nics:
        if "port" in nic:
            bind_port(st.get("ports", nic["port"]), server["id"], "compute:nova")  # type: ignore[arg-type]
            continue
        req: Obj = {"network_id": nic["uuid"], "device_id": server["id"], "device_owner": "compute:nova",
                    "security_groups": [g["id"] for g in groups]}
        if nic.get("fixed_ip"):
            req["fixed_ips"] = [{"ip_address": nic["fixed_ip"]}]
        try:
            port = create_port(req, server["_project_id"])
        except SandboxError as err:
            raise SandboxError(400 if err.status < 500 else err.status, err.message) from None
        server["_own_ports"].append(port["id"])


def attach_block_devices(server: Obj, data: Obj) -> None:
    """Attach the volumes of ``data``'s ``block_device_mapping_v2`` to ``server`` (made from an
    image, a snapshot or blank when asked), recording them in ``_bdm``; a local image disk sets
    the boot image. :raises SandboxError: 400 for a mapping Nova refuses."""
    st = store()
    for bdm in data.get("block_device_mapping_v2") or []:
        source, dest = bdm.get("source_type"), bdm.get("destination_type", "volume")
        if dest == "local":
            if source == "image" and bdm.get("boot_index") in (0, "0"):
                server["_image_id"] = bdm.get("uuid") or server.get("_image_id")
            continue
        if source == "volume":
            vol = st.get("volumes", bdm.get("uuid"))
            if vol is None or not auth.can_see(vol):
                raise SandboxError(400, f"Block Device Mapping is Invalid: failed to get volume {bdm.get('uuid')}.")
            if vol["status"] != "available":
                raise SandboxError(400, f"Block Device Mapping is Invalid: volume {vol['id']} status must be "
                                   f"'available', not '{vol['status']}'.")
        elif source in ("image", "blank", "snapshot"):
            size = int(bdm.get("volume_size") or 1)
            vol = cinder.new_volume(server["_project_id"], size, name="", image_id=bdm.get("uuid")
                                    if source == "image" else None,
                                    snapshot_id=bdm.get("uuid") if source == "snapshot" else None, ready=True)
        else:
            raise SandboxError(400, f"Block Device Mapping is Invalid: source_type {source} is not supported.")
        device = bdm.get("device_name") or f"/dev/vd{chr(ord('a') + len(server['_bdm']))}"
        cinder.attach(vol, server["id"], device)
        server["_bdm"].append({"volume_id": vol["id"], "device": device,
                               "delete_on_termination": bool(bdm.get("delete_on_termination", False))})
