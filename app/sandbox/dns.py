"""Designate v2 DNS for the sandbox (catalog type ``dns``): zones and their recordsets, with
Designate's asynchronous statuses.

More in docs/code/sandbox.md (app.sandbox.dns).
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, iso, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("dns", __name__)
discovery_bp = Blueprint("dns_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
ZONES, RECORDSETS = "dns_zones", "dns_recordsets"
RECORD_TYPES = ("A", "AAAA", "CNAME", "MX", "SRV", "TXT", "SPF", "NS", "PTR", "SSHFP", "SOA",
                "CAA", "CERT", "NAPTR")
MAX_TTL = 2147483647
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")
POOL_ID = "794ccc2c-d751-44fe-b57f-8894c9f5c842"
NAMESERVERS = ("ns1.sandbox.stoker.test.",)


def _base() -> str:
    return request.host_url.rstrip("/") + "/dns/v2"


@discovery_bp.get("/dns")
@discovery_bp.get("/dns/")
def versions() -> Any:
    link = [{"href": _base(), "rel": "self"}]
    return reply({"versions": [{"id": "v2.0", "links": link, "status": "SUPPORTED"},
                               {"id": "v2.1", "links": link, "status": "CURRENT"}]})


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"versions": {"values": [{"id": "v2", "status": "CURRENT",
                                           "links": [{"href": _base(), "rel": "self"}]}]}})


# ---- helpers ----------------------------------------------------------------------------------
def _delay() -> float:
    return sb().behaviour.delay("zone_propagate")


def _now() -> float:
    return float(store().clock())


def schema_error(field: str, message: str) -> SandboxError:
    return SandboxError(400, f"Provided object does not match schema: {field}: {message}",
                        "invalid_object")


def _fqdn(name: Any, field: str = "name") -> str:
    text = str(name or "")
    labels = text[:-1].split(".") if text.endswith(".") else []
    if not text.endswith(".") or len(text) > 255 or not all(_LABEL.match(x) for x in labels):
        raise schema_error(field, f"'{text}' is not a 'domainname'")
    return text.lower()


def _ttl(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_TTL:
        raise schema_error("ttl", f"{value!r} is not valid under the schema (0..{MAX_TTL})")
    return value


def _all_projects() -> bool:
    return auth.ctx().is_admin and request.headers.get("X-Auth-All-Projects", "").lower() == "true"


def get_zone(zone_id: str) -> Obj:
    """The caller's zone. :raises SandboxError: 400 ``invalid_uuid``, 404 ``zone_not_found``."""
    if not _UUID.match(zone_id):
        raise SandboxError(400, "Invalid UUID", "invalid_uuid")
    zone = store().get(ZONES, zone_id)
    if zone is None or not (zone["project_id"] == auth.ctx().project_id or _all_projects()):
        raise SandboxError(404, "Could not find Zone", "zone_not_found")
    return zone


def _changed(zone: Obj, action: str = "UPDATE") -> None:
    """A change of the zone: serial on, PENDING until the change propagates."""
    now = _now()
    store().cancel_pending(zone)
    zone.update(serial=max(int(zone["serial"]) + 1, int(now)), status="PENDING",
                action=zone["action"] if zone["status"] == "PENDING" else action,
                updated_at=iso(now, "cinder"), version=int(zone["version"]) + 1)
    store().schedule(zone, _delay(), {"status": "ACTIVE", "action": "NONE"})


def zone_view(z: Obj) -> Obj:
    out = {k: v for k, v in z.items() if not k.startswith("_")}
    out["links"] = {"self": f"{_base()}/zones/{z['id']}"}
    return out


def recordset_view(r: Obj) -> Obj:
    out = {k: v for k, v in r.items() if not k.startswith("_")}
    out["links"] = {"self": f"{_base()}/zones/{r['zone_id']}/recordsets/{r['id']}"}
    return out


def _listing(key: str, items: list[Obj], view: Any) -> Any:
    for name in ("name", "type", "status", "email", "description"):
        wanted = request.args.get(name)
        if wanted is not None:
            items = [o for o in items if str(o.get(name)) == wanted]
    try:
        limit = int(request.args.get("limit", 0)) or None
    except ValueError:
        raise SandboxError(400, "Invalid limit", "invalid_limit") from None
    marker = request.args.get("marker")
    if marker:
        ids = [o["id"] for o in items]
        if marker not in ids:
            raise SandboxError(400, "Marker not found", "marker_not_found")
        items = items[ids.index(marker) + 1:]
    total = len(items)
    return reply({key: [view(o) for o in items[:limit]], "links": {"self": request.url},
                  "metadata": {"total_count": total}})


# ---- zones ------------------------------------------------------------------------------------
@bp.post("/zones")
def create_zone() -> Any:
    data, st, now = body(), store(), _now()
    name = _fqdn(data.get("name"))
    kind = data.get("type") or "PRIMARY"
    if kind not in ("PRIMARY", "SECONDARY"):
        raise schema_error("type", f"'{kind}' is not one of ['PRIMARY', 'SECONDARY']")
    masters = data.get("masters") or []
    if kind == "PRIMARY" and not data.get("email"):
        raise schema_error("email", "'email' is a required property")
    if kind == "SECONDARY" and not masters:
        raise schema_error("masters", "'masters' is a required property")
    if data.get("description") is not None and len(str(data["description"])) > 160:
        raise schema_error("description", "is too long")
    if any(z["name"] == name for z in st.all(ZONES)):
        raise SandboxError(409, "Duplicate Zone", "duplicate_zone")
    ttl = _ttl(data.get("ttl"))
    zone = st.add(ZONES, {
        "id": st.new_id(), "pool_id": POOL_ID, "project_id": auth.ctx().project_id,
        "name": name, "email": data.get("email") or f"hostmaster@{name.rstrip('.')}",
        "ttl": 3600 if ttl is None else ttl, "serial": int(now), "status": "PENDING",
        "action": "CREATE", "description": data.get("description"),
        "masters": [str(m) for m in masters], "type": kind, "transferred_at": None,
        "version": 1, "created_at": iso(now, "cinder"), "updated_at": None,
        "attributes": dict(data.get("attributes") or {}), "shared": False})
    st.schedule(zone, _delay(), {"status": "ACTIVE", "action": "NONE"})
    if kind == "PRIMARY":
        soa = f"{NAMESERVERS[0]} {zone['email'].replace('@', '.')}. {zone['serial']} 3586 600 " \
              f"86400 {zone['ttl']}"
        _add_recordset(zone, name, "SOA", [soa], None, None, auto=True)
        _add_recordset(zone, name, "NS", list(NAMESERVERS), None, None, auto=True)
    return reply(zone_view(zone), 202)


@bp.get("/zones")
def list_zones() -> Any:
    items = store().all(ZONES)
    if not _all_projects():
        items = [z for z in items if z["project_id"] == auth.ctx().project_id]
    return _listing("zones", items, zone_view)


@bp.get("/zones/<zone_id>")
def show_zone(zone_id: str) -> Any:
    return reply(zone_view(get_zone(zone_id)))


@bp.patch("/zones/<zone_id>")
def update_zone(zone_id: str) -> Any:
    zone, data = get_zone(zone_id), body()
    if zone["action"] == "DELETE":
        raise SandboxError(400, "Zone is being deleted", "bad_request")
    if "name" in data and data["name"] != zone["name"]:
        raise SandboxError(400, "Changing the zone name is not allowed", "bad_request")
    if "type" in data and data["type"] != zone["type"]:
        raise SandboxError(400, "Changing the zone type is not allowed", "bad_request")
    if "ttl" in data:
        zone["ttl"] = _ttl(data["ttl"])
    for key in ("email", "description"):
        if key in data:
            zone[key] = data[key]
    if "masters" in data:
        zone["masters"] = [str(m) for m in data["masters"] or []]
    _changed(zone)
    return reply(zone_view(zone), 202)


@bp.delete("/zones/<zone_id>")
def delete_zone(zone_id: str) -> Any:
    zone, st = get_zone(zone_id), store()
    st.cancel_pending(zone)
    zone.update(status="PENDING", action="DELETE", updated_at=iso(_now(), "cinder"))
    st.schedule(zone, _delay(), delete=True)
    for rs in st.find(RECORDSETS, zone_id=zone_id):
        st.cancel_pending(rs)
        rs.update(status="PENDING", action="DELETE")
        st.schedule(rs, _delay(), delete=True)
    return reply(zone_view(zone), 202)


# ---- recordsets -------------------------------------------------------------------------------
def _records(kind: str, records: Any) -> list[str]:
    if not isinstance(records, list) or not all(isinstance(r, str) for r in records):
        raise schema_error("records", f"{records!r} is not of type 'array' of strings")
    for r in records:
        try:
            if kind == "A":
                ipaddress.IPv4Address(r)
            elif kind == "AAAA":
                ipaddress.IPv6Address(r)
        except ValueError:
            raise schema_error("records", f"'{r}' is not a '{'ipv4' if kind == 'A' else 'ipv6'}'") \
                from None
    return list(records)


def _add_recordset(zone: Obj, name: str, kind: str, records: list[str], ttl: int | None,
                   description: str | None, *, auto: bool = False) -> Obj:
    st, now = store(), _now()
    rs = {"id": st.new_id(), "zone_id": zone["id"], "project_id": zone["project_id"],
          "name": name, "zone_name": zone["name"], "type": kind, "records": records, "ttl": ttl,
          "status": "PENDING", "action": "CREATE", "description": description, "version": 1,
          "created_at": iso(now, "cinder"), "updated_at": None}
    if auto:
        rs.update(status="ACTIVE", action="NONE", _auto=True)
    st.add(RECORDSETS, rs)
    if not auto:
        st.schedule(rs, _delay(), {"status": "ACTIVE", "action": "NONE"})
    return rs


def get_recordset(zone_id: str, rs_id: str) -> tuple[Obj, Obj]:
    """:raises SandboxError: 404 ``recordset_not_found`` (after the zone's own checks)."""
    zone = get_zone(zone_id)
    rs = store().get(RECORDSETS, rs_id) if _UUID.match(rs_id) else None
    if rs is None or rs["zone_id"] != zone["id"]:
        raise SandboxError(404, "Could not find RecordSet", "recordset_not_found")
    return zone, rs


@bp.post("/zones/<zone_id>/recordsets")
def create_recordset(zone_id: str) -> Any:
    zone, data, st = get_zone(zone_id), body(), store()
    if zone["action"] == "DELETE":
        raise SandboxError(400, "Zone is being deleted", "bad_request")
    name, kind = _fqdn(data.get("name")), data.get("type")
    if kind not in RECORD_TYPES:
        raise schema_error("type", f"'{kind}' is not one of {list(RECORD_TYPES)}")
    if kind == "SOA" or (kind == "NS" and name == zone["name"]):
        raise SandboxError(400, f"{kind} records are managed by Designate", "bad_request")
    if name != zone["name"] and not name.endswith("." + zone["name"]):
        raise SandboxError(400, "RecordSet is not contained within it's parent zone",
                           "invalid_recordset_location")
    taken = st.find(RECORDSETS, zone_id=zone["id"], name=name)
    if any(r["type"] == kind for r in taken):
        raise SandboxError(409, "Duplicate RecordSet", "duplicate_recordset")
    if taken and (kind == "CNAME" or any(r["type"] == "CNAME" for r in taken)):
        raise SandboxError(400, "CNAME recordsets may not share a name with any other records",
                           "invalid_recordset_name")
    desc = data.get("description")
    if desc is not None and len(str(desc)) > 160:
        raise schema_error("description", "is too long")
    rs = _add_recordset(zone, name, str(kind), _records(str(kind), data.get("records")),
                        _ttl(data.get("ttl")), desc)
    _changed(zone)
    return reply(recordset_view(rs), 202)


@bp.get("/zones/<zone_id>/recordsets")
def list_recordsets(zone_id: str) -> Any:
    zone = get_zone(zone_id)
    return _listing("recordsets", store().find(RECORDSETS, zone_id=zone["id"]), recordset_view)


@bp.get("/zones/<zone_id>/recordsets/<rs_id>")
def show_recordset(zone_id: str, rs_id: str) -> Any:
    return reply(recordset_view(get_recordset(zone_id, rs_id)[1]))


@bp.put("/zones/<zone_id>/recordsets/<rs_id>")
def update_recordset(zone_id: str, rs_id: str) -> Any:
    zone, rs = get_recordset(zone_id, rs_id)
    data = body()
    if rs.get("_auto"):
        raise SandboxError(403, "Managed records may not be updated", "forbidden")
    for key in ("name", "type"):
        if key in data and data[key] != rs[key]:
            raise SandboxError(400, f"Changing a recordset's {key} is not allowed", "bad_request")
    if "records" in data:
        rs["records"] = _records(rs["type"], data["records"])
    if "ttl" in data:
        rs["ttl"] = _ttl(data["ttl"])
    if "description" in data:
        rs["description"] = data["description"]
    now = _now()
    rs.update(status="PENDING", action="UPDATE", updated_at=iso(now, "cinder"),
              version=int(rs["version"]) + 1)
    store().schedule(rs, _delay(), {"status": "ACTIVE", "action": "NONE"})
    _changed(zone)
    return reply(recordset_view(rs), 202)


@bp.delete("/zones/<zone_id>/recordsets/<rs_id>")
def delete_recordset(zone_id: str, rs_id: str) -> Any:
    zone, rs = get_recordset(zone_id, rs_id)
    if rs.get("_auto"):
        raise SandboxError(403, "Managed records may not be deleted", "forbidden")
    store().cancel_pending(rs)
    rs.update(status="PENDING", action="DELETE", updated_at=iso(_now(), "cinder"))
    store().schedule(rs, _delay(), delete=True)
    _changed(zone)
    return reply(recordset_view(rs), 202)
