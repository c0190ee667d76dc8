"""Octavia v2 pool members and health monitors for the sandbox, with the same provisioning-status
transitions and immutable-while-pending 409 as the load balancers they belong to
(:mod:`app.sandbox.loadbalancer`). A member's operating status is ``NO_MONITOR`` until its pool
has a health monitor, then ``ONLINE``.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import ipam
from app.sandbox.http import SandboxError, body, reply
from app.sandbox.loadbalancer import (
    HM_TYPES,
    _base,
    _check_quota,
    _delete,
    _get,
    _lb_of,
    _list,
    _require_mutable,
    _settle_later,
    _show,
    _update,
    view,
)
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("loadbalancer_members", __name__)


# ---- members --------------------------------------------------------------------------------
@bp.get("/pools/<pool_id>/members")
def list_members(pool_id: str) -> Any:
    _get("pools", pool_id)
    return _list("members", _pool_id=pool_id)


@bp.post("/pools/<pool_id>/members")
def create_member(pool_id: str) -> Any:
    st = store()
    pool = _get("pools", pool_id)
    lb = _lb_of(pool)
    _require_mutable(lb)
    data = body("member")
    address, port = data.get("address"), data.get("protocol_port")
    if not address or not ipam.valid_ip(str(address)):
        raise SandboxError(400, f"Invalid input for field/attribute address. Value: '{address}'.")
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise SandboxError(400, f"Invalid input for field/attribute protocol_port. Value: '{port}'.")
    if any(m["address"] == address and m["protocol_port"] == port for m in st.find("members", _pool_id=pool_id)):
        raise SandboxError(409, f"Another member on this pool is already using ip {address} on protocol_port {port}")
    _check_quota("member", "members", lb["project_id"])
    member = _base(data, lb["id"], lb["project_id"])
    has_hm = bool(st.find("healthmonitors", _pool_id=pool_id))
    member.update(address=address, protocol_port=port, weight=data.get("weight", 1), subnet_id=data.get("subnet_id"),
                  backup=bool(data.get("backup", False)), monitor_address=data.get("monitor_address"),
                  monitor_port=data.get("monitor_port"), vnic_type="normal", _pool_id=pool_id,
                  _operating="ONLINE" if has_hm else "NO_MONITOR")
    member["operating_status"] = "NO_MONITOR"
    st.add("members", member)
    _settle_later(lb, member)
    return reply({"member": view("members", member)}, 201)


def _member(pool_id: str, member_id: str) -> Obj:
    member = _get("members", member_id)
    if member["_pool_id"] != pool_id:
        raise SandboxError(404, f"Member {member_id} not found.")
    return member


@bp.get("/pools/<pool_id>/members/<member_id>")
def show_member(pool_id: str, member_id: str) -> Any:
    return reply({"member": view("members", _member(pool_id, member_id))})


@bp.put("/pools/<pool_id>/members/<member_id>")
def update_member(pool_id: str, member_id: str) -> Any:
    _member(pool_id, member_id)
    return _update("members", member_id, ("name", "admin_state_up", "weight", "backup", "monitor_address",
                                          "monitor_port", "tags"))


@bp.delete("/pools/<pool_id>/members/<member_id>")
def delete_member(pool_id: str, member_id: str) -> Any:
    _member(pool_id, member_id)
    return _delete("members", member_id)


# ---- health monitors ------------------------------------------------------------------------
@bp.get("/healthmonitors")
def list_hms() -> Any:
    return _list("healthmonitors")


@bp.post("/healthmonitors")
def create_hm() -> Any:
    st = store()
    data = body("healthmonitor")
    pool = _get("pools", str(data.get("pool_id")))
    lb = _lb_of(pool)
    _require_mutable(lb)
    if data.get("type") not in HM_TYPES:
        raise SandboxError(400, f"Invalid input for field/attribute type. Value: '{data.get('type')}'.")
    for key in ("delay", "timeout", "max_retries"):
        if not isinstance(data.get(key), int) or data[key] < (1 if key != "timeout" else 0):
            raise SandboxError(400, f"Invalid input for field/attribute {key}. Value: '{data.get(key)}'.")
    if st.find("healthmonitors", _pool_id=pool["id"]):
        raise SandboxError(409, f"Validation failure: Pool {pool['id']} already has a health monitor.")
    _check_quota("health_monitor", "healthmonitors", lb["project_id"])
    hm = _base(data, lb["id"], lb["project_id"])
    http = data["type"] in ("HTTP", "HTTPS")
    hm.update(type=data["type"], delay=data["delay"], timeout=data["timeout"], max_retries=data["max_retries"],
              max_retries_down=data.get("max_retries_down", 3), http_method=data.get("http_method", "GET") if http
              else None, url_path=data.get("url_path", "/") if http else None,
              expected_codes=data.get("expected_codes", "200") if http else None, http_version=data.get("http_version"),
              domain_name=data.get("domain_name"), _pool_id=pool["id"])
    st.add("healthmonitors", hm)
    for member in st.find("members", _pool_id=pool["id"]):
        member["_operating"] = member["operating_status"] = "ONLINE"
    _settle_later(lb, hm)
    return reply({"healthmonitor": view("healthmonitors", hm)}, 201)


HM_FIELDS = ("name", "admin_state_up", "delay", "timeout", "max_retries", "max_retries_down", "http_method",
             "url_path", "expected_codes", "tags", "http_version", "domain_name")
bp.add_url_rule("/healthmonitors/<obj_id>", "show_hm", lambda obj_id: _show("healthmonitors", obj_id))
bp.add_url_rule("/healthmonitors/<obj_id>", "update_hm", lambda obj_id: _update("healthmonitors", obj_id, HM_FIELDS),
                methods=["PUT"])
bp.add_url_rule("/healthmonitors/<obj_id>", "delete_hm", lambda obj_id: _delete("healthmonitors", obj_id),
                methods=["DELETE"])
