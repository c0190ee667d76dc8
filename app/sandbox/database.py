"""Trove v1.0 (``database``) for the sandbox: instances, the resize actions, clusters, and the
flavors and datastores they are made of; an instance's databases and users are in
:mod:`app.sandbox.database_users`.

More in docs/code/sandbox.md (app.sandbox.database).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth
from app.sandbox.http import NOVA_KEYS, SandboxError, body, iso, no_content, public, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("database", __name__)
discovery_bp = Blueprint("database_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
INSTANCES, CLUSTERS = "trove_instances", "trove_clusters"
DELAYS = {"db_build": 1.0, "db_resize": 0.3, "db_delete": 0.3}
DATASTORES: dict[str, tuple[str, ...]] = {"mysql": ("5.7.29", "8.0"), "postgresql": ("12", "13"),
                                          "mariadb": ("10.4",)}
DEFAULT_DATASTORE = ("mysql", "8.0")


@bp.errorhandler(SandboxError)
def trove_error(err: SandboxError) -> Response:
    """A sandbox error in the shape Trove answers with (Nova's fault keys)."""
    return reply({NOVA_KEYS.get(err.status, "computeFault"): {"message": err.message,
                                                             "code": err.status}}, err.status)


def _version() -> Obj:
    return {"id": "v1.0", "status": "CURRENT", "updated": "2012-08-01T00:00:00Z",
            "links": [{"href": f"{request.host_url.rstrip('/')}/database/v1.0/", "rel": "self"}]}


@discovery_bp.get("/database")
@discovery_bp.get("/database/")
def versions() -> Any:
    return reply({"versions": [_version()]})


@discovery_bp.get("/database/v1.0")
@discovery_bp.get("/database/v1.0/")
@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"version": _version()})


def _delay(name: str) -> float:
    return float(sb().behaviour.delays.get(name, DELAYS[name]))


def _base() -> str:
    return f"{request.host_url.rstrip('/')}/database/v1.0/{auth.ctx().project_id}"


@bp.get("/flavors")
def list_flavors() -> Any:
    return reply({"flavors": [_flavor(f) for f in store().all("flavors")]})


def _flavor(f: Obj) -> Obj:
    return {"id": f["id"], "str_id": str(f["id"]), "name": f["name"], "ram": f["ram"],
            "vcpus": f["vcpus"], "disk": f["disk"], "ephemeral": 0,
            "links": [{"href": f"{_base()}/flavors/{f['id']}", "rel": "self"}]}


@bp.get("/flavors/<ident>")
def show_flavor(ident: str) -> Any:
    f = store().get("flavors", ident)
    if f is None:
        raise SandboxError(404, f"Flavor {ident} could not be found.")
    return reply({"flavor": _flavor(f)})


def _datastore(kind: str) -> tuple[str, ...]:
    if kind not in DATASTORES:
        raise SandboxError(404, f"Datastore '{kind}' cannot be found.")
    return DATASTORES[kind]


@bp.get("/datastores")
def list_datastores() -> Any:
    return reply({"datastores": [{"id": k, "name": k, "default_version": v[-1],
                                  "versions": [{"id": f"{k}-{x}", "name": x, "active": 1} for x in v]}
                                 for k, v in DATASTORES.items()]})


@bp.get("/datastores/<kind>/versions")
def list_versions(kind: str) -> Any:
    return reply({"versions": [{"id": f"{kind}-{x}", "name": x, "datastore": kind, "active": 1,
                                "image": None, "packages": ""} for x in _datastore(kind)]})


def _resolve_datastore(ds: Obj | None) -> Obj:
    kind = (ds or {}).get("type") or DEFAULT_DATASTORE[0]
    versions = _datastore(kind)
    version = (ds or {}).get("version") or versions[-1]
    if version not in versions:
        raise SandboxError(404, f"Datastore version '{version}' cannot be found.")
    return {"type": kind, "version": version}


def _flavor_id(ref: Any) -> str:
    for f in store().all("flavors"):
        if str(ref) in (str(f["id"]), f"{_base()}/flavors/{f['id']}"):
            return str(f["id"])
    raise SandboxError(404, f"Flavor {ref} could not be found.")


def _size(volume: Any) -> int:
    size = (volume or {}).get("size") if isinstance(volume, dict) else None
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise SandboxError(400, "Volume size was not specified.")
    return size


def db_entries(items: Any) -> list[Obj]:
    out = []
    for d in items or []:
        if not isinstance(d, dict) or not d.get("name"):
            raise SandboxError(400, "Validation error: databases[0] 'name' is a required property")
        out.append({"name": d["name"], "character_set": d.get("character_set", "utf8"),
                    "collate": d.get("collate", "utf8_general_ci")})
    return out


def user_entries(items: Any, databases: list[str]) -> list[Obj]:
    out = []
    for u in items or []:
        if not isinstance(u, dict) or not u.get("name") or not u.get("password"):
            raise SandboxError(400, "Validation error: users[0] 'name' and 'password' are required")
        dbs = [d["name"] if isinstance(d, dict) else str(d) for d in u.get("databases") or []]
        missing = [d for d in dbs if d not in databases]
        if missing:
            raise SandboxError(404, f"Database {missing[0]} could not be found.")
        out.append({"name": u["name"], "host": u.get("host") or "%", "_password": u["password"],
                    "databases": dbs})
    return out


def _new_instance(st: Any, name: str, flavor: str, size: int, datastore: Obj, cluster: str | None,
                  data: Obj) -> Obj:
    iid = st.new_id()
    ip = f"10.0.0.{st.next_number('trove_ip') % 250 + 2}"
    return {"id": iid, "name": name, "status": "BUILD", "flavor": {"id": flavor},
            "volume": {"size": size, "used": 0.1}, "datastore": datastore, "ip": [ip],
            "hostname": f"{iid[:8]}.trove.sandbox", "region": "RegionOne",
            "created": iso(st.clock()), "updated": iso(st.clock()), "cluster_id": cluster,
            "availability_zone": data.get("availability_zone"), "replica_of": data.get("replica_of"),
            "project_id": auth.ctx().project_id, "_databases": [], "_users": []}


def get_instance(ident: str) -> Obj:
    inst = store().get(INSTANCES, ident)
    if inst is None or not auth.can_see(inst, admin_sees_all=False):
        raise SandboxError(404, f"Instance {ident} could not be found.")
    return inst


def _view(inst: Obj) -> Obj:
    out = {k: v for k, v in public(inst).items() if v is not None or k in ("replica_of",)}
    href = f"{_base()}/instances/{inst['id']}"
    out["flavor"] = {"id": inst["flavor"]["id"], "links": [{"href": f"{_base()}/flavors/"
                                                                     f"{inst['flavor']['id']}", "rel": "self"}]}
    out["links"] = [{"href": href, "rel": "self"},
                    {"href": href.replace("/v1.0/", "/"), "rel": "bookmark"}]
    return out


@bp.post("/instances")
def create_instance() -> Any:
    data = body("instance")
    if not data.get("name"):
        raise SandboxError(400, "Validation error: instance 'name' is a required property")
    flavor = _flavor_id(data.get("flavorRef"))
    size = _size(data.get("volume"))
    datastore = _resolve_datastore(data.get("datastore"))
    for nic in data.get("nics") or []:
        if nic.get("net-id") and store().get("networks", nic["net-id"]) is None:
            raise SandboxError(400, f"Network {nic['net-id']} could not be found.")
    dbs = db_entries(data.get("databases"))
    users = user_entries(data.get("users"), [d["name"] for d in dbs])
    st = store()
    inst = _new_instance(st, data["name"], flavor, size, datastore, None, data)
    inst["_databases"], inst["_users"] = dbs, users
    st.add(INSTANCES, inst)
    st.schedule(inst, _delay("db_build"), {"status": "ACTIVE"})
    return reply({"instance": _view(inst)})


@bp.get("/instances")
@bp.get("/instances/detail")
def list_instances() -> Any:
    items = [i for i in store().all(INSTANCES) if auth.can_see(i, admin_sees_all=False)]
    return reply({"instances": [_view(i) for i in items]})


@bp.get("/instances/<ident>")
def show_instance(ident: str) -> Any:
    return reply({"instance": _view(get_instance(ident))})


def require_active(inst: Obj) -> None:
    if inst["status"] != "ACTIVE":
        raise SandboxError(409, f"Instance is not currently available for an action to be "
                                f"performed (status was {inst['status']}).")


@bp.put("/instances/<ident>")
@bp.patch("/instances/<ident>")
def edit_instance(ident: str) -> Any:
    inst = get_instance(ident)
    data = body("instance")
    if "name" in data:
        inst["name"] = data["name"]
    inst["updated"] = iso(store().clock())
    store().touch()
    return no_content(202)


@bp.post("/instances/<ident>/action")
def instance_action(ident: str) -> Any:
    inst = get_instance(ident)
    resize = body().get("resize")
    if not isinstance(resize, dict):
        raise SandboxError(400, "Invalid instance action.")
    require_active(inst)
    st = store()
    if "flavorRef" in resize:
        flavor = _flavor_id(resize["flavorRef"])
        if flavor == inst["flavor"]["id"]:
            raise SandboxError(400, "No change was requested in the size of the instance.")
        inst["status"] = "RESIZE"
        st.schedule(inst, _delay("db_resize"), {"status": "ACTIVE", "flavor": {"id": flavor}})
    elif "volume" in resize:
        size = _size(resize["volume"])
        if size <= inst["volume"]["size"]:
            raise SandboxError(400, f"The new volume 'size' must be larger than the current volume "
                                    f"size of '{inst['volume']['size']}'.")
        inst["status"] = "RESIZE"
        st.schedule(inst, _delay("db_resize"), {"status": "ACTIVE", "volume": {"size": size, "used": 0.1}})
    else:
        raise SandboxError(400, "Invalid resize request.")
    return no_content(202)


@bp.delete("/instances/<ident>")
def delete_instance(ident: str) -> Any:
    inst = get_instance(ident)
    if inst.get("cluster_id"):
        raise SandboxError(400, "Instance belongs to a cluster; delete the cluster instead.")
    st = store()
    st.cancel_pending(inst)
    inst["status"] = "SHUTDOWN"
    st.schedule(inst, _delay("db_delete"), delete=True)
    return no_content(202)


# ---- clusters ----------------------------------------------------------------------------------
def _cluster(ident: str) -> Obj:
    cl = store().get(CLUSTERS, ident)
    if cl is None or not auth.can_see(cl, admin_sees_all=False):
        raise SandboxError(404, f"Cluster {ident} could not be found.")
    return cl


def _cluster_view(cl: Obj) -> Obj:
    st = store()
    members = [st.get(INSTANCES, i) for i in cl["_instances"]]
    out = public(cl)
    out["instances"] = [{"id": m["id"], "name": m["name"], "status": m["status"], "type": "member",
                         "flavor": {"id": m["flavor"]["id"]}, "volume": m["volume"], "ip": m["ip"]}
                        for m in members if m is not None]
    out["ip"] = [ip for m in members if m is not None for ip in m["ip"]]
    if cl["task"]["name"] == "BUILDING" and members and all(m and m["status"] == "ACTIVE" for m in members):
        cl["task"] = {"id": 1, "name": "NONE", "description": "No tasks for the cluster."}
        out["task"] = cl["task"]
    return out


@bp.post("/clusters")
def create_cluster() -> Any:
    data = body("cluster")
    if not data.get("name"):
        raise SandboxError(400, "Validation error: cluster 'name' is a required property")
    datastore = _resolve_datastore(data.get("datastore"))
    members = data.get("instances")
    if not isinstance(members, list) or not members:
        raise SandboxError(400, "Validation error: cluster 'instances' is a required property")
    specs = [(_flavor_id(m.get("flavorRef")), _size(m.get("volume")), m) for m in members]
    st = store()
    cid = st.new_id()
    ids = []
    for n, (flavor, size, m) in enumerate(specs, 1):
        inst = _new_instance(st, f"{data['name']}-member-{n}", flavor, size, datastore, cid, m)
        st.add(INSTANCES, inst)
        st.schedule(inst, _delay("db_build"), {"status": "ACTIVE"})
        ids.append(inst["id"])
    cl = st.add(CLUSTERS, {"id": cid, "name": data["name"], "datastore": datastore,
                           "task": {"id": 2, "name": "BUILDING", "description": "Building the initial cluster."},
                           "created": iso(st.clock()), "updated": iso(st.clock()),
                           "project_id": auth.ctx().project_id, "_instances": ids})
    return reply({"cluster": _cluster_view(cl)})


@bp.get("/clusters")
def list_clusters() -> Any:
    items = [c for c in store().all(CLUSTERS) if auth.can_see(c, admin_sees_all=False)]
    return reply({"clusters": [_cluster_view(c) for c in items]})


@bp.get("/clusters/<ident>")
def show_cluster(ident: str) -> Any:
    return reply({"cluster": _cluster_view(_cluster(ident))})


@bp.delete("/clusters/<ident>")
def delete_cluster(ident: str) -> Any:
    cl = _cluster(ident)
    st = store()
    cl["task"] = {"id": 5, "name": "DELETING", "description": "Deleting the cluster."}
    for iid in cl["_instances"]:
        inst = st.get(INSTANCES, iid)
        if inst is not None:
            st.cancel_pending(inst)
            inst["status"] = "SHUTDOWN"
            st.schedule(inst, _delay("db_delete"), delete=True)
    st.schedule(cl, _delay("db_delete"), delete=True)
    return no_content(202)
