"""Sync points: predecessor-keyed fan-in of a traversal's nodes, in the database.

Each node has a ``sync_point`` row (expected predecessors, done count, state WAITING → FIRED →
DONE, or SKIPPED when something it depends on failed). A predecessor reports by inserting a
``sync_input`` row keyed by its name (a redelivered report inserts nothing and counts nothing) and,
only if that insert happened, incrementing ``done`` with ``UPDATE ... RETURNING`` — the row lock
serialises concurrent reports so exactly one reporter sees ``done == expected`` and moves the node
WAITING → FIRED. It is Celery's Redis chord counter, made idempotent and kept in the database.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.models import Stack as _Stack
from app.models import SyncInput
from app.models import SyncPoint as _SyncPoint

# Core tables (the ORM's bulk-update machinery costs more than the statements on this hot path)
SyncPoint = _SyncPoint.__table__.c
Stack = _Stack.__table__.c
SP = _SyncPoint.__table__
ST = _Stack.__table__

WAITING, FIRED, DONE, SKIPPED = "WAITING", "FIRED", "DONE", "SKIPPED"


def create_all(s: Session, stack_id: str, traversal_id: str, is_update: bool,
               expected: dict[int, int]) -> None:
    """Write one sync point per node: ``expected`` maps resource id → predecessor count.
    Nodes with no predecessors start FIRED (the caller enqueues them). One bulk insert."""
    if expected:
        s.execute(insert(SP), [
            {"entity_id": rid, "traversal_id": traversal_id, "is_update": is_update,
             "stack_id": stack_id, "expected": n, "done": 0, "state": FIRED if n == 0 else WAITING}
            for rid, n in expected.items()])


def create_nodes(s: Session, stack_id: str, traversal_id: str,
                 nodes: Iterable[tuple[int, bool, int, list[list[Any]]]]) -> None:
    """Write the sync points of a traversal that mixes directions (an UPDATE): one per
    ``(entity_id, is_update, expected, successors)``, successors as ``[[entity_id, is_update]]``.
    Nodes with no predecessors start FIRED. One bulk insert."""
    rows = [{"entity_id": rid, "traversal_id": traversal_id, "is_update": upd,
             "stack_id": stack_id, "expected": n, "done": 0, "succ": succ,
             "state": FIRED if n == 0 else WAITING} for rid, upd, n, succ in nodes]
    if rows:
        s.execute(insert(SP), rows)


def _insert_ignore(s: Session, values: dict[str, Any]) -> bool:
    dialect = s.get_bind().dialect.name
    if dialect == "postgresql":
        stmt: Any = postgresql.insert(SyncInput.__table__).values(**values).on_conflict_do_nothing()
    else:
        stmt = sqlite.insert(SyncInput.__table__).values(**values).on_conflict_do_nothing()
    return bool(s.execute(stmt).rowcount)


def report(s: Session, traversal_id: str, is_update: bool, entity_id: int, pred_key: str,
           data: dict[str, Any] | None) -> bool:
    """Record that ``pred_key`` finished, passing ``data`` to node ``entity_id``.

    :returns: True if this call completed the node's fan-in (the caller must enqueue it after
        commit). False if it is still waiting, was already fired, or is skipped.
    """
    if not _insert_ignore(s, {"entity_id": entity_id, "traversal_id": traversal_id,
                              "is_update": is_update, "pred_key": pred_key, "data": data}):
        return False
    key = (SyncPoint.entity_id == entity_id, SyncPoint.traversal_id == traversal_id,
           SyncPoint.is_update == is_update)
    row = s.execute(update(SP).where(*key).values(done=SyncPoint.done + 1)
                    .returning(SyncPoint.done, SyncPoint.expected, SyncPoint.state)).first()
    if row is None or row.done < row.expected or row.state != WAITING:
        return False
    return bool(s.execute(update(SP).where(*key, SyncPoint.state == WAITING)
                          .values(state=FIRED)).rowcount)


def inputs(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> dict[str, Any]:
    """``{pred_key: data}`` passed on to a node. O(degree)."""
    rows = s.execute(select(SyncInput.pred_key, SyncInput.data).where(
        SyncInput.entity_id == entity_id, SyncInput.traversal_id == traversal_id,
        SyncInput.is_update == is_update))
    return {r.pred_key: r.data for r in rows}


def state(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> str | None:
    return s.execute(select(SP.c.state).where(
        SyncPoint.entity_id == entity_id, SyncPoint.traversal_id == traversal_id,
        SyncPoint.is_update == is_update)).scalar()


def mark_done(s: Session, traversal_id: str, is_update: bool, entity_id: int) -> bool:
    """Move a node FIRED → DONE. False if it was not FIRED (already DONE: a redelivery)."""
    return bool(s.execute(update(SP).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update == is_update,
        SyncPoint.entity_id == entity_id, SyncPoint.state == FIRED).values(state=DONE)).rowcount)


def skip(s: Session, traversal_id: str, is_update: bool, entity_ids: Iterable[int]) -> int:
    """Mark still-WAITING nodes SKIPPED (they depend on a failure); returns how many."""
    ids = list(entity_ids)
    if not ids:
        return 0
    return int(s.execute(update(SP).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update == is_update,
        SyncPoint.entity_id.in_(ids), SyncPoint.state == WAITING).values(state=SKIPPED)).rowcount)


def graph(s: Session, traversal_id: str, stack_id: str) -> dict[tuple[int, bool], list[Any]]:
    """Every node of a mixed-direction traversal with its successors (O(stack): used only when
    a node fails, to skip what depends on it)."""
    rows = s.execute(select(SP.c.entity_id, SP.c.is_update, SP.c.succ).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.stack_id == stack_id))
    return {(r.entity_id, bool(r.is_update)): list(r.succ or ()) for r in rows}


def fired_not_done(s: Session, traversal_id: str, is_update: bool,
                   entity_ids: Iterable[int]) -> list[int]:
    """Of ``entity_ids``, the nodes that fired but have not finished (to re-enqueue after a
    crash between commit and enqueue)."""
    ids = list(entity_ids)
    if not ids:
        return []
    return list(s.execute(select(SP.c.entity_id).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update == is_update,
        SyncPoint.entity_id.in_(ids), SyncPoint.state == FIRED)).scalars())


def decrement(s: Session, stack_id: str, traversal_id: str, ended: int) -> int | None:
    """The stack-level sync point: subtract ``ended`` nodes from ``pending_nodes``.

    Call it last in a transaction (it locks the stack row until commit).
    :returns: the remaining count, or None if the traversal is no longer current.
    """
    return s.execute(update(ST).where(Stack.id == stack_id,
                                         Stack.current_traversal == traversal_id)
                     .values(pending_nodes=ST.c.pending_nodes - ended)
                     .returning(ST.c.pending_nodes)).scalar()
