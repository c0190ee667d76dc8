"""Nova v2.1 flavors (list/show; create/delete and extra specs for admins), keypairs (create with
a generated private key, or import), server groups (policies), availability zones, limits and
quota sets for the sandbox.
"""
from __future__ import annotations

import base64
import hashlib
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, quotas
from app.sandbox.compute_servers import links
from app.sandbox.http import SandboxError, body, iso, microversion, no_content, paginate, reply
from app.sandbox.image import visible
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("compute_misc", __name__)

POLICIES = ("affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity")


# ---- flavors --------------------------------------------------------------------------------
def flavor_view(f: Obj, detail: bool = True) -> Obj:
    if not detail:
        return {"id": f["id"], "name": f["name"], "description": f.get("description"),
                "links": links("flavors", f["id"])}
    out = {k: v for k, v in f.items() if not k.startswith("_")}
    out["swap"] = f.get("swap") or ""
    out["links"] = links("flavors", f["id"])
    return out


def _flavors() -> list[Obj]:
    items = store().all("flavors")
    args = request.args
    if args.get("minRam"):
        items = [f for f in items if f["ram"] >= int(args["minRam"])]
    if args.get("minDisk"):
        items = [f for f in items if f["disk"] >= int(args["minDisk"])]
    return paginate(items)


@bp.get("/flavors")
def list_flavors() -> Any:
    return reply({"flavors": [flavor_view(f, False) for f in _flavors()]})


@bp.get("/flavors/detail")
def list_flavors_detail() -> Any:
    return reply({"flavors": [flavor_view(f) for f in _flavors()]})


def _flavor(flavor_id: str) -> Obj:
    f = store().get("flavors", flavor_id)
    if f is None:
        raise SandboxError(404, f"Flavor {flavor_id} could not be found.")
    return f


@bp.get("/flavors/<flavor_id>")
def show_flavor(flavor_id: str) -> Any:
    return reply({"flavor": flavor_view(_flavor(flavor_id))})


@bp.post("/flavors")
def create_flavor() -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-flavor-manage:create to be performed.")
    data = body("flavor")
    st = store()
    try:
        ram, vcpus, disk = int(data["ram"]), int(data["vcpus"]), int(data.get("disk", 0))
    except (KeyError, TypeError, ValueError):
        raise SandboxError(400, "Invalid input for field/attribute flavor.") from None
    fid = str(data.get("id") or st.new_id())
    if st.get("flavors", fid) or st.find("flavors", name=data.get("name")):
        raise SandboxError(409, f"Flavor with name {data.get('name')} already exists.")
    flavor: Obj = {"id": fid, "name": data.get("name"), "ram": ram, "vcpus": vcpus, "disk": disk,
              "OS-FLV-EXT-DATA:ephemeral": int(data.get("OS-FLV-EXT-DATA:ephemeral", 0)),
              "swap": int(data.get("swap") or 0), "rxtx_factor": float(data.get("rxtx_factor", 1.0)),
              "os-flavor-access:is_public": bool(data.get("os-flavor-access:is_public", True)),
              "OS-FLV-DISABLED:disabled": False, "description": data.get("description"), "extra_specs": {}}
    st.add("flavors", flavor)
    return reply({"flavor": flavor_view(flavor)})


@bp.delete("/flavors/<flavor_id>")
def delete_flavor(flavor_id: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-flavor-manage:delete to be performed.")
    _flavor(flavor_id)
    store().remove("flavors", flavor_id)
    return no_content(202)


@bp.get("/flavors/<flavor_id>/os-extra_specs")
def list_extra_specs(flavor_id: str) -> Any:
    return reply({"extra_specs": _flavor(flavor_id).get("extra_specs", {})})


@bp.post("/flavors/<flavor_id>/os-extra_specs")
def set_extra_specs(flavor_id: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-flavor-extra-specs:create to be performed.")
    flavor = _flavor(flavor_id)
    flavor.setdefault("extra_specs", {}).update({str(k): str(v) for k, v in body().get("extra_specs", {}).items()})
    store().touch()
    return reply({"extra_specs": flavor["extra_specs"]})


@bp.delete("/flavors/<flavor_id>/os-extra_specs/<key>")
def delete_extra_spec(flavor_id: str, key: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-flavor-extra-specs:delete to be performed.")
    _flavor(flavor_id).get("extra_specs", {}).pop(key, None)
    store().touch()
    return no_content(200)


# ---- keypairs -------------------------------------------------------------------------------
def _fingerprint(public_key: str) -> str:
    try:
        blob = base64.b64decode(public_key.split()[1], validate=True)
    except (IndexError, ValueError):
        raise SandboxError(400, "Keypair data is invalid: failed to generate fingerprint") from None
    digest = hashlib.md5(blob).hexdigest()
    return ":".join(digest[i:i + 2] for i in range(0, 32, 2))


def _generate() -> tuple[str, str]:
    """A new RSA key pair as Nova makes one: (OpenSSH public key, PEM private key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode() + " Generated-by-Nova"
    return public, private


def keypair_view(kp: Obj) -> Obj:
    return {k: v for k, v in kp.items() if not k.startswith("_") and k != "private_key"}


def _keypair(name: str) -> Obj:
    c = auth.ctx()
    user_id = request.args.get("user_id") if c.is_admin and request.args.get("user_id") else c.user_id
    kp = next(iter(store().find("keypairs", name=name, user_id=user_id)), None)
    if kp is None:
        raise SandboxError(404, f"Keypair {name} not found for user {user_id}")
    return kp


@bp.get("/os-keypairs")
def list_keypairs() -> Any:
    c = auth.ctx()
    items = [kp for kp in store().all("keypairs") if kp["user_id"] == c.user_id]
    return reply({"keypairs": [{"keypair": {k: kp[k] for k in ("name", "public_key", "fingerprint", "type")}}
                               for kp in paginate(items, "name")]})


@bp.post("/os-keypairs")
def create_keypair() -> Any:
    c = auth.ctx()
    data = body("keypair")
    st = store()
    name = data.get("name")
    if not name or not isinstance(name, str) or len(name) > 255:
        raise SandboxError(400, "Keypair data is invalid: Keypair name must be string and between 1 and 255 "
                           "characters long")
    user_id = data.get("user_id") if c.is_admin and data.get("user_id") else c.user_id
    if st.find("keypairs", name=name, user_id=user_id):
        raise SandboxError(409, f"Key pair '{name}' already exists.")
    quotas.check(st, c.project_id, "compute", "key_pairs", len(st.find("keypairs", user_id=user_id)))
    private = None
    public = data.get("public_key")
    if not public:
        public, private = _generate()
    kp = {"id": st.new_id(), "name": name, "public_key": public, "fingerprint": _fingerprint(public),
          "type": data.get("type", "ssh"), "user_id": user_id, "created_at": iso(st.clock(), "cinder"),
          "deleted": False, "deleted_at": None, "updated_at": None, "_project_id": c.project_id}
    st.add("keypairs", kp)
    out = {k: kp[k] for k in ("name", "public_key", "fingerprint", "type", "user_id")}
    if private:
        out["private_key"] = private
    return reply({"keypair": out}, 201 if microversion("compute") >= (2, 2) else 200)


@bp.get("/os-keypairs/<name>")
def show_keypair(name: str) -> Any:
    return reply({"keypair": keypair_view(_keypair(name))})


@bp.delete("/os-keypairs/<name>")
def delete_keypair(name: str) -> Any:
    store().remove("keypairs", _keypair(name)["id"])
    return no_content(202)


# ---- server groups --------------------------------------------------------------------------
def group_view(g: Obj) -> Obj:
    out = {k: v for k, v in g.items() if not k.startswith("_")}
    out["policies"] = [g["policy"]]
    return out


@bp.get("/os-server-groups")
def list_groups() -> Any:
    items = auth.visible(store().all("server_groups"), all_param="all_projects")
    return reply({"server_groups": [group_view(g) for g in paginate(items)]})


@bp.post("/os-server-groups")
def create_group() -> Any:
    c = auth.ctx()
    data = body("server_group")
    st = store()
    policy = data.get("policy") or (data.get("policies") or [None])[0]
    if policy not in POLICIES or not data.get("name"):
        raise SandboxError(400, f"Invalid input for field/attribute policies. Value: {policy}.")
    rules = data.get("rules") or {}
    if rules and policy != "anti-affinity":
        raise SandboxError(400, "Only anti-affinity policy supports rules.")
    quotas.check(st, c.project_id, "compute", "server_groups", len(st.find("server_groups", project_id=c.project_id)))
    group = {"id": st.new_id(), "name": data["name"], "policy": policy, "rules": rules, "members": [],
             "metadata": {}, "project_id": c.project_id, "user_id": c.user_id}
    st.add("server_groups", group)
    return reply({"server_group": group_view(group)})


@bp.get("/os-server-groups/<group_id>")
def show_group(group_id: str) -> Any:
    return reply({"server_group": group_view(auth.owned(store(), "server_groups", group_id,
                                                        "Instance group"))})


@bp.delete("/os-server-groups/<group_id>")
def delete_group(group_id: str) -> Any:
    auth.owned(store(), "server_groups", group_id, "Instance group")
    store().remove("server_groups", group_id)
    return no_content()


# ---- availability zones, limits, quotas -----------------------------------------------------
@bp.get("/os-availability-zone")
def list_azs() -> Any:
    return reply({"availabilityZoneInfo": [{"zoneName": "nova", "zoneState": {"available": True}, "hosts": None}]})


@bp.get("/os-availability-zone/detail")
def list_azs_detail() -> Any:
    hosts = {"sandbox": {"nova-compute": {"available": True, "active": True, "updated_at": iso(store().clock())}}}
    return reply({"availabilityZoneInfo": [{"zoneName": "nova", "zoneState": {"available": True}, "hosts": hosts}]})


def _usage(project_id: str | None) -> Obj:
    st = store()
    servers = st.find("servers", _project_id=project_id)
    return {"instances": len(servers), "cores": sum(s["_flavor"]["vcpus"] for s in servers),
            "ram": sum(s["_flavor"]["ram"] for s in servers),
            "server_groups": len(st.find("server_groups", project_id=project_id)),
            "key_pairs": len(st.find("keypairs", user_id=auth.ctx().user_id))}


@bp.get("/limits")
def limits() -> Any:
    project = request.args.get("tenant_id") if auth.ctx().is_admin and request.args.get("tenant_id") \
        else auth.ctx().project_id
    q = quotas.limits(store(), project, "compute")
    used = _usage(project)
    absolute = {"maxTotalInstances": q["instances"], "maxTotalCores": q["cores"], "maxTotalRAMSize": q["ram"],
                "maxTotalKeypairs": q["key_pairs"], "maxServerMeta": q["metadata_items"],
                "maxServerGroups": q["server_groups"], "maxServerGroupMembers": q["server_group_members"],
                "maxPersonality": q["injected_files"], "maxPersonalitySize": q["injected_file_content_bytes"],
                "maxImageMeta": 128, "totalInstancesUsed": used["instances"], "totalCoresUsed": used["cores"],
                "totalRAMUsed": used["ram"], "totalServerGroupsUsed": used["server_groups"],
                "maxSecurityGroups": 10, "maxSecurityGroupRules": 20, "maxTotalFloatingIps": 10,
                "totalFloatingIpsUsed": 0, "totalSecurityGroupsUsed": 0}
    return reply({"limits": {"absolute": absolute, "rate": []}})


@bp.get("/os-quota-sets/<project_id>")
def show_quota(project_id: str) -> Any:
    if project_id != auth.ctx().project_id:
        auth.require_admin("Policy doesn't allow os_compute_api:os-quota-sets:show to be performed.")
    return reply({"quota_set": dict(quotas.limits(store(), project_id, "compute"), id=project_id)})


@bp.get("/os-quota-sets/<project_id>/detail")
def quota_detail(project_id: str) -> Any:
    if project_id != auth.ctx().project_id:
        auth.require_admin("Policy doesn't allow os_compute_api:os-quota-sets:detail to be performed.")
    used = _usage(project_id)
    return reply({"quota_set": dict({k: {"limit": v, "in_use": used.get(k, 0), "reserved": 0}
                                     for k, v in quotas.limits(store(), project_id, "compute").items()},
                                    id=project_id)})


@bp.get("/os-quota-sets/<project_id>/defaults")
def quota_defaults(project_id: str) -> Any:
    return reply({"quota_set": dict(quotas.DEFAULTS["compute"], id=project_id)})


@bp.put("/os-quota-sets/<project_id>")
def update_quota(project_id: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-quota-sets:update to be performed.")
    return reply({"quota_set": quotas.update(store(), project_id, "compute", body("quota_set"))})


@bp.delete("/os-quota-sets/<project_id>")
def delete_quota(project_id: str) -> Any:
    auth.require_admin("Policy doesn't allow os_compute_api:os-quota-sets:delete to be performed.")
    quotas.reset(store(), project_id, "compute")
    return no_content(202)


# ---- the image proxy (deprecated in Nova, still used by some clients) -----------------------
def _nova_image(img: Obj, detail: bool) -> Obj:
    out: Obj = {"id": img["id"], "name": img["name"], "links": links("images", img["id"])}
    if detail:
        out.update(status=str(img["status"]).upper(), minDisk=img.get("min_disk", 0), minRam=img.get("min_ram", 0),
                   progress=100 if img["status"] == "active" else 0, created=img["created_at"],
                   updated=img["updated_at"], metadata={}, **{"OS-EXT-IMG-SIZE:size": img.get("size")})
    return out


def _images() -> list[Obj]:
    return [i for i in store().all("images") if visible(i)]


@bp.get("/images")
def list_images() -> Any:
    return reply({"images": [_nova_image(i, False) for i in paginate(_images())]})


@bp.get("/images/detail")
def list_images_detail() -> Any:
    return reply({"images": [_nova_image(i, True) for i in paginate(_images())]})


@bp.get("/images/<image_id>")
def show_image(image_id: str) -> Any:
    img = next((i for i in _images() if i["id"] == image_id), None)
    if img is None:
        raise SandboxError(404, "Image not found.")
    return reply({"image": _nova_image(img, True)})
