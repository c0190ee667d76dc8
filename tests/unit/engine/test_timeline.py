"""The pure timeline: spans from event rows, waits, the root cause below cascades, the
critical path as the longest chain of durations."""
from __future__ import annotations

import datetime as dt

from app.engine.timeline import Row, StackInfo, build, window

T0 = dt.datetime(2026, 1, 1)
ROOT, CHILD = "root-id", "child-id"
STACKS = {ROOT: StackInfo("app"), CHILD: StackInfo("app-net-x", ROOT, "net")}


class Log:
    """Event rows written in order, ``at`` seconds after T0."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, at: float, stack: str, name: str, action: str, status: str,
            reason: str = "state changed", kind: str = "OS::Heat::None") -> None:
        pid = stack if kind == "OS::Heat::Stack" else None
        self.rows.append(Row(len(self.rows) + 1, stack, name, kind, action, status, reason,
                             T0 + dt.timedelta(seconds=at), pid))

    def stack(self, at: float, stack: str, action: str, status: str, reason: str = "") -> None:
        self.add(at, stack, STACKS[stack].name, action, status, reason, "OS::Heat::Stack")


def test_a_chain_has_its_waits_and_is_the_critical_path():
    log = Log()
    log.stack(0, ROOT, "CREATE", "IN_PROGRESS")
    log.add(1, ROOT, "a", "CREATE", "IN_PROGRESS")
    log.add(1.5, ROOT, "side", "CREATE", "IN_PROGRESS")
    log.add(2, ROOT, "side", "CREATE", "COMPLETE")
    log.add(3, ROOT, "a", "CREATE", "COMPLETE")
    log.add(4, ROOT, "b", "CREATE", "IN_PROGRESS")
    log.add(6, ROOT, "b", "CREATE", "COMPLETE")
    log.stack(7, ROOT, "CREATE", "COMPLETE")
    body = build(ROOT, log.rows, STACKS, {ROOT: {"a": [], "b": ["a"], "side": []}})
    assert body["operation"]["status"] == "COMPLETE"
    assert body["critical_path"] == ["a", "b"]
    spans = {s["id"]: s for s in body["resources"]}
    assert spans["b"]["seconds"] == 2.0
    assert spans["b"]["waits"] == [{"for": "resource", "resource": "a", "seconds": 1.0,
                                    "from": "2026-01-01T00:00:03", "until": "2026-01-01T00:00:04"}]
    assert spans["a"]["waits"][0]["for"] == "stack_start"
    assert [s["id"] for s in body["resources"]] == ["a", "side", "b"]      # by start


def _nested_failure() -> Log:
    log = Log()
    log.stack(0, ROOT, "CREATE", "IN_PROGRESS")
    log.add(1, ROOT, "net", "CREATE", "IN_PROGRESS", kind="child.yaml")
    log.stack(1, CHILD, "CREATE", "IN_PROGRESS")
    log.add(2, CHILD, "subnet", "CREATE", "IN_PROGRESS")
    log.add(2.5, ROOT, "other", "CREATE", "IN_PROGRESS")
    log.add(3, CHILD, "subnet", "CREATE", "FAILED", "BadRequest: CIDR 10.0.0.0/33 is invalid")
    log.stack(3, CHILD, "CREATE", "FAILED", "Resource CREATE failed: BadRequest: CIDR")
    log.add(4, ROOT, "net", "CREATE", "FAILED", "BadRequest: resources.net.resources.subnet: x",
            kind="child.yaml")
    log.add(5, ROOT, "other", "CREATE", "FAILED", "Operation cancelled")
    log.stack(5, ROOT, "CREATE", "FAILED", "Resource CREATE failed: ...")
    return log


def test_the_root_cause_is_the_deepest_first_failure_not_the_cascade():
    body = build(ROOT, _nested_failure().rows, STACKS,
                 {ROOT: {"net": [], "other": []}, CHILD: {"subnet": []}})
    cause = body["root_cause"]
    assert cause["resource"] == "net/subnet" and cause["path"] == ["net"]
    assert cause["message"] == "BadRequest: CIDR 10.0.0.0/33 is invalid"
    assert cause["stack_name"] == "app-net-x"
    spans = {s["id"]: s for s in body["resources"]}
    assert spans["net"]["cascade"] and not spans["net"]["root_cause"]
    assert spans["net/subnet"]["root_cause"] and not spans["other"]["root_cause"]
    assert body["operation"]["status"] == "FAILED"


def test_operations_are_split_at_the_root_stacks_starts():
    log = _nested_failure()
    log.stack(10, ROOT, "ROLLBACK", "IN_PROGRESS")
    log.add(11, ROOT, "net", "DELETE", "IN_PROGRESS", kind="child.yaml")
    log.add(12, ROOT, "net", "DELETE", "COMPLETE", kind="child.yaml")
    log.stack(13, ROOT, "ROLLBACK", "COMPLETE")
    reqs = {ROOT: {"net": [], "other": []}, CHILD: {"subnet": []}}
    latest = build(ROOT, log.rows, STACKS, reqs)
    assert latest["operation"]["action"] == "ROLLBACK" and latest["root_cause"] is None
    assert [s["id"] for s in latest["resources"]] == ["net"]
    assert [o["action"] for o in latest["operations"]] == ["CREATE", "ROLLBACK"]
    create = build(ROOT, log.rows, STACKS, reqs, "create")
    assert create["root_cause"]["resource"] == "net/subnet"
    assert build(ROOT, log.rows, STACKS, reqs, "UPDATE")["operation"] is None


def test_a_stack_failing_with_no_resource_failing_is_its_own_root_cause():
    log = Log()
    log.stack(0, ROOT, "CREATE", "IN_PROGRESS")
    log.add(1, ROOT, "w", "CREATE", "IN_PROGRESS", kind="OS::Heat::WaitCondition")
    log.stack(60, ROOT, "CREATE", "FAILED", "Timed out")
    body = build(ROOT, log.rows, STACKS, {ROOT: {"w": []}})
    assert body["root_cause"]["message"] == "Timed out" and body["root_cause"]["path"] == []
    (span,) = body["resources"]
    assert span["outcome"] == "IN_PROGRESS" and span["waits"][-1]["for"] == "signal"


def test_a_delete_waits_for_its_dependents_and_a_window_reads_one_operation():
    log = Log()
    log.stack(0, ROOT, "CREATE", "IN_PROGRESS")
    log.stack(1, ROOT, "CREATE", "COMPLETE")
    log.stack(10, ROOT, "DELETE", "IN_PROGRESS")
    log.add(11, ROOT, "server", "DELETE", "IN_PROGRESS")
    log.add(13, ROOT, "server", "DELETE", "COMPLETE")
    log.add(14, ROOT, "net", "DELETE", "IN_PROGRESS")
    log.add(15, ROOT, "net", "DELETE", "COMPLETE")
    log.stack(16, ROOT, "DELETE", "COMPLETE")
    starts = [r for r in log.rows if r.status == "IN_PROGRESS" and r.resource_name == "app"]
    assert window(starts) == (3, None) and window(starts, "create") == (1, 3)
    assert window(starts, "UPDATE") is None
    only = [r for r in log.rows if r.seq >= 3]                 # what a caller reads
    body = build(ROOT, only, STACKS, {ROOT: {"net": [], "server": ["net"]}}, starts=starts)
    assert [o["action"] for o in body["operations"]] == ["CREATE", "DELETE"]
    spans = {s["id"]: s for s in body["resources"]}
    assert spans["net"]["waits"][0]["resource"] == "server"
    assert body["critical_path"] == ["server", "net"]
