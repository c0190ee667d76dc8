"""Constraints shared by parameters and resource properties, and the custom-constraint registry.

As Heat's ``heat/engine/constraints.py``: ``length`` (strings, lists, maps), ``range``
(numbers), ``modulo`` (numbers), ``allowed_values``, ``allowed_pattern`` (must match the whole
value), ``custom_constraint`` (a name looked up in :data:`REGISTRY`). Each check returns ``None``
or Heat's message (a constraint's ``description`` replaces the message). Unknown custom
constraint names fail as Heat: '"x" does not validate no.such.thing (constraint not found)'.
An ``allowed_pattern`` (``re`` syntax, as Heat's) is matched within :data:`PATTERN_SECONDS`
(``regex``'s timeout): one made to backtrack without end fails its value, where Heat spins.

Cloud-backed custom constraints (``nova.flavor``, ``glance.image``, ...) cannot be checked here
(this package is pure); they are registered as always satisfied, and a caller with clients may
:func:`register` real checks.
"""
from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import regex  # type: ignore[import-untyped]

from app import errors

ConstraintCheck = Callable[[Any], bool]
#: the longest an ``allowed_pattern`` may take to match one value (seconds)
PATTERN_SECONDS = 1.0


def _ip(value: Any) -> bool:
    try:
        ipaddress.ip_address(str(value))
        return True
    except ValueError:
        return False


def _cidr(value: Any) -> bool:
    try:
        text = str(value)
        if "/" not in text:
            return False
        ipaddress.ip_network(text, strict=False)
        return True
    except ValueError:
        return False


_MAC = re.compile(r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$")
_DNS_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def _dns_name(value: Any) -> bool:
    text = str(value).rstrip(".")
    return bool(text) and len(text) <= 255 and all(_DNS_LABEL.match(p) for p in text.split("."))


def _dns_domain(value: Any) -> bool:
    return _dns_name(value)


def _always(value: Any) -> bool:
    return True


_CLOUD_BACKED = (
    "barbican.container", "barbican.secret", "cinder.backup", "cinder.qos_specs",
    "cinder.snapshot", "cinder.volume", "cinder.vtype", "designate.zone", "designate.domain",
    "glance.image", "ironic.node", "ironic.portgroup", "keystone.domain", "keystone.group",
    "keystone.project", "keystone.region", "keystone.role", "keystone.service", "keystone.user",
    "magnum.cluster_template", "magnum.baymodel", "manila.share_network",
    "manila.share_snapshot", "manila.share_type", "mistral.workflow", "monasca.notification",
    "neutron.address_scope", "neutron.flow_classifier", "neutron.network", "neutron.port",
    "neutron.port_pair", "neutron.port_pair_group", "neutron.qos_policy", "neutron.router",
    "neutron.security_group", "neutron.segment", "neutron.subnet", "neutron.subnetpool",
    "neutron.taas.tap_service", "neutron.lbaas.loadbalancer", "neutron.lbaas.listener",
    "neutron.lbaas.pool", "neutron.lbaas.provider", "neutron.lb.provider", "nova.flavor",
    "nova.host", "nova.keypair", "nova.server", "octavia.availabilityzone",
    "octavia.availabilityzoneprofile", "octavia.flavor", "octavia.flavorprofile",
    "octavia.l7policy", "octavia.listener", "octavia.loadbalancer", "octavia.pool",
    "sahara.cluster", "sahara.cluster_template", "sahara.data_source", "sahara.image",
    "sahara.job_binary", "sahara.job_type", "sahara.plugin", "senlin.cluster", "senlin.policy",
    "senlin.policy_type", "senlin.profile", "senlin.profile_type", "trove.flavor",
    "zaqar.queue", "cron_expression", "timezone", "expiration", "json_string", "iso_8601",
    "test_constr", "ip_or_cidr")

REGISTRY: dict[str, ConstraintCheck] = {name: _always for name in _CLOUD_BACKED}
REGISTRY.update({"ip_addr": _ip, "net_cidr": _cidr, "mac_addr": lambda v: bool(_MAC.match(str(v))),
                 "dns_name": _dns_name, "dns_domain": _dns_domain, "rel_dns_name": _dns_name,
                 "ip_or_cidr": lambda v: _ip(v) or _cidr(v)})


def register(name: str, check: ConstraintCheck) -> None:
    """Register (or replace) custom constraint ``name``: ``check(value) -> bool``."""
    REGISTRY[name] = check


def fmt_num(value: Any) -> str:
    """A number as Heat prints it in messages (``None`` stays ``None``)."""
    return str(value)


_SAME = object()


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def check_one(kind: str, spec: Any, value: Any, description: str | None,
              raw: Any = _SAME) -> str | None:
    """Check ``value`` against one constraint; return Heat's message or ``None`` if satisfied.

    ``kind`` is the constraint key (``length``, ``range``, ``modulo``, ``allowed_values``,
    ``allowed_pattern``, ``custom_constraint``); ``spec`` its argument. ``raw``: the value as
    Heat's constraint sees and prints it when that is not the typed ``value`` (a number
    parameter given as ``"1e3"``). Messages as Heat's ``_err_msg``: ``allowed_values`` prints
    the value and the allowed ones as JSON (``2 is not an allowed value [1, "x"]``).
    """
    if raw is _SAME:
        raw = value
    msg: str | None = None
    if kind == "length":
        lo, hi = spec.get("min"), spec.get("max")
        n = len(value) if hasattr(value, "__len__") else 0
        if (lo is not None and n < lo) or (hi is not None and n > hi):
            msg = f"length ({n}) is out of range (min: {lo}, max: {hi})"
    elif kind == "range":
        lo, hi = spec.get("min"), spec.get("max")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            msg = f"{raw} is out of range (min: {lo}, max: {hi})"
    elif kind == "modulo":
        step, offset = spec.get("step"), spec.get("offset")
        if step and value % step != offset:
            msg = f"{raw} is not a multiple of {step} with an offset of {offset}"
    elif kind == "allowed_values":
        strs = [str(v) for v in spec]
        items = value if isinstance(value, list) else [value]  # a list: every item (Heat)
        if not all(v in spec or str(v) in strs for v in items):
            allowed = ", ".join(_dumps(v) for v in spec)
            msg = f"{_dumps(raw)} is not an allowed value [{allowed}]"
    elif kind == "allowed_pattern":
        try:
            re.compile(str(spec))  # Python's syntax and its errors, as Heat's
        except re.error as exc:
            raise errors.ValidationError(f'Invalid allowed_pattern "{spec}": {exc}',
                                         heat_type="InvalidSchemaError") from exc
        try:
            m = regex.match(str(spec), str(value), timeout=PATTERN_SECONDS)
            if m is None or m.end() != len(str(value)):
                msg = f'"{raw}" does not match pattern "{spec}"'
        except TimeoutError:
            msg = f'"{raw}" does not match pattern "{spec}": matching took longer than ' \
                f'{PATTERN_SECONDS:g} s'
    elif kind == "custom_constraint":
        check = REGISTRY.get(str(spec))
        if check is None:
            msg = f'"{value}" does not validate {spec} (constraint not found)'
        elif not check(value):
            msg = f'"{value}" does not validate {spec}'
    if msg is not None and description:
        return description
    return msg


def check_all(constraints: Sequence[Mapping[str, Any]], value: Any,
              raw: Any = _SAME) -> str | None:
    """First failure of ``constraints`` (each ``{kind: spec, "description"?: str}``) or None;
    ``raw`` as :func:`check_one`."""
    for c in constraints:
        desc = c.get("description")
        for kind, spec in c.items():
            if kind == "description":
                continue
            msg = check_one(kind, spec, value, desc, raw)
            if msg:
                return msg
    return None
