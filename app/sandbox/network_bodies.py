"""Neutron's request bodies for the sandbox: the singular and the bulk (plural) create forms,
all-or-nothing bulk creates, and Neutron's attribute conversions (booleans and integers given
as strings; ports, protocols, ethertypes and CIDRs of security group rules).

As Neutron's API controller (``neutron/api/v2/base.py``, ``prepare_request_body``):

* ``POST /v2.0/<collection>`` takes ``{"<resource>": {...}}`` or, where the resource allows
  bulk create (networks, subnets, ports, security groups, security group rules), ``{"<resource>s":
  [{...} | {"<resource>": {...}}, ...]}``; the answer is ``{"<resource>s": [...]}`` (201). A bulk
  create is atomic: one failing item fails the request and nothing is created.
* Errors (``HTTPBadRequest``): ``Resource body required``, ``Unable to find '<resource>' in
  request body``, ``Bulk operation not supported`` (routers, floating IPs), ``Resources
  required`` (an empty list), ``Body contains invalid data``.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from flask import Response, request

from app.sandbox.http import SandboxError, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

BAD = "HTTPBadRequest"


def bad_request(message: str) -> SandboxError:
    """Neutron's webob 400: ``{"NeutronError": {"type": "HTTPBadRequest", "message": ...}}``."""
    return SandboxError(400, message, BAD)


def _json() -> Any:
    data = request.get_json(silent=True, force=True)
    if not data:
        raise bad_request("Resource body required")
    if not isinstance(data, dict):
        raise bad_request("Body contains invalid data")
    return data


def create_bodies(resource: str, *, allow_bulk: bool = True) -> tuple[list[Obj], bool]:
    """The create request's item bodies and whether it used the bulk form.

    :param resource: Neutron's singular name (``"security_group_rule"``); the bulk key is it
        plus ``s``.
    :raises SandboxError: 400 as Neutron words it (module docstring).
    """
    data = _json()
    collection = resource + "s"
    if collection in data:
        if not allow_bulk:
            raise bad_request("Bulk operation not supported")
        items = data[collection]
        if not isinstance(items, list):
            raise bad_request("Body contains invalid data")
        if not items:
            raise bad_request("Resources required")
        out = []
        for item in items:
            one = item.get(resource) if isinstance(item, dict) and resource in item else item
            if not isinstance(one, dict):
                raise bad_request("Body contains invalid data")
            out.append(one)
        return out, True
    return [one_body(resource, data)], False


def one_body(resource: str, data: Any = None) -> Obj:
    """The ``{"<resource>": {...}}`` body of a create or update.

    :raises SandboxError: 400 ``Unable to find '<resource>' in request body``.
    """
    data = _json() if data is None else data
    res = data.get(resource)
    if res is None:
        raise bad_request(f"Unable to find '{resource}' in request body")
    if not isinstance(res, dict):
        raise bad_request("Body contains invalid data")
    return converted(resource, res)


def created(resource: str, make: Callable[[Obj], Obj], *, allow_bulk: bool = True,
            check_bulk: Callable[[list[Obj]], None] | None = None) -> Response:
    """Create what the request asks for with ``make(item body) -> rendered object``; 201 with
    ``{"<resource>": obj}`` or, in the bulk form, ``{"<resource>s": [obj, ...]}``. A bulk create
    restores the store's state when an item fails (Neutron's bulk create is one transaction);
    ``check_bulk(items)`` vets a bulk request as a whole first.

    :raises SandboxError: the body's errors, or the failing item's.
    """
    items, bulk = create_bodies(resource, allow_bulk=allow_bulk)
    items = [converted(resource, item) for item in items]
    tags = [_create_tags(item) for item in items]
    if not bulk:
        return reply({resource: _tagged(resource, make(items[0]), tags[0])}, 201)
    if check_bulk is not None:
        check_bulk(items)
    st = store()
    before = st.snapshot()
    try:
        out = [_tagged(resource, make(item), t) for item, t in zip(items, tags, strict=True)]
    except Exception:
        st.restore(before)
        raise
    return reply({resource + "s": out}, 201)


def _create_tags(item: Obj) -> list[str] | None:
    """The ``tags`` of a create body (the ``tag-creation`` extension: a list of strings of at
    most 255 characters each), taken out of it; None when not given.

    :raises SandboxError: 400 as Neutron's validator."""
    if "tags" not in item:
        return None
    tags = item.pop("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) and len(t) <= 255 for t in tags):
        raise bad_request(f"Invalid input for tags. Reason: '{tags}' is not a list of strings of "
                          "at most 255 characters.")
    return list(dict.fromkeys(tags))


def _tagged(resource: str, shown: Obj, tags: list[str] | None) -> Obj:
    """``shown`` (a create's answer) with ``tags`` set on it and on the stored object."""
    if tags is None:
        return shown
    stored = store().get(resource + "s", shown.get("id"))
    if stored is not None:
        stored["tags"] = list(tags)
    return {**shown, "tags": list(tags)}


# ---- conversions (neutron_lib.api.converters and the security group extension) -------------
def port_value(value: Any) -> int | None:
    """Neutron's ``convert_validate_port_value``: ``None``, or an integer 0..65535 given as a
    number or a numeric string (``"22"`` -> ``22``).

    :raises SandboxError: 400 ``SecurityGroupInvalidPortValue``: ``Invalid value for port <v>``.
    """
    if value is None:
        return None
    try:
        number = int(value) if not isinstance(value, (bool, float)) else None
    except (TypeError, ValueError):
        number = None
    if number is None or not 0 <= number <= 65535:
        raise SandboxError(400, f"Invalid value for port {value}", "SecurityGroupInvalidPortValue")
    return number


PROTOCOLS = ("ah", "dccp", "egp", "esp", "gre", "hopopt", "icmp", "igmp", "ipip", "ipv6-encap",
             "ipv6-frag", "ipv6-icmp", "icmpv6", "ipv6-nonxt", "ipv6-opts", "ipv6-route", "ospf",
             "pgm", "rsvp", "sctp", "tcp", "udp", "udplite", "vrrp")


def protocol(value: Any) -> str | None:
    """Neutron's ``convert_protocol``: ``None``, a known name (lower-cased) or a number 0..255
    (kept as a string, as Neutron stores it).

    :raises SandboxError: 400 ``SecurityGroupRuleInvalidProtocol``.
    """
    if value is None:
        return None
    text = str(value)
    try:
        number = int(text)
    except ValueError:
        if text.lower() in PROTOCOLS:
            return text.lower()
        number = -1
    if 0 <= number <= 255:
        return text
    raise SandboxError(400, f"Security group rule protocol {value} not supported. Only protocol values "
                       f"[{', '.join(repr(p) for p in (None, *PROTOCOLS))}] and integer representations "
                       "[0 to 255] are supported.", "SecurityGroupRuleInvalidProtocol")


def ethertype(value: Any) -> str:
    """Neutron's case-insensitive ethertype (``ipv4`` -> ``IPv4``); default ``IPv4``.

    :raises SandboxError: 400 ``InvalidInput`` for anything else.
    """
    if value is None:
        return "IPv4"
    for known in ("IPv4", "IPv6"):
        if str(value).lower() == known.lower():
            return known
    raise SandboxError(400, f"Invalid input for ethertype. Reason: {value} is not in valid_values.",
                       "InvalidInput")


def ip_prefix(value: Any) -> str | None:
    """Neutron's ``convert_ip_prefix_to_cidr``: an address becomes a host CIDR
    (``10.0.0.1`` -> ``10.0.0.1/32``); a CIDR is kept as written.

    :raises SandboxError: 400 ``InvalidInput`` for what is neither.
    """
    if value is None:
        return None
    try:
        net = ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        raise SandboxError(400, f"Invalid input for remote_ip_prefix. Reason: '{value}' is not a valid "
                           "IP subnet.", "InvalidInput") from None
    return str(value) if "/" in str(value) else str(net)


def to_boolean(value: Any) -> bool:
    """neutron_lib's ``convert_to_boolean``: a bool, ``0``/``1``, or ``"true"``/``"false"``/
    ``"1"``/``"0"`` in any case.

    :raises SandboxError: 400 ``InvalidInput``: ``'<v>' cannot be converted to boolean``.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
        return value.strip().lower() in ("true", "1")
    raise SandboxError(400, f"Invalid input for operation: '{value}' cannot be converted to boolean.",
                       "InvalidInput")


def to_int(value: Any) -> int:
    """neutron_lib's ``convert_to_int`` (``"1400"`` -> ``1400``).

    :raises SandboxError: 400 ``InvalidInput``: ``'<v>' is not an integer``.
    """
    try:
        if isinstance(value, (bool, float)):
            raise TypeError
        return int(value)
    except (TypeError, ValueError):
        raise SandboxError(400, f"Invalid input for operation: '{value}' is not an integer.",
                           "InvalidInput") from None


#: The attributes Neutron converts, per resource: booleans and integers.
BOOLEANS = {"network": ("admin_state_up", "shared", "router:external", "port_security_enabled", "is_default"),
            "subnet": ("enable_dhcp",), "port": ("admin_state_up", "port_security_enabled"),
            "router": ("admin_state_up", "distributed", "ha"), "security_group": ("stateful",)}
INTEGERS = {"network": ("mtu",), "subnet": ("ip_version",)}


def converted(resource: str, data: Obj) -> Obj:
    """``data`` with the attributes Neutron converts converted (``"false"`` -> ``False``,
    ``"1400"`` -> ``1400``), as Neutron does before anything else sees them.

    :raises SandboxError: 400 ``InvalidInput`` for a value that does not convert.
    """
    out = dict(data)
    for key in BOOLEANS.get(resource, ()):
        if out.get(key) is not None:
            out[key] = to_boolean(out[key])
    for key in INTEGERS.get(resource, ()):
        if out.get(key) is not None:
            out[key] = to_int(out[key])
    gateway = out.get("external_gateway_info")
    if resource == "router" and isinstance(gateway, dict) and gateway.get("enable_snat") is not None:
        out["external_gateway_info"] = dict(gateway, enable_snat=to_boolean(gateway["enable_snat"]))
    return out


def only_fields(payload: Any, fields: list[str]) -> Any:
    """A GET answer cut to the ``fields`` query parameters (``?fields=id&fields=name``), as
    Neutron answers them: every object of the collection (or the one object) keeps those keys
    only; ``*_links`` members are left as they are."""
    if not fields or not isinstance(payload, dict):
        return payload
    wanted = set(fields)

    def cut(obj: Any) -> Any:
        return {k: v for k, v in obj.items() if k in wanted} if isinstance(obj, dict) else obj
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if key.endswith("_links"):
            out[key] = value
        elif isinstance(value, list):
            out[key] = [cut(v) for v in value]
        else:
            out[key] = cut(value)
    return out
