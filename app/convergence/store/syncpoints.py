"""Sync points: predecessor-keyed fan-in of a traversal's nodes, in the database.

Each node ``(resource, is_update)`` has a ``sync_point`` row (expected predecessors, done count,
its successors, and its state, moved only as the pure table
:data:`app.engine.states.TRANSITIONS` allows: WAITING → FIRED → DONE or FAILED, WAITING →
SKIPPED when something it depends on failed; each move is a compare-and-swap on the state). A predecessor reports by inserting a
``sync_input`` row keyed by its name (a redelivered report inserts nothing and counts nothing) and,
only if that insert happened, incrementing ``done`` with ``UPDATE ... RETURNING`` — the row lock
serialises concurrent reports so exactly one reporter sees ``done == expected`` and moves the node
WAITING → FIRED. It is Celery's Redis chord counter, made idempotent and kept in the database.
"""
from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    and_,
    any_,
    bindparam,
    case,
    false,
    func,
    insert,
    select,
    text,
    true,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.convergence.store import bulk
from app.convergence.store.rows import changed, table
from app.engine.states import NodeEvent, NodeState, sources
from app.models import Stack as _Stack
from app.models import SyncInput
from app.models import SyncPoint as _SyncPoint

# Core tables (the ORM's bulk-update machinery costs more than the statements on this hot path)
SyncPoint = table(_SyncPoint).c
Stack = table(_Stack).c
SP = table(_SyncPoint)
ST = table(_Stack)
_SI = table(SyncInput)

WAITING, FIRED, DONE, FAILED, SKIPPED = (NodeState.WAITING, NodeState.FIRED, NodeState.DONE,
                                         NodeState.FAILED, NodeState.SKIPPED)


def create_nodes(s: Session, stack_id: str, traversal_id: str,
                 nodes: Collection[tuple[int, bool, int, list[list[Any]]]],
                 given: dict[tuple[int, bool], list[tuple[str, Any]]] | None = None) -> None:
    """Write the sync points of a traversal: one per ``(entity_id, is_update, expected,
    successors)``, successors as ``[[entity_id, is_update]]`` (every traversal stores its
    graph the same way). Nodes with no predecessors start FIRED. ``given``: per node
    ``(entity_id, is_update)``, the ``(pred_key, data)`` of predecessors that are not nodes
    of the traversal but report at its start (settled ones): counted as reported, their data
    stored as inputs. One bulk insert each (:func:`bulk.insert_rows`: each row built as it is
    written, so ``nodes`` may compute them lazily)."""
    given = given or {}

    def rows() -> Iterator[dict[str, Any]]:
        for rid, upd, n, succ in nodes:
            k = len(given.get((rid, upd), ()))
            yield {"entity_id": rid, "traversal_id": traversal_id, "is_update": upd,
                   "stack_id": stack_id, "expected": n + k, "done": k, "succ": succ,
                   "state": FIRED if n == 0 else WAITING}

    bulk.insert_rows(s, SP, rows(), len(nodes))
    inputs = [{"entity_id": rid, "traversal_id": traversal_id, "is_update": upd,
               "pred_key": key, "data": data}
              for (rid, upd), reported in given.items() for key, data in reported]
    if inputs:
        s.execute(insert(_SI), inputs)


#: ``INSERT ... ON CONFLICT DO NOTHING`` of a sync input, prebuilt per dialect
_INSERT_INPUT = {"postgresql": postgresql.insert(_SI).on_conflict_do_nothing(),
                 "sqlite": sqlite.insert(_SI).on_conflict_do_nothing()}


def _insert_ignore(s: Session, values: dict[str, Any]) -> bool:
    stmt = _INSERT_INPUT[s.get_bind().dialect.name]
    return bool(changed(s.connection().execute(stmt, values)))


def report(s: Session, traversal_id: str, is_update: bool, entity_id: int, pred_key: str,
           data: dict[str, Any] | None) -> bool:
    """Record that ``pred_key`` finished, passing ``data`` to node ``entity_id``.

    :returns: True if this call completed the node's fan-in (the caller must enqueue it after
        commit). False if it is still waiting, was already fired, or is skipped.
    """
    if not _insert_ignore(s, {"entity_id": entity_id, "traversal_id": traversal_id,
                              "is_update": is_update, "pred_key": pred_key, "data": data}):
        return False
    row = s.connection().execute(_COUNT, _key(traversal_id, is_update, entity_id)).first()
    # moved by this count: a node FIRED before had its count complete already, so its count is
    # past ``expected`` now
    return row is not None and row.state == FIRED and row.done == row.expected


def report_many(s: Session, traversal_id: str, pred_key: str,
                succs: list[tuple[int, bool, dict[str, Any] | None]]) -> list[tuple[int, bool]]:
    """:func:`report` of one predecessor to several nodes ``(entity_id, is_update, data)`` of
    a traversal (:func:`report_all` with one ``pred_key``).

    :returns: the nodes this call completed, in ``succs``' order (the caller enqueues them
        after commit)."""
    return report_all(s, traversal_id, [(rid, upd, pred_key, data) for rid, upd, data in succs])


def report_all(s: Session, traversal_id: str,
               reports: list[tuple[int, bool, str, dict[str, Any] | None]]
               ) -> list[tuple[int, bool]]:
    """:func:`report` of several predecessors to nodes of a traversal, each report
    ``(entity_id, is_update, pred_key, data)``: in one statement on PostgreSQL (a
    data-modifying WITH: the inputs inserted, only the new ones counted, per node, and each
    node moved WAITING → FIRED in the same row update when its count is complete); on SQLite,
    :func:`report` one by one. A report already recorded (a redelivery) counts nothing.

    :returns: the nodes this call completed, each once, in the order of their first report
        (the caller enqueues them after commit)."""
    if not reports:
        return []
    if s.get_bind().dialect.name != "postgresql":
        return [(rid, upd) for rid, upd, key, data in reports
                if report(s, traversal_id, upd, rid, key, data)]
    got = s.connection().execute(_REPORT_ALL, {
        "tid": traversal_id, "rids": [r[0] for r in reports], "upds": [r[1] for r in reports],
        "pks": [r[2] for r in reports], "datas": [json.dumps(r[3]) for r in reports]})
    fired = {(int(r.entity_id), bool(r.is_update)) for r in got
             if r.state == FIRED and r.done == r.expected}
    return list(dict.fromkeys((rid, upd) for rid, upd, _, _ in reports if (rid, upd) in fired))


#: :func:`report_all`'s statement: constant text with its rows as arrays, so that it is
#: compiled once and prepared by the server (built with ``values()``, it would be compiled on
#: every call). ``data`` goes as JSON text, as the column's
#: own serializer writes it (``null`` for None). A node reported to twice in one call is
#: counted by the number of its new inputs (an UPDATE ... FROM updates a row once).
_REPORT_ALL = text(f"""
WITH new_input AS (
    INSERT INTO sync_input (entity_id, traversal_id, is_update, pred_key, data)
    SELECT v.entity_id, :tid, v.is_update, v.pred_key, CAST(v.data AS json)
    FROM unnest(CAST(:rids AS integer[]), CAST(:upds AS boolean[]), CAST(:pks AS text[]),
                CAST(:datas AS text[])) AS v(entity_id, is_update, pred_key, data)
    ON CONFLICT DO NOTHING
    RETURNING entity_id, is_update),
counted AS (
    SELECT entity_id, is_update, count(*) AS n FROM new_input GROUP BY entity_id, is_update)
UPDATE sync_point SET done = sync_point.done + counted.n,
    state = CASE WHEN sync_point.state = '{WAITING.value}'
                      AND sync_point.done + counted.n >= sync_point.expected
                 THEN '{sources(NodeEvent.READY)[1].value}' ELSE sync_point.state END
FROM counted
WHERE sync_point.traversal_id = :tid AND sync_point.entity_id = counted.entity_id
  AND sync_point.is_update = counted.is_update
RETURNING sync_point.entity_id, sync_point.is_update, sync_point.done, sync_point.expected,
          sync_point.state""")

_NODE = (SyncPoint.traversal_id == bindparam("tid"), SyncPoint.is_update == bindparam("upd"),
         SyncPoint.entity_id == bindparam("rid"))
#: Prebuilt statements of the hot path (one per state-table event, the fan-in counter)
_MOVES = {ev: update(SP).where(*_NODE, SyncPoint.state == sources(ev)[0])
          .values(state=sources(ev)[1]) for ev in NodeEvent}
#: One report counted, and its node moved WAITING → FIRED in the same row update when that
#: completes its count (the SET clause reads the row as it was)
_COUNT = (update(SP).where(*_NODE)
          .values(done=SyncPoint.done + 1,
                  state=case((and_(SyncPoint.state == sources(NodeEvent.READY)[0],
                                   SyncPoint.done + 1 >= SyncPoint.expected),
                              sources(NodeEvent.READY)[1]), else_=SyncPoint.state))
          .returning(SyncPoint.done, SyncPoint.expected, SyncPoint.state))


def _move(s: Session, key: dict[str, Any], event: NodeEvent) -> bool:
    """Compare-and-swap one node along the state table; False if its state refused it."""
    return bool(changed(s.connection().execute(_MOVES[event], key)))


def _key(traversal_id: str, is_update: bool, entity_id: int) -> dict[str, Any]:
    return {"tid": traversal_id, "upd": is_update, "rid": entity_id}


def inputs(s: Session | Connection, traversal_id: str, is_update: bool,
           entity_id: int) -> dict[str, Any]:
    """``{pred_key: data}`` passed on to a node (``s``: a session, or a connection). O(degree)."""
    conn = s.connection() if isinstance(s, Session) else s
    rows = conn.execute(_INPUTS, {"rid": entity_id, "tid": traversal_id, "upd": is_update})
    return {r.pred_key: r.data for r in rows}


_INPUTS = select(_SI.c.pred_key, _SI.c.data).where(
    _SI.c.entity_id == bindparam("rid"), _SI.c.traversal_id == bindparam("tid"),
    _SI.c.is_update == bindparam("upd"))


def inputs_many(conn: Connection, traversal_id: str,
                nodes: list[tuple[int, bool]]) -> dict[tuple[int, bool], dict[str, Any]]:
    """:func:`inputs` of several nodes of a traversal in one statement: ``{(entity_id,
    is_update): {pred_key: data}}``, a node with none absent. O(their degrees)."""
    if not nodes:
        return {}
    out: dict[tuple[int, bool], dict[str, Any]] = {}
    for r in conn.execute(_INPUTS_MANY, {"tid": traversal_id, "keys": nodes,
                                         "rids": sorted({rid for rid, _ in nodes})}):
        out.setdefault((int(r.entity_id), bool(r.is_update)), {})[r.pred_key] = r.data
    return out


#: ``rids`` lets SQLite read the rows by key (with the pairs alone it scanned every input)
_INPUTS_MANY = select(SyncInput.entity_id, SyncInput.is_update, SyncInput.pred_key,
                      SyncInput.data).where(
    SyncInput.traversal_id == bindparam("tid"),
    SyncInput.entity_id.in_(bindparam("rids", expanding=True)),
    tuple_(SyncInput.entity_id, SyncInput.is_update).in_(bindparam("keys", expanding=True)))


def state(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> str | None:
    return s.connection().execute(select(SP.c.state).where(
        SyncPoint.entity_id == entity_id, SyncPoint.traversal_id == traversal_id,
        SyncPoint.is_update == is_update)).scalar()


def mark_done(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> bool:
    """Move a node FIRED → DONE. False if it was not FIRED (already ended: a redelivery)."""
    return _move(s, _key(traversal_id, is_update, entity_id), NodeEvent.FINISH)


def ids_in(column: ColumnElement[int], name: str, dialect: str) -> ColumnElement[bool]:
    """``column`` among the ids of parameter ``name``: on PostgreSQL ``= ANY(:name)``, one
    array parameter (the statement's text stays the same, so the driver prepares it once);
    elsewhere an expanding ``IN``, whose text is rendered again for each list length."""
    if dialect == "postgresql":
        return column == any_(bindparam(name, type_=postgresql.ARRAY(Integer)))
    return column.in_(bindparam(name, expanding=True))


#: FIRED → DONE of several nodes of one traversal in one statement, naming those it moved
#: (per dialect, :func:`ids_in`)
_FINISH_MANY = {d: update(SP).where(SyncPoint.traversal_id == bindparam("tid"),
                                    SyncPoint.is_update == bindparam("upd"),
                                    ids_in(SyncPoint.entity_id, "rids", d),
                                    SyncPoint.state == sources(NodeEvent.FINISH)[0])
                .values(state=sources(NodeEvent.FINISH)[1]).returning(SyncPoint.entity_id)
                for d in ("postgresql", "sqlite")}


def mark_done_many(s: Session, traversal_id: str,
                   nodes: Iterable[tuple[int, bool]]) -> set[tuple[int, bool]]:
    """Move nodes ``(entity_id, is_update)`` FIRED → DONE: one ``UPDATE ... RETURNING`` per
    ``is_update`` (each move still a compare-and-swap on the state, as :func:`mark_done`).

    :returns: the nodes it moved; the others were not FIRED (already ended: redeliveries)."""
    by_kind: dict[bool, list[int]] = {}
    for rid, upd in nodes:
        by_kind.setdefault(upd, []).append(rid)
    moved: set[tuple[int, bool]] = set()
    if len(by_kind) == 1 and len(next(iter(by_kind.values()))) == 1:  # a step of its own
        ((upd, (rid,)),) = by_kind.items()
        return {(rid, upd)} if mark_done(s, traversal_id, upd, rid) else moved
    finish = _FINISH_MANY[s.get_bind().dialect.name]
    for upd, rids in by_kind.items():
        got = s.connection().execute(finish, {"tid": traversal_id, "upd": upd,
                                              "rids": rids}).scalars()
        moved.update((int(rid), upd) for rid in got)
    return moved


def mark_failed(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> bool:
    """Move a node FIRED → FAILED. False if it was not FIRED (already ended: a redelivery)."""
    return _move(s, _key(traversal_id, is_update, entity_id), NodeEvent.FAIL)


def skip(s: Session, traversal_id: str, is_update: bool, entity_ids: Iterable[int]) -> int:
    """Mark still-WAITING nodes SKIPPED (they depend on a failure); returns how many."""
    ids = list(entity_ids)
    if not ids:
        return 0
    source, target = sources(NodeEvent.SKIP)
    return changed(s.connection().execute(update(SP).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update == is_update,
        SyncPoint.entity_id.in_(ids), SyncPoint.state == source).values(state=target)))


def graph(s: Session, traversal_id: str, stack_id: str) -> dict[tuple[int, bool], list[Any]]:
    """Every node of a traversal with its successors (O(stack): used only when a node fails,
    to skip what depends on it)."""
    rows = s.connection().execute(select(SP.c.entity_id, SP.c.is_update, SP.c.succ).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.stack_id == stack_id))
    return {(r.entity_id, bool(r.is_update)): list(r.succ or ()) for r in rows}


def fired_not_done(s: Session, traversal_id: str, is_update: bool,
                   entity_ids: Iterable[int]) -> list[int]:
    """Of ``entity_ids``, the nodes that fired but have not finished (to re-enqueue after a
    crash between commit and enqueue)."""
    ids = list(entity_ids)
    if not ids:
        return []
    return list(s.connection().execute(select(SP.c.entity_id).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update == is_update,
        SyncPoint.entity_id.in_(ids), SyncPoint.state == FIRED)).scalars())


def decrement(s: Session, stack_id: str, traversal_id: str, ended: int) -> int | None:
    """The stack-level sync point: subtract ``ended`` nodes from ``pending_nodes``.

    Call it last in a transaction (it locks the stack row until commit).
    :returns: the remaining count, or None if the traversal is no longer current.
    """
    left = s.connection().execute(_DECREMENT, {"sid": stack_id, "tid": traversal_id, "n": ended}).scalar()
    return None if left is None else int(left)


_DECREMENT = (update(ST).where(Stack.id == bindparam("sid"), Stack.current_traversal == bindparam("tid"))
              .values(pending_nodes=ST.c.pending_nodes - bindparam("n"))
              .returning(ST.c.pending_nodes))


#: Count finished nodes of one traversal and direction: mark the DONE ones not yet counted and
#: subtract them from the stack's ``pending_nodes``, in one statement (PostgreSQL's
#: data-modifying WITH), so that the stack row stays locked only while the server runs it.
#: Nothing left to count: no row is returned and the stack row is not touched. (PostgreSQL's
#: only: the store that counts after the commit is its, :mod:`.nodes`.)
_MOVED = (update(SP).where(SyncPoint.traversal_id == bindparam("tid"),
                           SyncPoint.is_update == bindparam("upd"),
                           ids_in(SyncPoint.entity_id, "rids", "postgresql"),
                           SyncPoint.state == DONE, SyncPoint.counted == false())
          .values(counted=true()).returning(SyncPoint.entity_id).cte("moved"))
_MOVED_COUNT = select(func.count()).select_from(_MOVED).scalar_subquery()
_COUNT_FINISHED = (update(ST).where(Stack.id == bindparam("sid"),
                                    Stack.current_traversal == bindparam("tid"),
                                    _MOVED_COUNT > 0)
                   .values(pending_nodes=ST.c.pending_nodes - _MOVED_COUNT)
                   .returning(ST.c.pending_nodes))


def count_finished(conn: Any, stack_id: str, traversal_id: str,
                   nodes: Iterable[tuple[int, bool]]) -> bool:
    """Subtract finished nodes ``(entity_id, is_update)`` from the stack-level sync point after
    their own transaction committed, each once (``sync_point.counted``): how PostgreSQL keeps
    the stack row, which every finishing node of the stack updates, from being a queue. In
    :func:`decrement`'s way the row stays locked from the UPDATE to the COMMIT, so under a
    busy worker every other finishing node waits out its client's round trips; here ``conn``
    is an autocommit connection (:func:`app.models.autocommit`) and the lock lasts one
    statement. Idempotent: a redelivered step counts nothing twice (only DONE nodes not yet
    counted are), so a crash between the node's commit and this statement is repaired by the
    redelivery (:func:`app.convergence.check.check_resource`).

    :returns: whether this call brought the traversal's count to zero (its caller finishes
        the traversal; exactly one call does, the row lock orders them)."""
    by_kind: dict[bool, list[int]] = {}
    for rid, upd in nodes:
        by_kind.setdefault(upd, []).append(rid)
    zero = False
    for upd, rids in by_kind.items():
        left = conn.execute(_COUNT_FINISHED, {"sid": stack_id, "tid": traversal_id, "upd": upd,
                                              "rids": rids}).scalar()
        zero = zero or (left is not None and int(left) <= 0)
    return zero
