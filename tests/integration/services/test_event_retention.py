"""Event retention as Heat's ``max_events_per_stack`` / ``event_purge_batch_size``: the oldest
events go in batches, the newest stay, and no event of the operation in progress goes."""
from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import select

from app import config
from app.context import RequestContext
from app.convergence import runtime
from app.convergence.store import event_retention
from app.models import Event, read_session
from app.services import stacks, updates
from tests.fixtures.stacks import hot, knob

CTX = RequestContext(tenant_id="retention")
KEEP, BATCH = 6, 2  # a batch of 2: Heat's chance 2/batch is certain, so every write checks


def _template(value: str) -> dict:
    return hot({f"k{i}": knob(value) for i in range(3)})


def _kept(stack_id: str) -> list[str]:
    with read_session() as s:
        return list(s.execute(select(Event.uuid).where(Event.stack_id == stack_id)
                              .order_by(Event.id)).scalars())


@pytest.fixture()
def written(rec, monkeypatch) -> list[dict]:
    """Every event row written, in order (the events' observer port)."""
    monkeypatch.setattr(config, "_current", config.get().replace(
        max_events_per_stack=KEEP, event_purge_batch_size=BATCH))
    rows: list[dict] = []
    runtime.configure(dataclasses.replace(runtime.current(), event_observers=(rows.append,)))
    return rows


def test_the_newest_events_stay_and_the_operation_in_progress_keeps_all_of_its(rec, written):
    st = stacks.create_stack(CTX, stack_name="kept", template=_template("a"))
    rec.run_all()
    for value in "bcde":
        updates.update_stack(CTX, st.name, st.id, template=_template(value))
        begun = len(written) - 1
        assert written[begun]["resource_type"] == "OS::Heat::Stack"
        assert written[begun]["status"] == "IN_PROGRESS"
        while rec.queue:
            rec.run_all(limit=1)
            kept = _kept(st.id)
            if written[-1]["status"] == "IN_PROGRESS" or written[-1]["resource_name"] != st.name:
                # the update runs: every event of it is there, though there are more than KEEP
                assert [r["uuid"] for r in written[begun:]] == kept[-(len(written) - begun):]
        kept = _kept(st.id)
        all_uuids = [r["uuid"] for r in written]
        assert kept == all_uuids[-len(kept):]  # the newest, none missing in between
        assert len(kept) >= KEEP - BATCH
    assert len(_kept(st.id)) < len(written)  # older operations' events went
    assert len(written) - begun > KEEP       # one operation wrote more events than kept


def test_purge_oldest_deletes_a_batch_once_the_limit_is_reached_and_zero_keeps_all(rec, written):
    st = stacks.create_stack(CTX, stack_name="limit", template=_template("a"))
    with config_values(max_events_per_stack=0):
        rec.run_all()  # unlimited: nothing purged
    n = len(_kept(st.id))
    assert n == len(written) == 8  # the stack's two events and two for each of 3 resources
    assert event_retention.purge_oldest(st.id, keep=n + 1, batch=3) == 0
    assert event_retention.purge_oldest(st.id, keep=n, batch=3) == 3
    assert _kept(st.id) == [r["uuid"] for r in written[3:]]
    assert event_retention.purge_oldest(st.id, keep=0, batch=3) == 0  # 0: unlimited


def test_successive_purges_take_the_next_oldest(rec, written):
    st = stacks.create_stack(CTX, stack_name="rounds", template=_template("a"))
    with config_values(max_events_per_stack=0):
        rec.run_all()
    uuids = [r["uuid"] for r in written]
    assert event_retention.purge_oldest(st.id, keep=2, batch=3) == 3
    assert event_retention.purge_oldest(st.id, keep=2, batch=3) == 3
    assert _kept(st.id) == uuids[6:]
    assert event_retention.purge_oldest(st.id, keep=3, batch=3) == 0  # 2 left: under 3
    assert event_retention.purge_oldest(st.id, keep=2, batch=3) == 2


class config_values:
    """The process's settings with some values changed, for a block."""

    def __init__(self, **changes: object) -> None:
        self.changes = changes

    def __enter__(self) -> None:
        self.previous = config._current
        config._current = config.get().replace(**self.changes)

    def __exit__(self, *exc: object) -> None:
        config._current = self.previous


def test_an_operation_whose_older_events_are_gone_is_not_counted_again_until_it_ends(rec, written):
    from sqlalchemy import event as sa_event
    from sqlalchemy.engine import Engine
    st = stacks.create_stack(CTX, stack_name="drained", template=_template("a"))
    with config_values(max_events_per_stack=0):
        rec.run_all()
        updates.update_stack(CTX, st.name, st.id, template=_template("b"))
        assert event_retention.purge_oldest(st.id, keep=2, batch=100) == 8  # the create's
        assert event_retention.purge_oldest(st.id, keep=1, batch=100) == 0  # the update's only
        reads: list[str] = []

        def seen(conn, cursor, statement, *_):
            reads.append(statement)
        sa_event.listen(Engine, "before_cursor_execute", seen)
        try:
            assert event_retention.purge_oldest(st.id, keep=1, batch=100) == 0
        finally:
            sa_event.remove(Engine, "before_cursor_execute", seen)
        assert len(reads) == 1
        assert [r for r in reads if "FROM event" in r] == []  # only the stack row was read
        rec.run_all()
        update_events = len(_kept(st.id))
        updates.update_stack(CTX, st.name, st.id, template=_template("c"))
        assert event_retention.purge_oldest(st.id, keep=2, batch=100) == update_events


def test_a_purge_reads_from_above_the_newest_event_it_purged(rec, written):
    """The purged events' index entries stay until a vacuum: reads start above them."""
    from sqlalchemy import event as sa_event
    from sqlalchemy.engine import Engine
    st = stacks.create_stack(CTX, stack_name="floor", template=_template("a"))
    with config_values(max_events_per_stack=0):
        rec.run_all()
    with read_session() as s:
        ids = list(s.execute(select(Event.id).where(Event.stack_id == st.id)
                             .order_by(Event.id)).scalars())
    assert event_retention.purge_oldest(st.id, keep=2, batch=3) == 3
    reads: list[tuple[str, object]] = []

    def seen(conn, cursor, statement, params, *_):
        if "FROM event" in statement:
            reads.append((statement, params))
    sa_event.listen(Engine, "before_cursor_execute", seen)
    try:
        assert event_retention.purge_oldest(st.id, keep=2, batch=3) == 3
    finally:
        sa_event.remove(Engine, "before_cursor_execute", seen)
    assert _kept(st.id) == [r["uuid"] for r in written[6:]]
    assert len(reads) == 3  # the count, the oldest ids and their delete, each bounded below
    for statement, params in reads:
        assert "event.id >" in statement
        assert ids[2] in (params.values() if isinstance(params, dict) else params)
    statement, params = reads[-1]
    assert statement.lstrip().upper().startswith("DELETE") and "event.id <=" in statement
    assert ids[5] in (params.values() if isinstance(params, dict) else params)
