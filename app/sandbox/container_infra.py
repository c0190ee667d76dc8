"""Magnum v1 (``container-infra``) for the sandbox: cluster templates and clusters.

More in docs/code/sandbox.md (app.sandbox.container_infra).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, iso, no_content, public, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("containerinfra", __name__)
discovery_bp = Blueprint("containerinfra_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
TEMPLATES, CLUSTERS = "magnum_cluster_templates", "magnum_clusters"
DELAYS = {"cluster_create": 1.0, "cluster_update": 0.5, "cluster_delete": 0.3}
COES = ("kubernetes", "swarm", "swarm-mode", "mesos", "dcos")
COE_VERSIONS = {"kubernetes": ("v1.27.8", "1.12.6"), "swarm": ("1.2.5", "1.12.6"),
                "swarm-mode": ("1.2.5", "1.12.6"), "mesos": ("1.0.0", "1.12.6"),
                "dcos": ("1.11", "1.12.6")}
TEMPLATE_DEFAULTS: Obj = {
    "keypair_id": None, "flavor_id": "m1.small", "master_flavor_id": None, "fixed_network": None,
    "fixed_subnet": None, "network_driver": None, "volume_driver": None, "dns_nameserver": "8.8.8.8",
    "docker_volume_size": None, "docker_storage_driver": "devicemapper", "http_proxy": None,
    "https_proxy": None, "no_proxy": None, "labels": {}, "tls_disabled": False, "public": False,
    "registry_enabled": False, "server_type": "vm", "master_lb_enabled": False,
    "floating_ip_enabled": True, "hidden": False, "insecure_registry": None, "cluster_distro": None,
    "apiserver_port": None, "tags": None}
IN_USE_EDITABLE = ("name", "public", "hidden")


@bp.errorhandler(SandboxError)
def _error(err: SandboxError) -> Response:
    title = err.message.rstrip(".")
    return reply({"errors": [{"request_id": g.get("request_id", ""), "code": "client" if err.status < 500
                              else "server", "status": err.status, "title": title,
                              "detail": err.message, "links": []}]}, err.status)


def _version() -> Obj:
    base = request.host_url.rstrip("/")
    return {"id": "v1", "status": "CURRENT", "min_version": "1.1", "max_version": "1.11",
            "links": [{"href": f"{base}/container-infra/v1/", "rel": "self"}]}


@discovery_bp.get("/container-infra")
@discovery_bp.get("/container-infra/")
def versions() -> Any:
    return reply({"versions": [_version()], "name": "OpenStack Magnum API",
                  "description": "Magnum is an OpenStack project which aims to provide container "
                                 "cluster management."})


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"id": "v1", "media_types": [{"base": "application/json",
                                               "type": "application/vnd.openstack.magnum.v1+json"}],
                  "links": _version()["links"], "clustertemplates": [], "clusters": []})


def _delay(name: str) -> float:
    delays = sb().behaviour.delays
    return float(delays.get(name, DELAYS[name]))


def _links(kind: str, uuid: str) -> list[Obj]:
    base = request.host_url.rstrip("/")
    return [{"href": f"{base}/container-infra/v1/{kind}/{uuid}", "rel": "self"},
            {"href": f"{base}/container-infra/{kind}/{uuid}", "rel": "bookmark"}]


def _visible(obj: Obj) -> bool:
    return auth.can_see(obj) or bool(obj.get("public"))


def _find(collection: str, ident: str, what: str) -> Obj:
    """The object by uuid, else by name among those the caller sees.

    :raises SandboxError: 404 ``"<what> <ident> could not be found."``; 409 for an ambiguous name.
    """
    st = store()
    obj = st.get(collection, ident)
    if obj is not None and _visible(obj):
        return obj
    named = [o for o in st.all(collection) if o.get("name") == ident and _visible(o)]
    if len(named) > 1:
        raise SandboxError(409, f"Multiple {what}s exist with same name. Please use the {what} uuid "
                                f"instead.")
    if not named:
        raise SandboxError(404, f"{what} {ident} could not be found.")
    return named[0]


def _exists(collection: str, value: Any, message: str) -> str:
    """The id of the image / flavor / network ``value`` names (id or name).

    :raises SandboxError: 400 ``message``."""
    st = store()
    for obj in st.all(collection):
        if obj["id"] == value or obj.get("name") == value:
            return str(obj["id"])
    raise SandboxError(400, message)


def _keypair(name: str) -> None:
    c = auth.ctx()
    if not any(k.get("name") == name for k in store().all("keypairs")
               if k.get("user_id") in (None, c.user_id)):
        raise SandboxError(404, f"Unable to find keypair {name}.")


def _check_template(data: Obj) -> None:
    if data.get("coe") not in COES:
        raise SandboxError(400, f"Invalid input for field/attribute coe. Value: '{data.get('coe')}'. "
                                f"Value should be one of: {', '.join(COES)}")
    if not data.get("image_id"):
        raise SandboxError(400, "Invalid input for field/attribute image_id. Value: 'None'. "
                                "Mandatory field missing.")
    image = next((i for i in store().all("images") if data["image_id"] in (i["id"], i.get("name"))), None)
    if image is None:
        raise SandboxError(404, f"Image {data['image_id']} could not be found.")
    if not image.get("os_distro"):
        raise SandboxError(400, "Image doesn't contain os_distro field.")
    for key in ("flavor_id", "master_flavor_id"):
        if data.get(key):
            _exists("flavors", data[key], f"Flavor {data[key]} could not be found.")
    if data.get("external_network_id"):
        data["external_network_id"] = _exists("networks", data["external_network_id"],
                                              f"Neutron network {data['external_network_id']} could not be found.")
    if data.get("keypair_id"):
        _keypair(data["keypair_id"])


@bp.post("/clustertemplates")
def create_template() -> Any:
    c = auth.ctx()
    data = body()
    _check_template(data)
    st = store()
    uuid = st.new_id()
    image = next(i for i in st.all("images") if data["image_id"] in (i["id"], i.get("name")))
    now = iso(st.clock())
    ct = {**TEMPLATE_DEFAULTS, **{k: v for k, v in data.items() if v is not None}, "id": uuid,
          "uuid": uuid, "cluster_distro": image.get("os_distro"), "project_id": c.project_id,
          "user_id": c.user_id, "created_at": now, "updated_at": None}
    ct.setdefault("name", None)
    st.add(TEMPLATES, ct)
    return reply(_template_view(ct), 201)


def _template_view(ct: Obj) -> Obj:
    out = public(ct)
    out.pop("id", None)
    out["links"] = _links("clustertemplates", ct["uuid"])
    return out


@bp.get("/clustertemplates")
@bp.get("/clustertemplates/detail")
def list_templates() -> Any:
    items = [_template_view(o) for o in store().all(TEMPLATES) if _visible(o)]
    return reply({"clustertemplates": items})


@bp.get("/clustertemplates/<ident>")
def show_template(ident: str) -> Any:
    return reply(_template_view(_find(TEMPLATES, ident, "ClusterTemplate")))


def _apply_patch(obj: Obj, ops: Any, allowed: tuple[str, ...] | None) -> set[str]:
    """Apply a JSON patch (``replace``/``add``/``remove`` of top-level keys) to ``obj``.

    :returns: the changed keys. :raises SandboxError: 400 for a malformed patch."""
    if not isinstance(ops, list):
        raise SandboxError(400, "Invalid input for field/attribute patch. Value: must be a list.")
    changed: set[str] = set()
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in ("replace", "add", "remove") \
                or not str(op.get("path", "")).startswith("/"):
            raise SandboxError(400, f"Invalid input for field/attribute patch. Value: '{op}'.")
        key = str(op["path"]).strip("/").split("/")[0]
        if key in ("uuid", "id", "project_id", "user_id", "created_at", "updated_at", "links"):
            raise SandboxError(400, f"'/{key}' is an internal attribute and can not be updated")
        if allowed is not None and key not in allowed:
            changed.add(key)
            continue
        value = None if op["op"] == "remove" else op.get("value")
        if obj.get(key) != value:
            obj[key] = value
            changed.add(key)
    return changed


@bp.patch("/clustertemplates/<ident>")
def update_template(ident: str) -> Any:
    ct = _find(TEMPLATES, ident, "ClusterTemplate")
    if not auth.can_see(ct):
        raise SandboxError(403, "Not authorized to update a cluster template of another project.")
    draft = dict(ct)
    changed = _apply_patch(draft, request.get_json(silent=True, force=True), None)
    in_use = any(cl.get("cluster_template_id") == ct["uuid"] for cl in store().all(CLUSTERS))
    if in_use and changed - set(IN_USE_EDITABLE):
        raise SandboxError(400, f"ClusterTemplate {ct['uuid']} is referenced by one or multiple "
                                f"clusters.")
    ct.update(draft, updated_at=iso(store().clock()))
    store().touch()
    return reply(_template_view(ct))


@bp.delete("/clustertemplates/<ident>")
def delete_template(ident: str) -> Any:
    ct = _find(TEMPLATES, ident, "ClusterTemplate")
    if not auth.can_see(ct):
        raise SandboxError(403, "Not authorized to delete a cluster template of another project.")
    if any(cl.get("cluster_template_id") == ct["uuid"] for cl in store().all(CLUSTERS)):
        raise SandboxError(400, f"ClusterTemplate {ct['uuid']} is referenced by one or multiple "
                                f"clusters.")
    store().remove(TEMPLATES, ct["id"])
    return no_content()


def _addresses(cl: Obj, kind: str, count: int) -> list[str]:
    base = store().next_number("magnum_ip")
    return [f"172.24.4.{(base * 7 + i) % 250 + 2}" for i in range(count)] if kind else []


def _complete(cl: Obj, status: str) -> Obj:
    """What a finished create / update sets: the status, addresses for the node counts."""
    return {"status": status, "status_reason": "Stack " + status,
            "master_addresses": _addresses(cl, "master", int(cl["master_count"])),
            "node_addresses": _addresses(cl, "node", int(cl["node_count"])),
            "api_address": f"https://{cl['_api_ip']}:6443", "health_status": "HEALTHY"}


def _count(data: Obj, key: str) -> int:
    value = data.get(key, 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SandboxError(400, f"Invalid input for field/attribute {key}. Value: '{value}'. "
                                f"Value should be greater or equal to 1")
    return value


@bp.post("/clusters")
def create_cluster() -> Any:
    c = auth.ctx()
    data = body()
    if not data.get("cluster_template_id"):
        raise SandboxError(400, "Invalid input for field/attribute cluster_template_id. Value: "
                                "'None'. Mandatory field missing.")
    ct = _find(TEMPLATES, str(data["cluster_template_id"]), "ClusterTemplate")
    keypair = data.get("keypair") or ct.get("keypair_id")
    if not keypair:
        raise SandboxError(400, "Cluster has no keypair and the cluster template has none.")
    _keypair(keypair)
    st = store()
    uuid = st.new_id()
    coe_version, container_version = COE_VERSIONS.get(ct["coe"], ("", ""))
    cl: Obj = {
        "id": uuid, "uuid": uuid, "name": data.get("name") or f"cluster-{uuid[:8]}",
        "cluster_template_id": ct["uuid"], "keypair": keypair,
        "node_count": _count(data, "node_count"), "master_count": _count(data, "master_count"),
        "discovery_url": data.get("discovery_url") or f"https://discovery.etcd.io/{uuid.replace('-', '')}",
        "create_timeout": data.get("create_timeout", 60), "labels": data.get("labels") or ct.get("labels") or {},
        "flavor_id": data.get("flavor_id") or ct.get("flavor_id"),
        "master_flavor_id": data.get("master_flavor_id") or ct.get("master_flavor_id"),
        "status": "CREATE_IN_PROGRESS", "status_reason": None, "stack_id": st.new_id(),
        "api_address": None, "coe_version": coe_version, "container_version": container_version,
        "master_addresses": [], "node_addresses": [], "health_status": None, "health_status_reason": {},
        "faults": {}, "project_id": c.project_id, "user_id": c.user_id,
        "created_at": iso(st.clock()), "updated_at": None,
        "_api_ip": f"172.24.4.{st.next_number('magnum_api') % 250 + 2}"}
    st.add(CLUSTERS, cl)
    st.schedule(cl, _delay("cluster_create"), _complete(cl, "CREATE_COMPLETE"))
    return reply({"uuid": uuid}, 202)


def _cluster_view(cl: Obj) -> Obj:
    out = public(cl)
    out.pop("id", None)
    out["links"] = _links("clusters", cl["uuid"])
    return out


def _own_cluster(ident: str) -> Obj:
    cl = _find(CLUSTERS, ident, "Cluster")
    if not auth.can_see(cl):
        raise SandboxError(404, f"Cluster {ident} could not be found.")
    return cl


@bp.get("/clusters")
@bp.get("/clusters/detail")
def list_clusters() -> Any:
    return reply({"clusters": [_cluster_view(o) for o in store().all(CLUSTERS) if auth.can_see(o)]})


@bp.get("/clusters/<ident>")
def show_cluster(ident: str) -> Any:
    return reply(_cluster_view(_own_cluster(ident)))


@bp.patch("/clusters/<ident>")
def update_cluster(ident: str) -> Any:
    cl = _own_cluster(ident)
    if cl["status"].endswith("_IN_PROGRESS"):
        raise SandboxError(409, f"Cluster {cl['uuid']} already has an operation in progress.")
    draft = dict(cl)
    changed = _apply_patch(draft, request.get_json(silent=True, force=True), None)
    refused = sorted(changed - {"node_count", "health_status", "health_status_reason"})
    if refused:
        raise SandboxError(400, f"cannot change cluster property(ies) {', '.join(refused)}.")
    if "node_count" in changed:
        _count(draft, "node_count")
    st = store()
    cl.update(draft, status="UPDATE_IN_PROGRESS", status_reason=None, updated_at=iso(st.clock()))
    st.schedule(cl, _delay("cluster_update"), _complete(cl, "UPDATE_COMPLETE"))
    return reply({"uuid": cl["uuid"]}, 202)


@bp.delete("/clusters/<ident>")
def delete_cluster(ident: str) -> Any:
    cl = _own_cluster(ident)
    st = store()
    st.cancel_pending(cl)
    cl.update(status="DELETE_IN_PROGRESS", status_reason=None)
    st.schedule(cl, _delay("cluster_delete"), delete=True)
    return no_content()
