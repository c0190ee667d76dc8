"""Zun v1 for the sandbox (catalog type ``container``): the containers Heat's
``OS::Zun::Container`` makes.

More in docs/code/sandbox.md (app.sandbox.container).
"""
from __future__ import annotations

import re
import shlex
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, network_core, network_ports
from app.sandbox.http import SandboxError, body, iso, no_content, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("container", __name__)
discovery_bp = Blueprint("container_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
CONTAINERS = "zun_containers"
CREATE_DELAY, DELETE_DELAY = 0.3, 0.2
NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]+$")
POLICIES = ("no", "on-failure", "always", "unless-stopped")
UPDATABLE = ("cpu", "memory", "name")


def _version() -> Obj:
    return {"id": "v1", "status": "CURRENT", "min_version": "1.1", "max_version": "1.40",
            "links": [{"href": request.host_url.rstrip("/") + "/container/v1/", "rel": "self"}]}


@discovery_bp.get("/container")
@discovery_bp.get("/container/")
def versions() -> Any:
    return reply({"versions": [_version()], "default_version": _version()})


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"id": "v1", "media_types": [{"base": "application/json",
                                               "type": "application/vnd.openstack.zun.v1+json"}],
                  "links": _version()["links"]})


def _delay(name: str, default: float) -> float:
    return float(sb().behaviour.delays.get(name, default))


def _find(ident: str) -> Obj:
    project = auth.ctx().project_id
    for c in store().all(CONTAINERS):
        if (c["uuid"] == ident or c.get("name") == ident) and c["project_id"] == project:
            return c
    raise SandboxError(404, f"Container {ident} could not be found.", "NotFound")


def _view(c: Obj) -> Obj:
    host = request.host_url.rstrip("/")
    out = {k: v for k, v in c.items() if not k.startswith("_")}
    out["links"] = [{"href": f"{host}/container/v1/containers/{c['uuid']}", "rel": "self"}]
    return out


def _invalid(field: str, value: Any, why: str) -> SandboxError:
    return SandboxError(400, f"Invalid input for field/attribute {field}. Value: {value}. {why}",
                        "InvalidParameterValue")


def _check(data: Obj) -> None:
    if not data.get("image"):
        raise _invalid("image", data.get("image"), "'image' is a required property")
    name = data.get("name")
    if name is not None and not NAME.match(str(name)):
        raise _invalid("name", name, f"'{name}' does not match '{NAME.pattern}'")
    for key in ("cpu", "memory"):
        value = data.get(key)
        if value is not None:
            try:
                number = float(str(value).rstrip("MmGg"))
            except ValueError:
                raise _invalid(key, value, "must be a number") from None
            if number <= 0:
                raise _invalid(key, value, f"{key} must be positive")
    policy = data.get("restart_policy")
    if policy is not None and (not isinstance(policy, dict) or policy.get("Name") not in POLICIES):
        raise _invalid("restart_policy", policy, f"Name must be one of {list(POLICIES)}")


def _default_network(project: str | None) -> Obj | None:
    """The project's own tenant network, else a shared one (as Zun's kuryr picks)."""
    nets = [n for n in store().all("networks") if not n.get("router:external")
            and (n.get("project_id") == project or n.get("shared"))]
    nets.sort(key=lambda n: n.get("project_id") != project)
    return nets[0] if nets else None


def _attach(c: Obj, nets: list[Obj]) -> None:
    """Create (or bind) the container's ports; ``addresses`` as Zun shows them."""
    c["addresses"] = {}
    for entry in nets or [{}]:
        _attach_one(c, entry)


def _network(ident: str) -> Obj:
    """A network by id, else by name (as Zun resolves ``network``). :raises SandboxError: 404."""
    if store().get("networks", ident) is None:
        named = [n for n in store().all("networks") if n.get("name") == ident
                 and network_core.net_visible(n)]
        if len(named) == 1:
            return named[0]
    return network_core.get_network(ident)


def _attach_one(c: Obj, entry: Obj) -> None:
    """One entry of ``nets`` (``{"network"|"port", "v4-fixed-ip"|"fixed_ip"}``; empty: the
    project's own network) becomes a port of the container, added to its ``addresses``.

    :raises SandboxError: 409 a port given is bound already; Neutron's 404 / 409 for the
        network or the address."""
    project = auth.ctx().project_id
    if not entry.get("port") and not entry.get("network"):
        default = _default_network(project)
        if default is None:
            return
        entry = {**entry, "network": default["id"]}
    if entry.get("port"):
        port = network_ports.get_port(str(entry["port"]))
        if port.get("device_id"):
            raise SandboxError(409, f"Port {port['id']} is still in use.", "PortInUse")
        network_ports.bind_port(port, c["uuid"], "compute:kuryr")
        preserve = True
    else:
        ip = entry.get("v4-fixed-ip") or entry.get("v6-fixed-ip") or entry.get("fixed_ip")
        port = network_ports.create_port(
            {"network_id": _network(str(entry["network"]))["id"],
             "device_id": c["uuid"], "device_owner": "compute:kuryr",
             **({"fixed_ips": [{"ip_address": ip}]} if ip else {})}, project)
        preserve = False
    addresses = c.setdefault("addresses", {})
    for fixed in port["fixed_ips"]:
        addresses.setdefault(port["network_id"], []).append(
            {"addr": fixed["ip_address"], "version": 6 if ":" in fixed["ip_address"] else 4,
             "port": port["id"], "subnet_id": fixed["subnet_id"],
             "preserve_on_delete": preserve})


def _detach(c: Obj, net_id: str | None = None) -> None:
    """Release the container's ports (on ``net_id`` only, when given): Zun's own ports are
    deleted, ports it was given are unbound."""
    st = store()
    for network, entries in list((c.get("addresses") or {}).items()):
        if net_id is not None and network != net_id:
            continue
        for a in entries:
            port = st.get("ports", a["port"])
            if port is None:
                continue
            if a["preserve_on_delete"]:
                network_ports.bind_port(port, "", "")
            else:
                network_ports.release_port(port["id"])
        if net_id is not None:
            del c["addresses"][network]


# ---- containers ---------------------------------------------------------------------------------
@bp.post("/containers")
def create_container() -> Any:
    data = body()
    _check(data)
    st, ctx = store(), auth.ctx()
    uuid = st.new_id()
    name = data.get("name") or f"zun-{uuid[:8]}"
    command = data.get("command")
    if isinstance(command, str):
        command = shlex.split(command)
    now = iso(st.clock())
    c: Obj = {"uuid": uuid, "id": uuid, "name": name, "image": data["image"], "command": command,
              "cpu": float(data["cpu"]) if data.get("cpu") is not None else None,
              "memory": str(data["memory"]) if data.get("memory") is not None else None,
              "environment": data.get("environment") or {}, "labels": data.get("labels") or {},
              "workdir": data.get("workdir"), "hostname": data.get("hostname"),
              "restart_policy": data.get("restart_policy") or {},
              "interactive": bool(data.get("interactive")), "tty": bool(data.get("tty")),
              "image_driver": data.get("image_driver") or "docker",
              "image_pull_policy": data.get("image_pull_policy"),
              "security_groups": data.get("security_groups") or ["default"],
              "hints": data.get("hints") or {}, "mounts": data.get("mounts") or [],
              "status": "Creating", "status_reason": None, "status_detail": None,
              "task_state": "container_creating", "host": "sandbox-1", "auto_remove": False,
              "project_id": ctx.project_id, "user_id": ctx.user_id, "created_at": now,
              "updated_at": None, "addresses": {}}
    _attach(c, list(data.get("nets") or []))
    st.add(CONTAINERS, c)
    delay = _delay("container_create", CREATE_DELAY)
    st.schedule(c, delay, {"status": "Created", "task_state": None})
    if request.args.get("run", "false").lower() == "true":
        failing = command and command[0] in ("false", "exit") and command[-1] != "0"
        ends = command and not c["interactive"]
        final = "Error" if failing else ("Stopped" if ends else "Running")
        st.schedule(c, delay * 2, {"status": final, "status_reason":
                                   "Container exited with status 1" if failing else None})
    return reply(_view(c), 202)


@bp.get("/containers")
def list_containers() -> Any:
    project = auth.ctx().project_id
    return reply({"containers": [_view(c) for c in store().all(CONTAINERS)
                                 if c["project_id"] == project], "next": None})


@bp.get("/containers/<ident>")
def show_container(ident: str) -> Any:
    return reply(_view(_find(ident)))


@bp.patch("/containers/<ident>")
def update_container(ident: str) -> Any:
    c, data = _find(ident), body()
    unknown = sorted(k for k in data if k not in UPDATABLE)
    if unknown:
        raise SandboxError(400, f"Additional properties are not allowed ({', '.join(unknown)} "
                                f"were unexpected)", "InvalidParameterValue")
    if c["status"] in ("Creating", "Deleting"):
        raise SandboxError(409, f"Cannot update container {c['uuid']} in {c['status']} state.",
                           "InvalidStateException")
    _check({"image": c["image"], **data})
    if "cpu" in data:
        c["cpu"] = float(data["cpu"])
    if "memory" in data:
        c["memory"] = str(data["memory"])
    if "name" in data:
        c["name"] = data["name"]
    c["updated_at"] = iso(store().clock())
    store().touch()
    return reply(_view(c))


@bp.post("/containers/<ident>/stop")
def stop_container(ident: str) -> Any:
    c = _find(ident)
    if c["status"] != "Running":
        raise SandboxError(409, f"Cannot stop container {c['uuid']} in {c['status']} state.",
                           "InvalidStateException")
    c["status"] = "Stopped"
    store().touch()
    return no_content(202)


@bp.post("/containers/<ident>/start")
def start_container(ident: str) -> Any:
    c = _find(ident)
    if c["status"] not in ("Created", "Stopped"):
        raise SandboxError(409, f"Cannot start container {c['uuid']} in {c['status']} state.",
                           "InvalidStateException")
    c["status"] = "Running"
    store().touch()
    return no_content(202)


@bp.delete("/containers/<ident>")
def delete_container(ident: str) -> Any:
    c = _find(ident)
    stop = request.args.get("stop", "false").lower() == "true"
    force = request.args.get("force", "false").lower() == "true"
    if c["status"] == "Running" and not (stop or force):
        raise SandboxError(409, f"Cannot delete container {c['uuid']} in Running state. Please "
                                f"stop the container first.", "InvalidStateException")
    if c["status"] == "Deleting":
        return no_content()
    st = store()
    st.cancel_pending(c)
    _detach(c)
    c.update(status="Deleting", task_state="container_deleting")
    st.schedule(c, _delay("container_delete", DELETE_DELAY), delete=True)
    return no_content()


# ---- networks (API 1.8+: attach; 1.6+: detach; 1.18+: list with fixed_ips) ----------------------
def _network_args() -> Obj:
    allowed = ("network", "port", "fixed_ip")
    unknown = sorted(k for k in request.args if k not in allowed)
    if unknown:
        raise SandboxError(400, f"Invalid input for query parameters {', '.join(unknown)}.",
                           "InvalidParameterValue")
    return {k: request.args[k] for k in allowed if request.args.get(k)}


@bp.post("/containers/<ident>/network_attach")
def network_attach(ident: str) -> Any:
    """Zun's ``network_attach``: a port on ``network`` (at ``fixed_ip``) or the ``port`` given;
    200. A network the container is on already is a 409."""
    c, args = _find(ident), _network_args()
    if c["status"] in ("Creating", "Deleting"):
        raise SandboxError(409, f"Cannot network_attach container {c['uuid']} in {c['status']} "
                                f"state.", "InvalidStateException")
    if args.get("network"):
        net = _network(args["network"])
        if net["id"] in (c.get("addresses") or {}):
            raise SandboxError(409, f"Container {c['uuid']} has already connected to the network "
                                    f"{net['id']}.", "Conflict")
    _attach_one(c, args)
    c["updated_at"] = iso(store().clock())
    store().touch()
    return no_content(200)


@bp.post("/containers/<ident>/network_detach")
def network_detach(ident: str) -> Any:
    """Zun's ``network_detach``: the container leaves the network of ``port`` (or ``network``);
    202. A network it is not on is a 400."""
    c, args = _find(ident), _network_args()
    if args.get("port"):
        net_id = network_ports.get_port(args["port"])["network_id"]
    elif args.get("network"):
        net_id = _network(args["network"])["id"]
    else:
        raise SandboxError(400, "Either network or port should be provided.",
                           "InvalidParameterValue")
    if net_id not in (c.get("addresses") or {}):
        raise SandboxError(400, f"Container {c['uuid']} is not connected to network {net_id}.",
                           "InvalidParameterValue")
    _detach(c, net_id)
    c["updated_at"] = iso(store().clock())
    store().touch()
    return no_content(202)


@bp.get("/containers/<ident>/network_list")
def network_list(ident: str) -> Any:
    """The container's ports, one entry per port: ``{"net_id", "port_id", "fixed_ips":
    [{"subnet_id", "version", "ip_address"}]}``."""
    out: list[Obj] = []
    for net_id, entries in (_find(ident).get("addresses") or {}).items():
        ports: dict[str, list[Obj]] = {}
        for a in entries:
            ports.setdefault(a["port"], []).append(
                {"subnet_id": a.get("subnet_id"), "version": a.get("version"),
                 "ip_address": a.get("addr")})
        out += [{"net_id": net_id, "port_id": p, "fixed_ips": ips} for p, ips in ports.items()]
    return reply({"networks": out})
