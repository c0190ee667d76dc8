"""The node store: how a step's node is read and locked at its start, and how its end (finished,
parked) is written and counted. One interface, :class:`NodeStore`; two implementations, chosen
once for the process's database by :func:`current`:

A step begins with :meth:`NodeStore.begin` (its node read and locked, :mod:`.starts`).

- :class:`OneByOne` (SQLite, one writer): a step starts in one transaction and writes its end in
  one more, where a finished node is also counted;
- :class:`Grouped` (PostgreSQL, writers side by side): the steps of one process that start,
  finish or park together share statements and a transaction (:mod:`.group_commit`); a finished
  node is counted after its commit, so the hot stack row is locked for one statement only.
"""
from __future__ import annotations

import contextlib
import enum
import logging
from collections.abc import Iterator
from typing import Any

from sqlalchemy import ColumnElement, Connection

from app import errors
from app.convergence.results import Node, NodeKey
from app.convergence.store import locks, starts, syncpoints
from app.convergence.store import node_writes as w
from app.convergence.store.events import ResourceEvent
from app.convergence.store.group_commit import GroupCommit, indexes_by
from app.convergence.store.node_writes import End, Failing, Finished, Parked
from app.convergence.store.rows import ResourceRow, StepStack
from app.convergence.store.starts import Started
from app.engine.states import NodeState
from app.models import SyncPoint, autocommit, concurrent_writers, read_session, session

log = logging.getLogger(__name__)
Written = tuple[bool, list[NodeKey]] | None
_Finishing = tuple[Node, Finished, End]


class Skip(enum.Enum):
    """Why a node's step does not run now (:meth:`NodeStore.begin`)."""
    NOTHING = "nothing"        # its stack or row is gone, or the node is not FIRED
    BUSY = "busy"              # a live engine holds its lock: look again shortly
    SUPERSEDED = "superseded"  # the stack's traversal is no longer this one


class NodeStore:
    """What the runtime asks of the database about its nodes (see the module)."""

    #: a finished node is counted after its transaction committed (not in it): such a node,
    #: ended but not yet counted, is in flight
    counts_after_commit = False
    #: one writer, on one host (SQLite): a late heartbeat of a process that runs here is a busy
    #: engine, not a dead one; work that takes long is done outside the writer's transaction
    one_writer = False

    def starting(self) -> contextlib.AbstractContextManager[Connection]:
        """The connection a step reads its node and takes its lock on."""
        raise NotImplementedError

    def start(self, key: tuple[str, str, int, bool]) -> Started:
        """``(stack id, traversal id, resource id, is_update)`` read and locked with other steps
        that start together; None: the step starts on its own (:meth:`starting`)."""
        return None

    def begin(self, stack_id: str, traversal_id: str, resource_id: int,
              is_update: bool) -> Node | Skip:
        """Node ``(resource_id, is_update)`` of ``traversal_id``, read and locked for its step;
        a node whose sync point is DONE already (a redelivery) comes back unlocked. A lock
        held by a dead engine is taken over; one held by a live engine is :data:`Skip.BUSY`.
        Cost: O(degree) queries (DESIGN.md, invariant 5)."""
        started = self.start((stack_id, traversal_id, resource_id, is_update))
        if started is not None:  # read, FIRED and locked with the others that came together
            found, locked, given = started
            return Node(StepStack.of(found), ResourceRow.of(locked), traversal_id, is_update,
                        inputs=given)
        with self.starting() as c:
            found, row, inputs = starts.lock_one(c, stack_id, traversal_id, resource_id,
                                                 is_update)
        if found is None:
            return Skip.NOTHING
        if found.current_traversal != traversal_id:
            return Skip.SUPERSEDED
        st = StepStack.of(found)
        if st.state == NodeState.DONE:
            with read_session() as s:
                row = starts.resource_row(s.connection(), resource_id)
            return Skip.NOTHING if row is None else Node(st, ResourceRow.of(row), traversal_id,
                                                         is_update)
        if st.state != NodeState.FIRED:
            return Skip.NOTHING
        if row is None:  # held: by a live engine (retry soon) or a dead one (take it over);
            # or its key moved since the read (another step came and went, a newer traversal)
            if self.acquire(resource_id) is False:
                return Skip.BUSY
            with read_session() as s:
                row = starts.resource_row(s.connection(), resource_id)
                current = starts.current_traversal(s.connection(), stack_id)
                if is_update and st.expected:
                    inputs = syncpoints.inputs(s, traversal_id, is_update, resource_id)
            if current != traversal_id:  # superseded meanwhile
                locks.release(resource_id, None if row is None else row.atomic_key)
                return Skip.SUPERSEDED
            if row is None:
                return Skip.NOTHING
        return Node(st, ResourceRow.of(row), traversal_id, is_update, inputs=dict(inputs))

    def park(self, node: Node, values: dict[str, Any], found: list[ResourceEvent]) -> bool:
        """Write a parked node's row (``values``, its lock released among them) and its
        events ``found``. :returns: False if its lock was no longer its step's."""
        return w.park_alone(node, values, found)

    def finish(self, node: Node, prepared: Finished, end: End) -> None:
        """Write a finished node, count it, enqueue its ready successors (and, if it had
        ended already, what a redelivery owes: :meth:`ended_again`)."""
        raise NotImplementedError

    def finish_together(self, prepared: list[tuple[Node, Finished]], end: End) -> list[Node]:
        """Write finished nodes of one traversal in one transaction, count them, enqueue the
        ready successors. :raises: as the transaction (nothing written).
        :returns: the nodes written but not counted (their redelivered steps count them)."""
        raise NotImplementedError

    def fail(self, node: Node, failing: Failing, end: End) -> None:
        """Write a failed node (:func:`node_writes.fail`: the same on both stores)."""
        w.fail(node, failing, end)

    def release(self, node: Node, found: list[ResourceEvent]) -> None:
        """Release ``node``'s lock, writing its step's events ``found`` (a node that ends with
        no outcome of its own: its traversal timed out)."""
        w.release(node, found)

    def settle(self, r: Any, values: dict[str, Any], found: list[ResourceEvent]) -> None:
        """Write row ``r``'s ``values`` and events ``found``, releasing its lock (a stopped
        traversal's action: no node of it is written or counted)."""
        w.settle(r, values, found)

    def rewrite(self, r: ResourceRow, **values: Any) -> ResourceRow:
        """Write a step's own row before its cloud call (:func:`node_writes.rewrite`)."""
        return w.rewrite(r, values)

    def signalled(self, r: Any, token: int, data: dict[str, Any] | None,
                  found: list[ResourceEvent]) -> None:
        """Write a delivered signal (:func:`node_writes.signalled`), releasing its lock."""
        w.signalled(r, token, data, found)

    def ended_again(self, node: Node, end: End) -> None:
        """A step of a node that had ended already (a redelivery, a retry): make sure it was
        counted, and that its successors that fired went out."""
        w.reenqueue_successors(node)

    def in_flight(self) -> ColumnElement[bool]:
        """The sync points of nodes whose step is owed (the reconciler's)."""
        return SyncPoint.state == NodeState.FIRED

    def may_be_dead(self, engine: str) -> bool:
        """Whether ``engine``, whose heartbeat is late, may be taken over."""
        return not (self.one_writer and locks.running_here(engine))

    def acquire(self, resource_id: int) -> bool | None:
        """:func:`locks.acquire` under this store's idea of a dead engine."""
        return locks.acquire(resource_id, self.may_be_dead)


class OneByOne(NodeStore):
    """SQLite: one writer, each step in transactions of its own."""

    one_writer = True

    @contextlib.contextmanager
    def starting(self) -> Iterator[Connection]:
        """One transaction, as the single writer wants."""
        with session() as s:
            yield s.connection()

    def finish(self, node: Node, prepared: Finished, end: End) -> None:
        with session() as s:
            ended, ready = w.write_finished(s, [(node, prepared)])
            if ended:
                w.count(s, node, len(ended), end)
        w.enqueue(node, ready.get(node.key, []))

    def finish_together(self, prepared: list[tuple[Node, Finished]], end: End) -> list[Node]:
        with session() as s:
            ended, by_node = w.write_finished(s, prepared)
            if ended:
                w.count(s, prepared[0][0], len(ended), end)
        w.enqueue(prepared[0][0], [k for n, _ in prepared for k in by_node.get(n.key, ())])
        return []


class Grouped(NodeStore):
    """PostgreSQL: the steps of one process that start, finish or park together share their
    statements; a finished node is counted after its commit. A group whose transaction fails
    is written step by step."""

    counts_after_commit = True

    def __init__(self) -> None:
        self.starts: GroupCommit[tuple[str, str, int, bool], Started] = GroupCommit(
            self._start_group)
        self.finishes: GroupCommit[_Finishing, Written] = GroupCommit(self._finish_group)
        self.parks: GroupCommit[Parked, bool | None] = GroupCommit(self._park_group)

    @contextlib.contextmanager
    def starting(self) -> Iterator[Connection]:
        """Each statement commits on its own: the compare-and-swap on ``atomic_key`` makes the
        read and the lock one decision, without a transaction's round trips."""
        with autocommit() as conn:
            yield conn

    def start(self, key: tuple[str, str, int, bool]) -> Started:
        return self.starts.submit(key)

    def park(self, node: Node, values: dict[str, Any], found: list[ResourceEvent]) -> bool:
        got = self.parks.submit((node, values, found))
        return super().park(node, values, found) if got is None else got

    def finish(self, node: Node, prepared: Finished, end: End) -> None:
        got = self.finishes.submit((node, prepared, end))
        if got is None:  # its group could not be written: on its own
            got = self._finish_alone(node, prepared, end)
        ended, ready = got
        w.enqueue(node, ready)
        if not ended:
            self.ended_again(node, end)

    def _finish_alone(self, node: Node, prepared: Finished, end: End) -> tuple[bool, list[NodeKey]]:
        with session() as s:
            ended, ready = w.write_finished(s, [(node, prepared)])
        if ended:
            w.count_committed(node, ended, end)
        return bool(ended), ready.get(node.key, [])

    def finish_together(self, prepared: list[tuple[Node, Finished]], end: End) -> list[Node]:
        with session() as s:
            ended, by_node = w.write_finished(s, prepared)
        first = prepared[0][0]
        w.enqueue(first, [k for n, _ in prepared for k in by_node.get(n.key, ())])
        if not ended:
            return []
        try:
            w.count_committed(first, ended, end)
        except Exception:  # their steps, delivered again one by one, count them
            log.exception("%d finished steps not counted; enqueued again", len(ended))
            return [n for n, _ in prepared if n.key in set(ended)]
        return []

    def ended_again(self, node: Node, end: End) -> None:
        w.count_committed(node, [node.key], end, recover=True)
        super().ended_again(node, end)

    def in_flight(self) -> ColumnElement[bool]:
        """Also a node finished but not counted (its process died between the two)."""
        return super().in_flight() | ((SyncPoint.state == NodeState.DONE)
                                      & SyncPoint.counted.is_(False))

    def _start_group(self, items: list[tuple[str, str, int, bool]]) -> list[Started | BaseException]:
        """Per stack and traversal, :func:`starts.lock_fired` on an autocommit connection.
        :returns: per item its start, or None (not FIRED, its lock held, a superseded
        traversal, its stack gone, or the group's statements failed: it starts alone)."""
        out: list[Started | BaseException] = [None] * len(items)
        for (sid, tid), idx in indexes_by(items, lambda item: (item[0], item[1])).items():
            keys = [(items[i][2], items[i][3]) for i in idx]
            try:
                with autocommit() as c:
                    locked = starts.lock_fired(c, sid, tid, keys)
            except Exception:
                log.exception("%d steps could not start together; starting them one by one",
                              len(keys))
                continue
            for i, key in zip(idx, keys):
                out[i] = locked.get(key)
        return out

    def _finish_group(self, items: list[_Finishing]) -> list[Written | BaseException]:
        """One transaction per traversal (:func:`node_writes.write_finished`), then one count
        of those that ended. :returns: per item ``(ended, ready successors)``; None where its
        transaction failed (written alone); an exception where it was written but not counted
        (raised in its step, whose next delivery counts it)."""
        out: list[Written | BaseException] = [None] * len(items)
        for idx in indexes_by(items, lambda it: (it[0].stack.id, it[0].traversal_id)).values():
            part = [items[i] for i in idx]
            try:
                with session() as s:
                    ended, ready = w.write_finished(s, [(n, f) for n, f, _ in part])
            except errors.LeaseLost:  # the others are written one by one, without it
                continue
            except Exception:
                log.exception("%d finished steps could not be written together; "
                              "writing them one by one", len(part))
                continue
            try:
                if ended:
                    w.count_committed(part[0][0], ended, part[0][2])
            except Exception as exc:
                log.exception("%d finished steps not counted", len(ended))
                for i in idx:
                    out[i] = exc
                continue
            ended_set = set(ended)
            for i, (n, _, _) in zip(idx, part):
                out[i] = (n.key in ended_set, ready.get(n.key, []))
        return out

    def _park_group(self, items: list[Parked]) -> list[bool | None | BaseException]:
        """:func:`node_writes.park_many`. :returns: True for each item; None for all if the
        transaction failed or a lock was lost (each is then written on its own)."""
        try:
            w.park_many(items)
        except errors.LeaseLost:
            return [None] * len(items)
        except Exception:
            log.exception("%d parked steps could not be written together; writing them one "
                          "by one", len(items))
            return [None] * len(items)
        return [True] * len(items)


#: the store of each kind, made once per process (its groups' counters are the process's)
_MADE: dict[bool, NodeStore] = {}


def current() -> NodeStore:
    """The node store of the process's database: :class:`Grouped` where writers run side by
    side (PostgreSQL), :class:`OneByOne` otherwise (SQLite). Decided here and nowhere else."""
    grouped = concurrent_writers()
    made = _MADE.get(grouped)
    if made is None:
        made = _MADE.setdefault(grouped, Grouped() if grouped else OneByOne())
    return made
