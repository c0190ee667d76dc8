"""Blazar v1 for the sandbox (catalog type ``reservation``): compute hosts registered for
reservations and leases, what Heat's ``OS::Blazar::Host`` / ``OS::Blazar::Lease`` make.

More in docs/code/sandbox.md (app.sandbox.reservation).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.compute_hosts import HOSTS
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("reservation", __name__)
HOST_COLL, LEASES = "blazar_hosts", "blazar_leases"
DATE = "%Y-%m-%d %H:%M"
HOST_FACTS = {"vcpus": 8, "memory_mb": 32768, "local_gb": 200, "hypervisor_type": "QEMU",
              "hypervisor_version": 8002000, "cpu_info": '{"arch": "x86_64", "model": "Nehalem"}'}


def _stamp(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


def _admin() -> None:
    auth.require_admin("Policy doesn't allow blazar:oshosts to be performed.")


# ---- hosts --------------------------------------------------------------------------------------
def _host_view(h: Obj) -> Obj:
    extra = h.get("_extra") or {}
    return {**{k: v for k, v in h.items() if not k.startswith("_")}, **extra}


def _host(host_id: str) -> Obj:
    host = store().get(HOST_COLL, host_id)
    if host is None:
        raise SandboxError(404, f"Object with {{'id': '{host_id}'}} not found", "NotFound")
    return host


@bp.get("/os-hosts")
def list_hosts() -> Any:
    _admin()
    return reply({"hosts": [_host_view(h) for h in store().all(HOST_COLL)]})


@bp.post("/os-hosts")
def create_host() -> Any:
    _admin()
    data = dict(body())
    name = data.pop("name", None)
    if not name:
        raise SandboxError(400, "Missing parameter: name", "MissingParameter")
    if name not in HOSTS:
        raise SandboxError(404, f"Host '{name}' not found!", "HostNotFound")
    st = store()
    if st.find(HOST_COLL, hypervisor_hostname=name):
        raise SandboxError(409, f"Host '{name}' is already registered.", "HostAlreadyExists")
    hid = str(st.next_number("blazar_host"))
    now = _stamp(st.clock())
    host = st.add(HOST_COLL, {"id": hid, "hypervisor_hostname": name, "service_name": name,
                              **HOST_FACTS, "status": None, "reservable": True,
                              "trust_id": st.new_id(hex_only=True), "created_at": now,
                              "updated_at": None, "_extra": {k: str(v) for k, v in data.items()}})
    return reply({"host": _host_view(host)}, 201)


@bp.get("/os-hosts/<host_id>")
def show_host(host_id: str) -> Any:
    _admin()
    return reply({"host": _host_view(_host(host_id))})


@bp.put("/os-hosts/<host_id>")
def update_host(host_id: str) -> Any:
    _admin()
    host = _host(host_id)
    host["_extra"] = {**host.get("_extra", {}), **{k: str(v) for k, v in body().get("values", body()).items()}}
    host["updated_at"] = _stamp(store().clock())
    store().touch()
    return reply({"host": _host_view(host)})


@bp.delete("/os-hosts/<host_id>")
def delete_host(host_id: str) -> Any:
    _admin()
    _host(host_id)
    for lease in store().all(LEASES):
        if lease["status"] != "TERMINATED" and host_id in lease.get("_hosts", []):
            raise SandboxError(409, f"Host {host_id} is in use by lease {lease['id']}.",
                               "CantDeleteHost")
    store().remove(HOST_COLL, host_id)
    return no_content()


# ---- leases -------------------------------------------------------------------------------------
def _date(value: Any, name: str, now: float) -> float:
    if value == "now":
        return now
    try:
        return dt.datetime.strptime(str(value), DATE).replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        raise SandboxError(400, f"Invalid {name}: '{value}' (format 'YYYY-MM-DD HH:MM')",
                           "InvalidDate") from None


def _free_hosts(start: float, end: float) -> list[str]:
    busy = {h for lease in store().all(LEASES) if lease["status"] != "TERMINATED"
            and lease["_start"] < end and start < lease["_end"] for h in lease.get("_hosts", [])}
    return [h["id"] for h in store().all(HOST_COLL) if h["reservable"] and h["id"] not in busy]


def _reservation(rsv: Obj, lease_id: str, start: float, end: float, taken: list[str]) -> Obj:
    kind = rsv.get("resource_type")
    st = store()
    out: Obj = {"id": st.new_id(), "lease_id": lease_id, "resource_type": kind,
                "status": "pending", "missing_resources": False, "resources_changed": False,
                "created_at": _stamp(st.clock()), "updated_at": None}
    if kind == "physical:host":
        for key in ("min", "max"):
            if rsv.get(key) is None:
                raise SandboxError(400, f"Missing parameter: {key}", "MissingParameter")
        lo, hi = int(rsv["min"]), int(rsv["max"])
        if lo > hi:
            raise SandboxError(400, "Invalid values for min/max of hosts. Max must be equal to or "
                                    "larger than min.", "InvalidRange")
        free = [h for h in _free_hosts(start, end) if h not in taken]
        if len(free) < lo:
            raise SandboxError(400, "Not enough hosts available", "NotEnoughHostsAvailable")
        chosen = free[:hi]
        taken.extend(chosen)
        out.update(min=lo, max=hi, hypervisor_properties=rsv.get("hypervisor_properties") or "",
                   resource_properties=rsv.get("resource_properties") or "",
                   before_end=rsv.get("before_end") or "default", resource_id=st.new_id())
    elif kind == "virtual:instance":
        for key in ("amount", "vcpus", "memory_mb", "disk_gb"):
            if rsv.get(key) is None:
                raise SandboxError(400, f"Missing parameter: {key}", "MissingParameter")
        out.update(amount=int(rsv["amount"]), vcpus=int(rsv["vcpus"]),
                   memory_mb=int(rsv["memory_mb"]), disk_gb=int(rsv["disk_gb"]),
                   affinity=rsv.get("affinity"), resource_properties=rsv.get("resource_properties") or "",
                   flavor_id=st.new_id(), server_group_id=None, resource_id=st.new_id())
    else:
        raise SandboxError(400, f"The resource type {kind} is not supported", "UnsupportedResourceType")
    return out


def _lease(lease_id: str) -> Obj:
    lease = store().get(LEASES, lease_id)
    if lease is None or not auth.can_see(lease):
        raise SandboxError(404, f"Object with {{'id': '{lease_id}'}} not found", "NotFound")
    return lease


def _lease_view(lease: Obj) -> Obj:
    return {k: v for k, v in lease.items() if not k.startswith("_")}


@bp.post("/leases")
def create_lease() -> Any:
    data, st, ctx = body(), store(), auth.ctx()
    now = st.clock()
    for key in ("name", "start_date", "end_date"):
        if not data.get(key):
            raise SandboxError(400, f"Missing parameter: {key}", "MissingParameter")
    start, end = _date(data["start_date"], "start_date", now), _date(data["end_date"], "end_date", now)
    if data["start_date"] != "now" and start < now - 60:
        raise SandboxError(400, "Start date must be later than current date", "InvalidDate")
    if end <= start:
        raise SandboxError(400, "End date must be later than start date.", "InvalidDate")
    if any(lease["name"] == data["name"] and lease["project_id"] == ctx.project_id
           for lease in st.all(LEASES)):
        raise SandboxError(409, f"A lease with name {data['name']} already exists.", "LeaseNameAlreadyExists")
    lease_id, taken = st.new_id(), []
    reservations = [_reservation(dict(r), lease_id, start, end, taken)
                    for r in data.get("reservations") or []]
    if not reservations:
        raise SandboxError(400, "Missing parameter: reservations", "MissingParameter")
    events = [{"id": st.new_id(), "lease_id": lease_id, "event_type": e.get("event_type"),
               "time": _stamp(_date(e.get("time"), "time", now)), "status": "UNDONE"}
              for e in data.get("events") or []]
    events += [{"id": st.new_id(), "lease_id": lease_id, "event_type": kind, "time": _stamp(ts),
                "status": "UNDONE"} for kind, ts in (("start_lease", start), ("end_lease", end))]
    lease = st.add(LEASES, {
        "id": lease_id, "name": data["name"], "start_date": _stamp(start), "end_date": _stamp(end),
        "status": "PENDING", "degraded": False, "reservations": reservations, "events": events,
        "user_id": ctx.user_id, "project_id": ctx.project_id, "trust_id": st.new_id(hex_only=True),
        "created_at": _stamp(now), "updated_at": None, "_start": start, "_end": end,
        "_hosts": taken})
    active = [{**r, "status": "active"} for r in reservations]
    st.schedule(lease, max(0.0, start - now), {"status": "ACTIVE", "reservations": active})
    st.schedule(lease, max(0.0, end - now), {"status": "TERMINATED"})
    return reply({"lease": _lease_view(lease)}, 201)


@bp.get("/leases")
def list_leases() -> Any:
    return reply({"leases": [_lease_view(x) for x in auth.visible(store().all(LEASES))]})


@bp.get("/leases/<lease_id>")
def show_lease(lease_id: str) -> Any:
    return reply({"lease": _lease_view(_lease(lease_id))})


@bp.delete("/leases/<lease_id>")
def delete_lease(lease_id: str) -> Any:
    store().remove(LEASES, _lease(lease_id)["id"])
    return no_content()


@bp.get("")
@bp.get("/")
def home() -> Any:
    base = request.host_url.rstrip("/")
    return reply({"versions": [{"id": "v1.0", "status": "CURRENT",
                                "links": [{"href": f"{base}/reservation/v1", "rel": "self"}]}]})
