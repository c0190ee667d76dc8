"""A ResourceGroup's members and their batched changes (the nested driver's group half).

More in docs/code/convergence.md (app.convergence.nested.group_batches).
"""
from __future__ import annotations

import itertools
import time
from typing import Any

from sqlalchemy import select

from app.convergence.nested import groups
from app.engine import rolling
from app.engine.states import Status
from app.models import RawTemplate, Resource, Stack, read_session

_DEFAULTS = {"rolling_update": {"min_in_service": 0, "max_batch_size": 1, "pause_time": 0},
             "batch_create": {"max_batch_size": 1, "pause_time": 0}}


def policy(update_policy: Any, key: str) -> dict[str, Any] | None:
    """The group's ``update_policy[key]`` with Heat's defaults (None: not set)."""
    value = (update_policy or {}).get(key) if isinstance(update_policy, dict) else None
    if not isinstance(value, dict):
        return None
    return {**_DEFAULTS[key], **{k: v for k, v in value.items() if v is not None}}


def members(child_id: str) -> list[tuple[str, dict[str, Any], bool]]:
    """The child stack's members ``(name, snippet, failed)`` in Heat's member order (failed
    first, then by creation time, then name: ``grouputils.get_members``). One query each for
    the template and the rows."""
    with read_session() as s:
        child = s.get(Stack, child_id)
        if child is None:
            return []
        tmpl = s.execute(select(RawTemplate.template).where(
            RawTemplate.id == child.raw_template_id)).scalar() or {}
        rows = s.execute(select(Resource.name, Resource.status, Resource.created_at).where(
            Resource.stack_id == child_id)).all()
    info = {r.name: (r.status == Status.FAILED, r.created_at) for r in rows}
    snippets = dict((tmpl or {}).get("resources") or {})
    order = sorted(snippets, key=lambda n: (not info.get(n, (False, None))[0],
                                            str(info.get(n, (False, ""))[1] or ""), n))
    return [(n, snippets[n], info.get(n, (False, None))[0]) for n in order]


def member_refs(child_id: str | None) -> dict[str, Any]:
    """Member name -> reference id (None: never made) of a group's child stack, read from the
    members' rows (their ``attr_data``, what the child's outputs would resolve ``get_resource``
    from), as Heat's ``grouputils.get_member_refids`` reads the live members. One query,
    O(members)."""
    if not child_id:
        return {}
    with read_session() as s:
        rows = s.execute(select(Resource.name, Resource.attr_data).where(
            Resource.stack_id == child_id)).all()
    return {r.name: r.attr_data.get("ref") if r.attr_data else None for r in rows}


def refs_of(child: Any) -> dict[str, Any]:
    """Member name -> reference id of the group's child stack ``child`` (:func:`member_refs`)."""
    return member_refs(child.id)


def batch_template(props: dict[str, Any], skiplist: list[str], capacity: int, num_new: int,
                   old: list[tuple[str, dict[str, Any], bool]],
                   paths: set[tuple[Any, ...]]) -> tuple[dict[str, Any], list[str]]:
    """The child template of one batch: ``capacity`` members, ``num_new`` more of them with
    the new definition, the highest indices first (Heat's ``_assemble_for_rolling_update``).
    :returns: ``(template, member names in index order)``."""
    names = groups.member_names({**props, "count": capacity}, skiplist)
    target = int(props.get("count", 1) or 0)
    valid = [(n, d) for n, d, _ in old if n not in skiplist]

    def priority(item: tuple[str, Any]) -> int:
        if item[0] not in names:
            return 0  # removed first
        index = names.index(item[0])
        return target - index if index < target else capacity

    existing = {n for n, _ in valid}
    fresh = (n for n in (str(i) for i in itertools.count())
             if n not in existing and n not in skiplist)
    defs = list(rolling.member_definitions(
        sorted(valid, key=priority), lambda n: groups.member_definition(props, n),
        capacity, num_new, lambda: next(fresh)))
    present = {n for n, _ in defs}
    ordered = [n for n in names if n in present] + sorted(
        (n for n in present if n not in names), key=lambda n: (len(n), n))
    return groups.template_of(defs, paths, refs=False), ordered


def plan(batches: list[tuple[int, int]], pause: float, timeout_secs: float,
         paused: int | None = None) -> dict[str, Any]:
    """A new batch plan (the handle); the pause follows each of the first ``paused`` batches
    but the last of them (default: all batches; an autoscaling group's final resize is not
    paused before, as Heat pauses only between rollout batches).

    :raises ValueError: the pauses exceed the timeout."""
    paused = len(batches) if paused is None else paused
    rolling.check_pauses(paused, float(pause), timeout_secs)
    return {"batches": [list(b) for b in batches], "i": 0, "pause": float(pause),
            "paused": paused}


def current_capacity(old: list[tuple[str, dict[str, Any], bool]], skiplist: list[str]) -> int:
    """Heat's ``curr_cap`` of ``_replace``: every member, less the healthy skipped ones."""
    return len(old) - len({n for n, _, failed in old if not failed} & set(skiplist))


def batch_state(handle: dict[str, Any], child: Any) -> str:
    """Where a batched change stands: "running" (its batch's child traversal goes on),
    "failed", "done" (the last batch completed), "pause" (waiting ``pause_left`` seconds) or
    "next" (the next batch is to start now). Updates ``handle``'s pause bookkeeping."""
    if child is None or child.current_traversal != handle.get("ct") \
            or child.status == Status.IN_PROGRESS:
        return "running"
    if child.status == Status.FAILED:
        return "failed"
    if int(handle["i"]) + 1 >= len(handle["batches"]):
        return "done"
    if float(handle.get("pause") or 0) > 0 \
            and int(handle["i"]) + 1 < int(handle.get("paused", len(handle["batches"]))):
        now = time.time()
        if "resume" not in handle:
            handle["resume"] = now + float(handle["pause"])
        if now < float(handle["resume"]):
            return "pause"
    handle.pop("resume", None)
    return "next"


def pause_left(handle: dict[str, Any]) -> float:
    """Seconds until the pause of ``handle`` ends (0 when none)."""
    return max(0.0, float(handle.get("resume") or 0) - time.time())


def launch_config(stack_id: str, ref: Any) -> dict[str, Any] | None:
    """The resolved properties of the launch configuration ``ref`` (its reference id, the
    physical name, or its name) in stack ``stack_id`` (None: not found)."""
    if not ref:
        return None
    with read_session() as s:
        row = s.execute(select(Resource.properties_data).where(
            Resource.stack_id == stack_id,
            (Resource.physical_resource_id == str(ref)) | (Resource.name == str(ref)))).first()
    return dict(row.properties_data or {}) if row is not None else None
