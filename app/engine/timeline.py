"""A stack operation's timeline, root cause and critical path, from plain event rows.

Pure: the caller reads the event rows of a stack and its nested stacks, the stacks' parent
links and each resource's requirements; :func:`build` returns plain JSON. An operation starts
at the root stack's own ``<ACTION> IN_PROGRESS`` event and runs until the next one. A
resource's span is its first ``IN_PROGRESS`` to its last ``COMPLETE``/``FAILED`` event of that
action (a nested stack's holder no later than its nested stack's start); its wait is the predecessor that finished last before it started (or the signal it
awaits). The root cause is the earliest failure that no failure of a nested stack below it
explains (a nested stack resource's "Resource failed" is a cascade, not a cause).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

STACK_TYPE = "OS::Heat::Stack"
#: resource types whose IN_PROGRESS span is spent waiting for an outside signal
SIGNAL_TYPES = frozenset({
    "OS::Heat::WaitCondition", "AWS::CloudFormation::WaitCondition", "OS::Heat::SwiftSignal",
    "OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment",
    "OS::Heat::SoftwareDeploymentGroup", "OS::Heat::StructuredDeploymentGroup",
    "OS::Heat::SoftwareDeployments", "OS::Heat::StructuredDeployments"})
DONE = ("COMPLETE", "FAILED")


@dataclass(frozen=True)
class Row:
    """One event row: ``seq`` is the table's order, ``time`` naive UTC."""
    seq: int
    stack_id: str
    resource_name: str
    resource_type: str
    action: str
    status: str
    reason: str
    time: dt.datetime
    physical_resource_id: str | None = None


@dataclass(frozen=True)
class StackInfo:
    """A stack of the tree: its name, its parent's id and the parent's resource holding it."""
    name: str
    parent_id: str | None = None
    parent_resource: str | None = None


@dataclass
class _Span:
    stack_id: str
    path: list[str]
    name: str
    type: str
    action: str
    start: Row
    end: Row | None = None
    waits: list[dict[str, Any]] = field(default_factory=list)
    critical: bool = False
    cascade: bool = False

    @property
    def id(self) -> str:
        return "/".join([*self.path, self.name])


def _iso(t: dt.datetime | None) -> str | None:
    return t.isoformat() if t else None


def _paths(root_id: str, stacks: dict[str, StackInfo]) -> dict[str, list[str]]:
    """``{stack id: [parent resource names from the root]}`` for the stacks under ``root_id``."""
    out: dict[str, list[str]] = {root_id: []}

    def path(sid: str) -> list[str] | None:
        if sid in out:
            return out[sid]
        info = stacks.get(sid)
        if info is None or info.parent_id is None or info.parent_id == sid:
            return None
        above = path(info.parent_id)
        if above is None or info.parent_resource is None:
            return None
        out[sid] = [*above, info.parent_resource]
        return out[sid]
    for sid in stacks:
        path(sid)
    return out


def _is_stack_row(row: Row, stacks: dict[str, StackInfo]) -> bool:
    info = stacks.get(row.stack_id)
    return info is not None and row.resource_type == STACK_TYPE and \
        row.resource_name == info.name and row.physical_resource_id in (None, row.stack_id)


def operations(root_id: str, rows: list[Row], stacks: dict[str, StackInfo]) -> list[Row]:
    """The root stack's ``IN_PROGRESS`` events that start an operation, oldest first."""
    return [r for r in sorted(rows, key=lambda r: r.seq) if r.stack_id == root_id
            and r.status == "IN_PROGRESS" and _is_stack_row(r, stacks)]


def _spans(rows: list[Row], stacks: dict[str, StackInfo],
           paths: dict[str, list[str]]) -> tuple[list[_Span], dict[str, list[Row]]]:
    spans: list[_Span] = []
    open_: dict[tuple[str, str, str], _Span] = {}
    stack_rows: dict[str, list[Row]] = {}
    for row in rows:
        if row.stack_id not in paths:
            continue
        if _is_stack_row(row, stacks):
            stack_rows.setdefault(row.stack_id, []).append(row)
            continue
        key = (row.stack_id, row.resource_name, row.action)
        span = open_.get(key)
        if span is None or span.end is not None and row.status == "IN_PROGRESS":
            span = _Span(row.stack_id, paths[row.stack_id], row.resource_name,
                         row.resource_type, row.action, row)
            open_[key] = span
            spans.append(span)
        if row.status in DONE:
            span.end = row
    return spans, stack_rows


def _started_with_children(spans: list[_Span], stack_rows: dict[str, list[Row]],
                           stacks: dict[str, StackInfo]) -> None:
    """Start each span of a resource holding a nested stack no later than that stack's own
    ``IN_PROGRESS`` event of the span: the nested stack is made by the resource's step, which
    writes its own ``IN_PROGRESS`` when it parks or ends, after the stack it made has written
    its event; so a nested stack never starts before the resource that makes it. The span
    takes that event's time and place in the order (events are not changed). O(S + E)."""
    held: dict[tuple[str, str], list[str]] = {}
    for sid, info in stacks.items():
        if info.parent_id and info.parent_resource:
            held.setdefault((info.parent_id, info.parent_resource), []).append(sid)
    floor: dict[tuple[str, str], int] = {}
    for s in sorted(spans, key=lambda s: s.start.seq):
        key = (s.stack_id, s.name)
        own = s.start.seq
        earlier = [r for sid in held.get(key, ()) for r in stack_rows.get(sid, ())
                   if r.status == "IN_PROGRESS" and floor.get(key, -1) < r.seq < own]
        if earlier:
            first = min(earlier, key=lambda r: r.seq)
            s.start = dataclasses.replace(s.start, seq=first.seq,
                                          time=min(first.time, s.start.time))
        floor[key] = max(own, s.end.seq if s.end else own)


def _link_waits(spans: list[_Span], requires: dict[str, dict[str, list[str]]],
                stack_rows: dict[str, list[Row]]) -> dict[int, list[_Span]]:
    """Set each span's waits; ``{id(span): the predecessor spans that ended before it}``."""
    by_key = {(s.stack_id, s.name): s for s in spans}
    blocker: dict[int, list[_Span]] = {}
    for s in spans:
        reqs = requires.get(s.stack_id, {})
        if s.action == "DELETE":
            preds = [n for n, r in reqs.items() if s.name in r]   # deleted after its dependents
        else:
            preds = list(reqs.get(s.name, ()))
        done = [p for p in (by_key.get((s.stack_id, n)) for n in preds)
                if p is not None and p.end is not None and p.end.seq <= s.start.seq]
        last = max(done, key=lambda p: p.end.seq if p.end else 0, default=None)
        blocker[id(s)] = done
        began = stack_rows.get(s.stack_id, [])
        opened = [r for r in began if r.status == "IN_PROGRESS" and r.seq <= s.start.seq]
        since = last.end if last is not None else (opened[-1] if opened else None)
        if since is not None:
            wait: dict[str, Any] = {"for": "resource" if last else "stack_start",
                                    "from": _iso(since.time), "until": _iso(s.start.time),
                                    "seconds": round((s.start.time - since.time)
                                                     .total_seconds(), 3)}
            if last is not None:
                wait["resource"] = last.id
            s.waits.append(wait)
        if s.type in SIGNAL_TYPES:
            until = s.end.time if s.end else None
            s.waits.append({"for": "signal", "from": _iso(s.start.time), "until": _iso(until),
                            "seconds": round((until - s.start.time).total_seconds(), 3)
                            if until else None})
    return blocker


def _root_cause(spans: list[_Span], stack_rows: dict[str, list[Row]],
                children: dict[tuple[str, str], str], paths: dict[str, list[str]],
                stacks: dict[str, StackInfo]) -> dict[str, Any] | None:
    failed = [s for s in spans if s.end is not None and s.end.status == "FAILED"]
    failed_stacks = {s.stack_id for s in failed}
    kids: dict[str, list[str]] = {}
    for (parent, _), sid in children.items():
        kids.setdefault(parent, []).append(sid)
    for s in failed:
        child = children.get((s.stack_id, s.name))
        s.cascade = child is not None and _failed_below(child, failed_stacks, kids)
    causes = sorted((s for s in failed if not s.cascade), key=lambda s: s.end.seq if s.end else 0)
    if causes:
        c = causes[0]
        assert c.end is not None
        return {"resource": c.id, "resource_name": c.name, "path": c.path,
                "stack_name": stacks[c.stack_id].name, "resource_type": c.type,
                "action": c.action, "status": "FAILED", "message": c.end.reason,
                "time": _iso(c.end.time)}
    for sid, rows in stack_rows.items():  # a stack failed with no resource failing: a timeout
        for r in rows:
            if r.status == "FAILED":
                return {"resource": "/".join(paths[sid]) or None, "resource_name": None,
                        "path": paths[sid], "stack_name": stacks[sid].name,
                        "resource_type": STACK_TYPE, "action": r.action, "status": "FAILED",
                        "message": r.reason, "time": _iso(r.time)}
    return None


def _failed_below(stack_id: str, failed_stacks: set[str],
                  kids: dict[str, list[str]]) -> bool:
    if stack_id in failed_stacks:
        return True
    return any(_failed_below(c, failed_stacks, kids) for c in kids.get(stack_id, ()))


def _seconds(s: _Span) -> float:
    return (s.end.time - s.start.time).total_seconds() if s.end else 0.0


def _mark_critical(stack_id: str, spans: list[_Span], preds: dict[int, list[_Span]],
                   children: dict[tuple[str, str], str]) -> None:
    """Mark the chain of the stack's spans whose own durations add up to the most (the
    longest path of the dependency graph, weighted by each span's seconds; ties go to the
    later end), and the same inside each nested stack on it. Queue delays are not counted."""
    here = sorted((s for s in spans if s.stack_id == stack_id), key=lambda s: s.start.seq)
    best: dict[int, tuple[float, int]] = {}
    back: dict[int, _Span | None] = {}
    for s in here:  # predecessors start first: they are scored before s
        before = [(best[id(p)], p) for p in preds.get(id(s), []) if id(p) in best]
        top = max(before, key=lambda b: b[0], default=None)
        total = _seconds(s) + (top[0][0] if top else 0.0)
        best[id(s)] = (total, (s.end or s.start).seq)
        back[id(s)] = top[1] if top else None
    cur = max(here, key=lambda s: best[id(s)], default=None)
    while cur is not None and not cur.critical:
        cur.critical = True
        child = children.get((cur.stack_id, cur.name))
        if child is not None:
            _mark_critical(child, spans, preds, children)
        cur = back.get(id(cur))


def window(starts: list[Row], operation: str | None = None) -> tuple[int, int | None] | None:
    """The ``seq`` range ``[first, stop)`` of the latest operation (of action ``operation``)
    among the root stack's operation ``starts`` (:func:`operations`); None: no such one."""
    chosen = [r for r in starts if not operation or r.action == operation.upper()]
    if not chosen:
        return None
    first = chosen[-1].seq
    after = [r.seq for r in starts if r.seq > first]
    return first, (min(after) if after else None)


def build(root_id: str, rows: list[Row], stacks: dict[str, StackInfo],
          requires: dict[str, dict[str, list[str]]], operation: str | None = None,
          starts: list[Row] | None = None) -> dict[str, Any]:
    """The timeline of one operation of ``root_id``: the latest, or the latest whose action
    is ``operation`` (CREATE, UPDATE, ROLLBACK, DELETE, ...). ``rows``: events of the root and
    its nested stacks (any order); ``stacks``: ``{id: StackInfo}``; ``requires``:
    ``{stack id: {resource name: [names it requires]}}``. Returns ``{"operation", "operations",
    "resources", "root_cause", "critical_path"}``; ``operation`` is None when there is none.
    ``starts``: the root's operation starts when ``rows`` hold only the operation's window.
    O(E log E + V·degree)."""
    starts = sorted(operations(root_id, rows, stacks) if starts is None else starts,
                    key=lambda r: r.seq)
    listed = [{"action": r.action, "started_at": _iso(r.time)} for r in starts]
    span = window(starts, operation)
    if span is None:
        return {"operation": None, "operations": listed, "resources": [],
                "root_cause": None, "critical_path": []}
    lo, stop = span
    first = next(r for r in starts if r.seq == lo)
    mine = sorted((r for r in rows if r.seq >= lo and (stop is None or r.seq < stop)),
                  key=lambda r: r.seq)
    paths = _paths(root_id, stacks)
    spans, stack_rows = _spans(mine, stacks, paths)
    _started_with_children(spans, stack_rows, stacks)
    children = {(info.parent_id, info.parent_resource): sid for sid, info in stacks.items()
                if info.parent_id and info.parent_resource and sid in paths}
    blocker = _link_waits(spans, requires, stack_rows)
    cause = _root_cause(spans, stack_rows, children, paths, stacks)
    _mark_critical(root_id, spans, blocker, children)
    ends = [r for r in stack_rows.get(root_id, []) if r.status in DONE]
    end = ends[-1] if ends else None
    ordered = sorted(spans, key=lambda s: (s.start.seq, s.id))
    return {"operation": {"action": first.action, "status": end.status if end else "IN_PROGRESS",
                          "started_at": _iso(first.time), "ended_at": _iso(end.time if end else None),
                          "status_reason": end.reason if end else first.reason},
            "operations": listed,
            "resources": [_entry(s, cause) for s in ordered],
            "root_cause": cause,
            "critical_path": [s.id for s in ordered if s.critical]}


def _entry(s: _Span, cause: dict[str, Any] | None) -> dict[str, Any]:
    end = s.end
    return {"id": s.id, "resource_name": s.name, "path": s.path, "resource_type": s.type,
            "action": s.action, "outcome": end.status if end else "IN_PROGRESS",
            "status_reason": (end or s.start).reason,
            "started_at": _iso(s.start.time), "ended_at": _iso(end.time if end else None),
            "seconds": round((end.time - s.start.time).total_seconds(), 3) if end else None,
            "waits": s.waits, "critical": s.critical,
            "root_cause": cause is not None and cause["resource"] == s.id
            and cause["action"] == s.action,
            "cascade": s.cascade}
