"""``purge_deleted`` (Heat's ``heat-manage purge_deleted``): the stacks deleted longer ago than
the age go with everything of theirs; a stack deleted more recently, a live stack, another
project's stack (with ``--project``) and a template still referenced stay."""
from __future__ import annotations

import datetime as dt
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select, update

from app import errors
from app.cli.commands import cli
from app.context import RequestContext
from app.models import (
    Event,
    RawTemplate,
    Resource,
    Snapshot,
    Stack,
    SyncInput,
    SyncPoint,
    UserCreds,
    read_session,
    session,
    utcnow,
)
from app.services import purge, stacks, updates
from tests.fixtures.stacks import final, none_stack

P1, P2 = RequestContext(tenant_id="p1"), RequestContext(tenant_id="p2")


def _stack(ctx: RequestContext, name: str, *, deleted_ago: dt.timedelta | None = None,
           template: dict | None = None) -> str:
    template = template or {**none_stack(2), "description": name}  # a row of its own
    sid = stacks.create_stack(ctx, stack_name=name, template=template).id
    assert final(ctx, sid).stack_status == "CREATE_COMPLETE"
    if deleted_ago is not None:
        stacks.delete_stack(ctx, name, sid)
        assert final(ctx, sid).stack_status == "DELETE_COMPLETE"
        with session() as s:
            s.execute(update(Stack).where(Stack.id == sid)
                      .values(deleted_at=utcnow() - deleted_ago))
    _leftovers(ctx, sid)
    return sid


def _leftovers(ctx: RequestContext, sid: str) -> None:
    """What a stack may still own: a sync point and its input, a snapshot record, stored
    credentials, a resource row (the engine leaves none after a delete)."""
    with session() as s:
        rid = s.execute(select(func.max(Resource.id))).scalar() or 0
        res = Resource(stack_id=sid, name="left", type="OS::Heat::None")
        s.add(res)
        s.flush()
        s.add(SyncPoint(entity_id=res.id, traversal_id=f"t-{sid}", is_update=True, stack_id=sid))
        s.add(SyncInput(entity_id=res.id, traversal_id=f"t-{sid}", is_update=True,
                        pred_key=str(rid)))
        s.add(Snapshot(stack_id=sid, tenant=ctx.tenant_id, status="COMPLETE"))
        s.add(UserCreds(stack_id=sid, trust_id="x", trustor_user_id="u", tenant=ctx.tenant_id))


def _owned(sid: str) -> dict[str, int]:
    with read_session() as s:
        st = s.get(Stack, sid)
        tmpl = st.raw_template_id if st is not None else None

        def count(model, col) -> int:
            return int(s.execute(select(func.count()).select_from(model).where(col == sid))
                       .scalar() or 0)
        return {"stack": int(st is not None), "resources": count(Resource, Resource.stack_id),
                "events": count(Event, Event.stack_id),
                "sync_points": count(SyncPoint, SyncPoint.stack_id),
                "snapshots": count(Snapshot, Snapshot.stack_id),
                "user_creds": count(UserCreds, UserCreds.stack_id),
                "template": int(tmpl is not None and s.get(RawTemplate, tmpl) is not None)}


def _inputs(sids: list[str]) -> int:
    """Sync inputs of the stacks' traversals."""
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(SyncInput).where(
            SyncInput.traversal_id.in_(select(SyncPoint.traversal_id).where(
                SyncPoint.stack_id.in_(sids))))).scalar() or 0)


def _all_owned(sid: str) -> bool:
    return all(_owned(sid).values())


def _raw_template(sid: str) -> int:
    with read_session() as s:
        return s.get(Stack, sid).raw_template_id


def test_purge_removes_exactly_the_stacks_deleted_before_the_age(db):
    old = _stack(P1, "old", deleted_ago=dt.timedelta(days=2))
    recent = _stack(P1, "recent", deleted_ago=dt.timedelta(hours=1))
    live = _stack(P1, "live")
    other = _stack(P2, "other", deleted_ago=dt.timedelta(days=3))
    # a live stack that rolls back to the old stack's template keeps that template
    shared_tmpl = _raw_template(old)
    with session() as s:
        s.execute(update(Stack).where(Stack.id == live).values(prev_raw_template_id=shared_tmpl))
    kept_inputs = _inputs([recent, live, other])

    removed = purge.purge_deleted(1, "days", project_id="p1")

    assert _owned(old) == {"stack": 0, "resources": 0, "events": 0, "sync_points": 0,
                           "snapshots": 0, "user_creds": 0, "template": 0}
    assert removed["stacks"] == 1 and removed["snapshots"] == 1 and removed["user_creds"] == 1
    assert removed["sync_points"] >= 1 and removed["sync_inputs"] >= 1
    assert _inputs([old]) == 0 and _inputs([recent, live, other]) == kept_inputs
    assert removed["raw_templates"] == 0  # still the live stack's previous template
    with read_session() as s:
        assert s.get(RawTemplate, shared_tmpl) is not None
    for kept in (recent, live, other):  # too recent, not deleted, another project
        assert _all_owned(kept), _owned(kept)

    removed = purge.purge_deleted(30, "minutes", batch_size=1)  # every project, one a batch
    assert removed["stacks"] == 2
    assert _owned(recent)["stack"] == _owned(other)["stack"] == 0
    assert _owned(recent)["events"] == _owned(other)["events"] == 0
    assert removed["raw_templates"] == 2
    assert _all_owned(live), _owned(live)
    with read_session() as s:
        assert s.get(RawTemplate, shared_tmpl) is not None
    assert purge.purge_deleted(0, "seconds")["stacks"] == 0  # nothing deleted is left


@pytest.mark.parametrize("args, message", [
    (("x", "days"), "age should be an integer"),
    ((-1, "days"), "age should be a positive integer"),
    ((1, "weeks"), "granularity should be days, hours, minutes, or seconds"),
])
def test_bad_arguments_are_refused_and_nothing_is_removed(db, args, message):
    old = _stack(P1, "old", deleted_ago=dt.timedelta(days=2))
    with pytest.raises(errors.BadRequest, match=message):
        purge.purge_deleted(*args)
    with pytest.raises(errors.BadRequest, match="batch_size should be an integer"):
        purge.purge_deleted(1, "days", batch_size="many")
    assert _all_owned(old)


def test_the_command_purges_and_reports_what_it_removed(db, monkeypatch):
    monkeypatch.setenv("STOKER_DATA_DIR", db.data_dir)
    monkeypatch.setenv("STOKER_DATABASE_URL", db.database_url)
    old = _stack(P1, "old", deleted_ago=dt.timedelta(hours=3))
    kept = _stack(P2, "kept", deleted_ago=dt.timedelta(hours=3))
    run = CliRunner().invoke(cli, ["db", "purge-deleted", "--age", "2", "--granularity", "hours",
                                   "--project", "p1"])
    assert run.exit_code == 0, run.output
    assert re.fullmatch(r"stacks 1, resources \d+, events [1-9]\d*, sync_points \d+, "
                        r"sync_inputs \d+, snapshots 1, user_creds 1, raw_templates 1\n",
                        run.output), run.output
    assert _owned(old)["stack"] == 0 and _all_owned(kept)
    bad = CliRunner().invoke(cli, ["db", "purge-deleted", "--age", "soon"])
    assert bad.exit_code == 2 and "age should be an integer" in bad.output


def _rows() -> int:
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(RawTemplate)).scalar() or 0)


def test_stacks_from_the_same_template_share_one_row(db):
    shared = none_stack(2)
    a, b = _stack(P1, "a", template=shared), _stack(P2, "b", template=shared)
    assert _raw_template(a) == _raw_template(b) and _rows() == 1
    c = _stack(P1, "c", template=none_stack(3))  # other content: a row of its own
    assert _raw_template(c) != _raw_template(a) and _rows() == 2


def test_purge_keeps_a_template_another_stack_still_uses(db):
    shared = none_stack(2)
    old = _stack(P1, "old", deleted_ago=dt.timedelta(days=2), template=shared)
    live = _stack(P2, "live", template=shared)
    tmpl = _raw_template(live)
    assert purge.purge_deleted(1, "days")["raw_templates"] == 0
    assert _owned(old)["stack"] == 0 and _all_owned(live)
    with read_session() as s:
        assert s.get(RawTemplate, tmpl) is not None
    stacks.delete_stack(P2, "live", live)
    assert final(P2, live).stack_status == "DELETE_COMPLETE"
    assert purge.purge_deleted(0, "seconds")["raw_templates"] == 1  # its last user gone
    assert _rows() == 0


def test_a_completed_update_drops_the_previous_template_unless_shared(db):
    first, second = none_stack(1), none_stack(2)
    a = _stack(P1, "a", template=first)
    other = _stack(P1, "other", template=first)  # keeps ``first`` referenced
    b = _stack(P1, "b", template=none_stack(3))
    old_b = _raw_template(b)
    for name, sid in (("a", a), ("b", b)):
        updates.update_stack(P1, name, sid, template=second)
        assert final(P1, sid).stack_status == "UPDATE_COMPLETE"
    with read_session() as s:
        rows = {sid: s.get(Stack, sid) for sid in (a, b, other)}
        assert rows[a].raw_template_id == rows[b].raw_template_id  # both on ``second`` now
        assert rows[a].prev_raw_template_id is None and rows[b].prev_raw_template_id is None
        assert s.get(RawTemplate, rows[other].raw_template_id) is not None  # still used
        assert s.get(RawTemplate, old_b) is None  # no rollback needs it
    assert _rows() == 2


def test_concurrent_creates_of_new_content_store_it_once_on_postgresql(pg_db):
    template = {**none_stack(1), "description": "stored once"}
    start = threading.Barrier(8)

    def create(i: int) -> str:
        start.wait()
        return stacks.create_stack(P1, stack_name=f"same{i}", template=template).id
    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(create, range(8)))
    for sid in made:
        assert final(P1, sid).stack_status == "CREATE_COMPLETE"
    assert len({_raw_template(sid) for sid in made}) == 1 and _rows() == 1
