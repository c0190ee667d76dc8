"""Drift: a resource's template-set properties against the cloud's view of its object.

Pure. :func:`compare` takes the properties the template sets (resolved) and the plugin's
``show`` (the cloud's JSON) and returns each difference as ``(path, expected, actual, kind)``
with CloudFormation's kinds: ``NOT_EQUAL``, ``REMOVE`` (expected, not in the cloud) and ``ADD``
(in the cloud, not expected). Only properties listed in :data:`FIELDS` for the type are read;
a type without an entry cannot be checked (:func:`checkable`). The cloud's normalisations are
understood: a security group rule's protocol by name or number, a CIDR's forms, lists whose
order the service does not keep, a server's flavor or image by name or id.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

IN_SYNC, MODIFIED, DELETED, NOT_CHECKED = "IN_SYNC", "MODIFIED", "DELETED", "NOT_CHECKED"
DRIFTED, UNKNOWN = "DRIFTED", "UNKNOWN"
ADD, REMOVE, NOT_EQUAL = "ADD", "REMOVE", "NOT_EQUAL"


@dataclass(frozen=True)
class Difference:
    """One property difference; ``path`` is a JSON pointer (``/rules/2``), as AWS's."""

    path: str
    expected: Any
    actual: Any
    kind: str


Compare = Callable[[str, Any, Any], list[Difference]]


def _text(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    return str(value)


def scalar(path: str, expected: Any, actual: Any) -> list[Difference]:
    """Equal as text (the cloud answers ``10`` where the template says ``"10"``)."""
    return [] if _text(expected) == _text(actual) else [Difference(path, expected, actual,
                                                                   NOT_EQUAL)]


def by_name_or_id(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A reference given by name or id (a server's flavor or image): equal to any of the
    live object's ``id``, ``name`` or ``original_name``; a difference shows the live name."""
    names = {str(actual.get(k)) for k in ("id", "name", "original_name")
             if isinstance(actual, dict) and actual.get(k) is not None}
    if not isinstance(actual, dict):
        names = {str(actual)}
    if str(expected) in names:
        return []
    return [Difference(path, expected, _named(actual), NOT_EQUAL)]


def _named(live: Any) -> Any:
    """A live object's name (or original name, or id); a plain value as it is."""
    if not isinstance(live, dict):
        return live
    return next((live[k] for k in ("name", "original_name", "id") if live.get(k) is not None),
                None)


def mapping(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A map compared key by key (metadata): a key only in the cloud is ``ADD``."""
    exp, act = dict(expected or {}), dict(actual or {})
    out = [Difference(f"{path}/{k}", v, None, REMOVE) for k, v in exp.items() if k not in act]
    out += [Difference(f"{path}/{k}", None, v, ADD) for k, v in act.items() if k not in exp]
    for k in exp.keys() & act.keys():
        out += scalar(f"{path}/{k}", exp[k], act[k])
    return sorted(out, key=lambda d: d.path)


def unordered(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A list whose order the service does not keep (names or ids as text)."""
    exp = [_text(v) for v in expected or []]
    act = [_text(v) for v in actual or []]
    out = [Difference(f"{path}/{i}", v, None, REMOVE) for i, v in enumerate(exp) if v not in act]
    extra = [v for v in act if v not in exp]
    out += [Difference(f"{path}/{len(exp) + i}", None, v, ADD) for i, v in enumerate(extra)]
    return out


#: protocol names Neutron accepts, as the numbers it may answer with
PROTOCOLS = {"icmp": "1", "tcp": "6", "udp": "17", "gre": "47", "esp": "50", "ah": "51",
             "ipv6-icmp": "58", "icmpv6": "58", "sctp": "132", "vrrp": "112"}
_ANY_CIDRS = {"0.0.0.0/0", "::/0"}


def _cidr(value: Any) -> str | None:
    if value in (None, ""):
        return None
    try:
        text = str(ipaddress.ip_network(str(value), strict=False))
    except ValueError:
        return str(value)
    return None if text in _ANY_CIDRS else text


def cidr(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A CIDR in any of its forms (``10.0.0.1/8`` is ``10.0.0.0/8``)."""
    return [] if _cidr(expected) == _cidr(actual) else [Difference(path, expected, actual,
                                                                   NOT_EQUAL)]


def _port(value: Any) -> int | None:
    return None if value in (None, "") else int(value)


def rule_key(rule: Mapping[str, Any]) -> tuple[Any, ...]:
    """A security group rule in one form: Heat's defaults (ingress, IPv4), protocol as a
    number, a CIDR in its network form (``0.0.0.0/0`` as no prefix), ports as integers."""
    proto = rule.get("protocol")
    proto = None if proto in (None, "", "any") else PROTOCOLS.get(str(proto).lower(),
                                                                   str(proto))
    remote = rule.get("remote_group_id")
    return (rule.get("direction") or "ingress", rule.get("ethertype") or "IPv4", proto,
            _port(rule.get("port_range_min")), _port(rule.get("port_range_max")),
            _cidr(rule.get("remote_ip_prefix")) if not remote else None, remote or None)


def _default_egress(rule: Mapping[str, Any]) -> bool:
    """One of the two egress rules Neutron adds to every new group."""
    key = rule_key(rule)
    return key[0] == "egress" and key[2:] == (None, None, None, None, None)


def rules(path: str, expected: Any, actual: Any) -> list[Difference]:
    """Security group rules as a multiset of :func:`rule_key`; Neutron's default egress rules
    count only when the template has egress rules of its own (Heat deletes them then)."""
    exp = [dict(r) for r in expected or [] if isinstance(r, dict)]
    act = [dict(r) for r in actual or [] if isinstance(r, dict)]
    if not any((r.get("direction") or "ingress") == "egress" for r in exp):
        act = [r for r in act if not _default_egress(r)]
    left = [rule_key(r) for r in act]
    out: list[Difference] = []
    for i, rule in enumerate(exp):
        key = rule_key(rule)
        if key in left:
            left.remove(key)
        else:
            out.append(Difference(f"{path}/{i}", rule, None, REMOVE))
    extra = [r for r in act if rule_key(r) in left]
    out += [Difference(f"{path}/{len(exp) + i}", None, _shown_rule(r), ADD)
            for i, r in enumerate(extra)]
    return out


def _shown_rule(rule: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("direction", "ethertype", "protocol", "port_range_min", "port_range_max",
            "remote_ip_prefix", "remote_group_id")
    return {k: rule[k] for k in keys if rule.get(k) is not None}


def _ip(value: Any) -> str | None:
    if value in (None, ""):
        return None
    try:
        return str(ipaddress.ip_address(str(value)))
    except ValueError:
        return str(value)


def _refs(item: Any, *keys: str) -> set[str]:
    """The names and ids an object of the cloud's answer is known by (a plain id too)."""
    if not isinstance(item, dict):
        return {str(item)}
    return {str(item[k]) for k in keys if item.get(k) not in (None, "")}


def _fixed_ip_matches(want: Mapping[str, Any], have: Mapping[str, Any]) -> bool:
    subnet = want.get("subnet") or want.get("subnet_id")
    if subnet and str(subnet) not in _refs(have, "subnet_id", "subnet_name"):
        return False
    ip = _ip(want.get("ip_address"))
    return ip is None or ip == _ip(have.get("ip_address"))


def fixed_ips(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A port's addresses as the template sets them: each wanted entry (its ``subnet`` by name
    or id, its ``ip_address`` in any form; what it leaves out is anything) is matched to one
    live address, in any order; a live address no entry matches is ``ADD``."""
    exp = [dict(r) for r in expected or [] if isinstance(r, dict)]
    if not exp:    # none given: Neutron allocates them
        return []
    left = [dict(r) for r in actual or [] if isinstance(r, dict)]
    out: list[Difference] = []
    # entries that name an address first: a bare subnet must not take their address
    for i in sorted(range(len(exp)), key=lambda i: _ip(exp[i].get("ip_address")) is None):
        hit = next((h for h in left if _fixed_ip_matches(exp[i], h)), None)
        if hit is None:
            out.append(Difference(f"{path}/{i}", exp[i], None, REMOVE))
        else:
            left.remove(hit)
    shown = [{k: h[k] for k in ("subnet_id", "ip_address") if k in h} for h in left]
    out += [Difference(f"{path}/{len(exp) + i}", None, h, ADD) for i, h in enumerate(shown)]
    return sorted(out, key=lambda d: d.path)


def groups(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A port's security groups, each by name or id, in any order (the cloud answers ids;
    the live side may carry ``{"id", "name"}``)."""
    left = list(actual or [])
    out: list[Difference] = []
    for i, want in enumerate(expected or []):
        hit = next((h for h in left if str(want) in _refs(h, "id", "name")), None)
        if hit is None:
            out.append(Difference(f"{path}/{i}", want, None, REMOVE))
        else:
            left.remove(hit)
    extra = [h.get("id") if isinstance(h, dict) else h for h in left]
    out += [Difference(f"{path}/{len(expected or []) + i}", None, h, ADD)
            for i, h in enumerate(extra)]
    return out


def entries(path: str, expected: Any, actual: Any) -> list[Difference]:
    """A list of mappings compared entry by entry, in any order: an expected entry the live
    list lacks is REMOVEd, a live one left over is ADDed (a server's ``networks``, whose live
    side gives back the template's entries it found, as Heat's ``_get_live_networks``)."""
    left = list(actual or [])
    out: list[Difference] = []
    for i, want in enumerate(expected or []):
        if want in left:
            left.remove(want)
        else:
            out.append(Difference(f"{path}/{i}", want, None, REMOVE))
    out += [Difference(f"{path}/{len(expected or []) + i}", None, h, ADD)
            for i, h in enumerate(left)]
    return out


#: type -> property -> (the key of the cloud's ``show``, how to compare)
FIELDS: dict[str, dict[str, tuple[str, Compare]]] = {
    "OS::Nova::Server": {"name": ("name", scalar), "flavor": ("flavor", by_name_or_id),
                         "image": ("image", by_name_or_id), "key_name": ("key_name", scalar),
                         "metadata": ("metadata", mapping), "networks": ("networks", entries)},
    "OS::Neutron::Port": {"name": ("name", scalar),
                          "admin_state_up": ("admin_state_up", scalar),
                          "mac_address": ("mac_address", scalar),
                          "fixed_ips": ("fixed_ips", fixed_ips),
                          "security_groups": ("security_groups", groups)},
    "OS::Neutron::SecurityGroup": {"name": ("name", scalar),
                                   "description": ("description", scalar),
                                   "rules": ("security_group_rules", rules)},
    "OS::Neutron::Net": {"name": ("name", scalar),
                         "admin_state_up": ("admin_state_up", scalar)},
    "OS::Neutron::Subnet": {"name": ("name", scalar), "cidr": ("cidr", cidr),
                            "enable_dhcp": ("enable_dhcp", scalar),
                            "gateway_ip": ("gateway_ip", scalar),
                            "dns_nameservers": ("dns_nameservers", unordered)},
    "OS::Neutron::Router": {"name": ("name", scalar),
                            "admin_state_up": ("admin_state_up", scalar)},
    "OS::Octavia::LoadBalancer": {"name": ("name", scalar),
                                  "description": ("description", scalar),
                                  "admin_state_up": ("admin_state_up", scalar)},
    "OS::Cinder::Volume": {"name": ("name", scalar), "size": ("size", scalar),
                           "description": ("description", scalar),
                           "metadata": ("metadata", mapping), "networks": ("networks", entries)},
}


def checkable(type_name: str) -> bool:
    """Whether the live state of ``type_name`` can be compared."""
    return type_name in FIELDS


def compare(type_name: str, expected: Mapping[str, Any],
            live: Mapping[str, Any]) -> list[Difference]:
    """The differences between ``expected`` (the properties the template sets, resolved) and
    ``live`` (the cloud's JSON); properties the type does not map are not compared.
    O(properties + list items²). :raises KeyError: a type :func:`checkable` refuses."""
    fields = FIELDS[type_name]
    out: list[Difference] = []
    for prop, value in expected.items():
        if prop not in fields or value is None:
            continue
        key, how = fields[prop]
        out += how(f"/{prop}", value, live.get(key))
    return out


def actual(type_name: str, expected: Mapping[str, Any],
           live: Mapping[str, Any]) -> dict[str, Any]:
    """The live values of the properties ``expected`` sets that the type maps, in the
    template's form (AWS's ``ActualProperties`` beside ``ExpectedProperties``): a reference
    by name or id is the template's text when the live object answers to it, else the live
    object's name (or id) — never the cloud's whole object."""
    fields = FIELDS[type_name]
    out: dict[str, Any] = {}
    for prop, value in expected.items():
        if prop not in fields:
            continue
        key, how = fields[prop]
        got = live.get(key)
        if how is by_name_or_id and isinstance(got, dict):
            got = value if not how("", value, got) else _named(got)
        out[prop] = got
    return out


def stack_status(statuses: list[str]) -> tuple[str, dict[str, int]]:
    """The stack's drift status and the count of each resource status: ``DRIFTED`` if any
    resource is MODIFIED or DELETED, else ``IN_SYNC`` if at least one was checked, else
    ``UNKNOWN`` (nothing could be read)."""
    counts = {s: statuses.count(s) for s in (IN_SYNC, MODIFIED, DELETED, NOT_CHECKED)}
    if counts[MODIFIED] or counts[DELETED]:
        return DRIFTED, counts
    return (IN_SYNC if counts[IN_SYNC] else UNKNOWN), counts


#: type -> property -> why a revert of a live value above the template's needs a replacement
_SHRINK: dict[str, dict[str, str]] = {
    "OS::Cinder::Volume": {"size": "a volume cannot shrink: it is replaced to bring size back "
                                   "to the template's (its data is lost)"},
}


def revert_replaces(type_name: str, differences: list[Mapping[str, Any]]) -> str | None:
    """Why bringing a MODIFIED resource back to its template needs a new resource (a live
    ``size`` the cloud cannot reduce), or None when an in-place update can do it.
    ``differences``: a detection's ``property_differences``."""
    rules_ = _SHRINK.get(type_name, {})
    for d in differences:
        prop = str(d.get("path", "")).strip("/").split("/")[0]
        if prop in rules_ and d.get("difference_type") == NOT_EQUAL:
            try:
                if float(d["actual"]) > float(d["expected"]):
                    return rules_[prop]
            except (TypeError, ValueError):
                continue
    return None
