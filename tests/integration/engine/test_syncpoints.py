"""Sync points: predecessor-keyed fan-in in the database (app.convergence.store.syncpoints)."""
from app.convergence.store import syncpoints
from app.models import RawTemplate, Stack, session


def _stack(s, pending=3):
    raw = RawTemplate(template={}, files={}, environment={})
    s.add(raw)
    s.flush()
    st = Stack(name="s", tenant="t", raw_template_id=raw.id, current_traversal="T1",
               pending_nodes=pending)
    s.add(st)
    s.flush()
    return st.id


def test_fan_in_fires_once_when_last_predecessor_reports(db):
    with session() as s:
        sid = _stack(s)
        syncpoints.create_nodes(s, sid, "T1", [(1, True, 0, [[2, True]]), (2, True, 2, [])])
    with session() as s:
        assert syncpoints.report(s, "T1", True, 2, "a", {"ref": "A"}) is False
    with session() as s:  # a redelivered report is neither counted nor fires
        assert syncpoints.report(s, "T1", True, 2, "a", {"ref": "A"}) is False
        assert syncpoints.state(s, "T1", True, 2) == syncpoints.WAITING
    with session() as s:
        assert syncpoints.report(s, "T1", True, 2, "b", {"ref": "B"}) is True
    with session() as s:
        assert syncpoints.report(s, "T1", True, 2, "b", {"ref": "B"}) is False
        assert syncpoints.state(s, "T1", True, 2) == syncpoints.FIRED
        assert syncpoints.inputs(s, "T1", True, 2) == {"a": {"ref": "A"}, "b": {"ref": "B"}}
        assert syncpoints.state(s, "T1", True, 1) == syncpoints.FIRED  # a leaf starts fired


def test_finish_counts_each_node_once_and_skips_dependents(db):
    with session() as s:
        sid = _stack(s, pending=3)
        syncpoints.create_nodes(s, sid, "T1", [(1, True, 0, [[2, True], [3, True]]), (2, True, 1, []), (3, True, 1, [])])
    with session() as s:
        assert syncpoints.mark_done(s, "T1", True, 1) is True
        skipped = syncpoints.skip(s, "T1", True, [2, 3])
        assert skipped == 2
        assert syncpoints.decrement(s, sid, "T1", 1 + skipped) == 0
    with session() as s:
        assert syncpoints.mark_done(s, "T1", True, 1) is False  # redelivery: already DONE
        assert syncpoints.report(s, "T1", True, 2, "x", None) is False  # skipped never fires


def test_decrement_ignores_superseded_traversal(db):
    with session() as s:
        sid = _stack(s, pending=2)
    with session() as s:
        assert syncpoints.decrement(s, sid, "OLD", 1) is None
        assert syncpoints.decrement(s, sid, "T1", 1) == 1
