"""On PostgreSQL a traversal that starts with many rows copies its resource rows and sync points
(:mod:`app.convergence.store.bulk`): what is stored is what one ``INSERT`` stores, and the
traversal runs to its end the same way."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.context import RequestContext
from app.convergence.store import bulk
from app.models import Resource, SyncPoint, read_session
from app.services import stacks
from tests.fixtures.stacks import hot, knob, rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.conftest import Recorder

CTX = RequestContext(tenant_id="bulk")
SKIP = {"id", "uuid", "stack_id", "created_at"}


def _template() -> dict[str, Any]:
    res: dict[str, Any] = {f"k{i}": knob(f"v{i}") for i in range(5)}
    res["last"] = knob({"list_join": [",", [{"get_attr": [f"k{i}", "output"]}
                                            for i in range(5)]]})
    res["last"]["deletion_policy"] = "Retain"
    return hot(res)


def _stored(stack_id: str) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The stack's rows (their columns but ids and times) by name, and its sync points as
    ``(resource name, is_update, expected, done, state, counted, successor names)``."""
    by_name = rows(stack_id)
    names = {r.id: n for n, r in by_name.items()}
    with read_session() as s:
        points = s.execute(select(SyncPoint).where(SyncPoint.stack_id == stack_id)).scalars()
        sync = sorted((names[p.entity_id], p.is_update, p.expected, p.done, p.state, p.counted,
                       sorted(names[i] for i, _ in p.succ or ())) for p in points)
    cols = [c.key for c in Resource.__table__.c if c.key not in SKIP]
    return {n: {c: getattr(r, c) for c in cols} for n, r in by_name.items()}, sync


def test_copied_rows_and_sync_points_are_those_an_insert_writes(pg_db, monkeypatch):
    rec = Recorder()
    use_dispatcher(rec)
    inserted = stacks.create_stack(CTX, stack_name="inserted", template=_template())
    monkeypatch.setattr(bulk, "COPY_FROM", 2)
    copied = stacks.create_stack(CTX, stack_name="copied", template=_template())
    assert _stored(copied.id) == _stored(inserted.id)
    with read_session() as s:
        uuids = s.execute(select(Resource.uuid).where(Resource.stack_id == copied.id)).all()
    assert len({u for u, in uuids}) == 6
    rec.run_all()
    for st in (inserted, copied):
        done = stacks.get_by_id(CTX, st.id)
        assert done.stack_status == "CREATE_COMPLETE", done.status_reason
    assert rows(copied.id)["last"].properties_data["value"] == "v0,v1,v2,v3,v4"
    assert rows(copied.id)["last"].deletion_policy == "Retain"
    stacks.delete_stack(CTX, copied.name, copied.id)   # its reverse sync points copied too
    with read_session() as s:
        reverse = s.execute(select(SyncPoint.entity_id, SyncPoint.expected).where(
            SyncPoint.stack_id == copied.id, SyncPoint.is_update.is_(False))).all()
    assert len(reverse) == 6
    assert sorted(e for _, e in reverse) == [0, 1, 1, 1, 1, 1]  # each k waits for "last"
    rec.run_all()
    assert stacks.get_by_id(CTX, copied.id).stack_status == "DELETE_COMPLETE"


def test_rows_inserted_from_one_json_parameter_are_those_a_copy_writes(pg_db, monkeypatch):
    """Fewer rows than COPY_FROM go in one ``INSERT ... SELECT FROM json_to_recordset``: the
    same columns as the copy (defaults filled, JSON columns as values, SQL NULL where nothing
    is given), whatever the names' characters; the ids returned are the rows'."""
    use_dispatcher(Recorder())
    t = hot({"grüße": knob("ä"), "g": {"type": "OS::Heat::ResourceGroup", "depends_on": "grüße",
                                         "properties": {"count": 2,
                                                        "resource_def": knob("x")}}})
    made = stacks.create_stack(CTX, stack_name="json", template=t)
    monkeypatch.setattr(bulk, "COPY_FROM", 1)
    copied = stacks.create_stack(CTX, stack_name="copied2", template=t)
    assert _stored(made.id) == _stored(copied.id)
    stored = rows(made.id)
    assert stored["g"].requires == ["grüße"] and stored["g"].rsrc_data == {"nested": "group"}
    assert stored["grüße"].properties_data is None and stored["grüße"].created_at is not None
    with read_session() as s:
        points = {p for p, in s.execute(select(SyncPoint.entity_id).where(
            SyncPoint.stack_id == made.id))}
    assert points == {r.id for r in stored.values()}
