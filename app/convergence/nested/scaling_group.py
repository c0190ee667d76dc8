"""An autoscaling group's child template and attributes (the nested driver's SCALING half),
as Heat's ``heat/engine/resources/openstack/heat/autoscaling_group.py`` and
``instance_group.py`` (``_create_template``, ``resize``, ``_replace``).

Members are named by random 12-character short ids (Heat's ``short_id.generate_id``); their
order is Heat's ``grouputils.get_members``: failed first, then by creation time, then name.
A template of ``n`` members keeps the LAST ``n`` of that order, so shrinking removes the failed
members first, then the oldest. Each member's snippet is the ``resource`` property as is.
"""
from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

from app.convergence.nested import group_batches, groups
from app.convergence.store import attrdata
from app.engine import rolling, scaling
from app.models import utcnow
from app.resource_types import base

Members = list[tuple[str, dict[str, Any], bool]]


OS_ASG, AWS_ASG, INSTANCE_GROUP = ("OS::Heat::AutoScalingGroup",
                                   "AWS::AutoScaling::AutoScalingGroup", "OS::Heat::InstanceGroup")
#: (min, max, desired, cooldown) property names per group type
_SIZES = {OS_ASG: ("min_size", "max_size", "desired_capacity", "cooldown"),
          AWS_ASG: ("MinSize", "MaxSize", "DesiredCapacity", "Cooldown")}
UNBOUNDED = 2 ** 31


def bounds(impl: str, props: dict[str, Any]) -> tuple[int, int]:
    """The group's ``(min, max)`` sizes (an InstanceGroup has none: 0 and unbounded)."""
    if impl not in _SIZES:
        return 0, UNBOUNDED
    lo, hi, _, _ = _SIZES[impl]
    return int(props.get(lo) or 0), int(props.get(hi) or 0)


def desired(impl: str, props: dict[str, Any]) -> int | None:
    """The size the group's properties ask for: ``desired_capacity`` / ``DesiredCapacity`` /
    ``Size`` (None or 0: none)."""
    key = "Size" if impl == INSTANCE_GROUP else _SIZES[impl][2]
    value = props.get(key)
    return int(value) if value else None


def cooldown_of(impl: str, props: dict[str, Any]) -> Any:
    """The group's own cooldown property (seconds or None)."""
    return props.get(_SIZES[impl][3]) if impl in _SIZES else None


def initial_size(props: dict[str, Any], impl: str = OS_ASG) -> int:
    """Heat's ``child_template``: the desired size if set (and not 0), else the minimum."""
    return desired(impl, props) or bounds(impl, props)[0]


def snippet(impl: str, props: dict[str, Any], launch_config: dict[str, Any] | None,
            ref: str) -> dict[str, Any]:
    """A member's resource snippet: the ``resource`` property of an OS::Heat::AutoScalingGroup;
    else an ``AWS::EC2::Instance`` of the launch configuration's properties with the group's
    tags (Heat's ``_get_conf_properties`` / ``_tags``; ``ref``: the group's reference id)."""
    if impl == OS_ASG:
        return dict(props.get("resource") or {})
    conf = {k: v for k, v in (launch_config or {}).items() if k != "InstanceId"}
    tags = list(props.get("Tags") or [])
    if not any(str(t.get("Key", "")).startswith("metering.") for t in tags):
        tags.append({"Key": "metering.groupname", "Value": ref})
    if impl == AWS_ASG:
        tags.append({"Key": "metering.AutoScalingGroupName", "Value": ref})
    if props.get("VPCZoneIdentifier"):
        conf["SubnetId"] = props["VPCZoneIdentifier"][0]
    return {"type": "AWS::EC2::Instance", "properties": {**conf, "Tags": tags}}


def member_of(impl: str, props: dict[str, Any], stack_id: str, ref: str) -> dict[str, Any]:
    """:func:`snippet` of the group, its launch configuration read from stack ``stack_id``."""
    conf = None if impl == OS_ASG else group_batches.launch_config(
        stack_id, props.get("LaunchConfigurationName"))
    return snippet(impl, props, conf, ref)


def member_attrs(paths: set[tuple[Any, ...]]) -> list[str]:
    """The member attributes the parent references: ``outputs``/``outputs_list`` with an
    attribute name, or ``resource.<i>.<attr>``."""
    attrs: set[str] = set()
    for p in paths:
        head = str(p[0]) if p else ""
        if head in ("outputs", "outputs_list") and len(p) > 1:
            attrs.add(str(p[1]))
        elif head == "InstanceList":
            attrs.add("PublicIp")
        elif head.startswith("resource."):
            rest = head.split(".", 2)
            if len(rest) > 2:
                attrs.add(rest[2])
            elif len(p) > 1:
                attrs.add(str(p[1]))
    return sorted(attrs)


def template(member: dict[str, Any], old: Members, capacity: int, num_new: int,
             paths: set[tuple[Any, ...]]) -> tuple[dict[str, Any], list[str]]:
    """The child template of ``capacity`` members (``old`` in Heat's member order), up to
    ``num_new`` of them given the current definition ``member`` (:func:`snippet`) first.
    :returns: ``(template, member names in Heat's order)``."""
    defs = list(rolling.member_definitions(
        [(n, d) for n, d, _ in old], lambda n: member, capacity, num_new,
        lambda: base.short_id(str(uuid.uuid4()))))
    return groups.template_of(defs, paths, member_attrs(paths)), [n for n, _ in defs]


def value(path: tuple[Any, ...], names: list[str], healthy: list[str], out: Any,
          group_name: str) -> Any:
    """The group attribute at ``path`` from the member outputs (``out(name, attr)``):
    ``current_size``, ``refs``, ``refs_map``, ``outputs``/``outputs_list`` of an attribute,
    ``resource.<i>[.<attr>]`` (the i-th member in Heat's order). ``healthy``: the members that
    are not FAILED (Heat's ``member_names(include_failed=False)``)."""
    head = str(path[0])
    if head == "current_size":
        return len(healthy)
    if head == "InstanceList":
        return ",".join(str(out(n, "PublicIp")) for n in healthy if out(n, "PublicIp")) or None
    if head == "refs":
        return attrdata.walk([out(n, "ref") for n in healthy], path[1:])
    if head == "refs_map":
        return attrdata.walk({n: out(n, "ref") for n in healthy}, path[1:])
    if head in ("outputs", "outputs_list") and len(path) > 1:
        attr = str(path[1])
        if head == "outputs":
            return attrdata.walk({n: out(n, attr) for n in healthy}, path[2:])
        return attrdata.walk([out(n, attr) for n in healthy], path[2:])
    if head.startswith("resource."):
        parts = head.split(".", 2)
        try:
            name = healthy[int(parts[1])]
        except (ValueError, IndexError):
            return attrdata.error(
                f"Member '{parts[1]}' not found in group resource '{group_name}'.")
        if len(parts) > 2:
            return attrdata.walk(out(name, parts[2]), path[1:])
        if len(path) > 1:
            return attrdata.walk(out(name, str(path[1])), path[2:])
        return out(name, "ref")
    return attrdata.error(f"The Referenced Attribute ({group_name} {head}) is incorrect.")


_ISO_DURATION = re.compile(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$")


def iso_seconds(duration: str) -> int:
    """Heat's ``timeutils.parse_isoduration``: ``"PT1M30S"`` -> 90.

    :raises ValueError: not of the form PT#H#M#S."""
    found = _ISO_DURATION.match(duration)
    if not found:
        raise ValueError("Only ISO 8601 duration format of the form PT#H#M#S is supported.")
    h, m, sec = (int(g) if g else 0 for g in found.groups())
    return 3600 * h + 60 * m + sec


def _rollout(impl: str, props: dict[str, Any], old_props: dict[str, Any],
             update_policy: Any) -> dict[str, Any] | None:
    """The rolling update a stack update asks for (None: none): the OS group's
    ``rolling_updates`` when ``resource`` changed; an AWS-style group's ``RollingUpdate`` /
    ``AutoScalingRollingUpdate`` policy when ``LaunchConfigurationName`` changed."""
    if impl == OS_ASG:
        if props.get("resource") == old_props.get("resource"):
            return None
        return {"min_in_service": 0, "max_batch_size": 1, "pause_time": 0,
                **(props.get("rolling_updates") or {})}
    key = "RollingUpdate" if impl == INSTANCE_GROUP else "AutoScalingRollingUpdate"
    policy = (update_policy or {}).get(key) if isinstance(update_policy, dict) else None
    if not isinstance(policy, dict) or \
            props.get("LaunchConfigurationName") == old_props.get("LaunchConfigurationName"):
        return None
    return {"min_in_service": int(policy.get("MinInstancesInService") or 0),
            "max_batch_size": int(policy.get("MaxBatchSize") or 1),
            "pause_time": iso_seconds(str(policy.get("PauseTime") or "PT0S"))}


def update_batches(impl: str, props: dict[str, Any], old_props: dict[str, Any], old: Members,
                   update_policy: Any = None) -> tuple[list[tuple[int, int]], float, int]:
    """The batches of a stack update of the group, as Heat's ``handle_update`` of the
    autoscaling and instance groups: a changed member definition is rolled out over the
    members in batches (:func:`_rollout`, :func:`app.engine.rolling.instance_batches`), then
    the group is resized to its desired size (or its current size) within its bounds.
    :returns: ``(batches, pause_time seconds, how many rollout batches the pauses separate)``;
    always at least one batch."""
    roll = _rollout(impl, props, old_props, update_policy)
    size_all = len(old)
    size = len([n for n, _, failed in old if not failed])
    batches: list[tuple[int, int]] = []
    if roll is not None and size_all:
        batches = rolling.instance_batches(size_all, size_all, int(roll["max_batch_size"]),
                                           int(roll["min_in_service"]))
    lo, hi = bounds(impl, props)
    target = scaling.new_capacity(size, desired(impl, props) or size, scaling.EXACT_CAPACITY,
                                  None, lo, hi)
    rollout = len(batches)
    if not batches or batches[-1][0] != target:
        batches.append((target, 0))
    return batches, float(roll["pause_time"] or 0) if roll else 0.0, rollout


def finished(meta: dict[str, Any], cooldown: Any, reason: str,
             now: dt.datetime | None = None) -> dict[str, Any]:
    """:func:`app.engine.scaling.finished` at ``now`` (default: the current UTC time)."""
    return scaling.finished(meta, None if cooldown is None else float(cooldown), reason,
                            now or utcnow())
