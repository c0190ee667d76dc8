"""Purging deleted stacks while the service runs (real workers, PostgreSQL, Redis): stacks being
created and deleted meanwhile finish as they would have, and the purge removes exactly the
stacks deleted before the age, run by hand or as the ``stoker.purge_deleted`` task on a worker."""
from __future__ import annotations

import datetime as dt
import threading

import pytest
from sqlalchemy import func, select, update

from app.context import RequestContext
from app.models import Event, Resource, Stack, read_session, session, utcnow
from app.services import purge, stacks
from app.tasks import celery_app
from tests.fixtures.stacks import final, none_stack, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="purge")


def _created(name: str, n: int = 3) -> str:
    return stacks.create_stack(CTX, stack_name=name, template=none_stack(n)).id


def _deleted(name: str, ago: dt.timedelta) -> str:
    sid = _created(name)
    assert final(CTX, sid, 120).stack_status == "CREATE_COMPLETE"
    stacks.delete_stack(CTX, name, sid)
    assert final(CTX, sid, 120).stack_status == "DELETE_COMPLETE"
    with session() as s:
        s.execute(update(Stack).where(Stack.id == sid).values(deleted_at=utcnow() - ago))
    return sid


def _rows(sid: str) -> tuple[int, int, int]:
    with read_session() as s:
        return (int(s.get(Stack, sid) is not None),
                int(s.execute(select(func.count()).select_from(Resource)
                              .where(Resource.stack_id == sid)).scalar() or 0),
                int(s.execute(select(func.count()).select_from(Event)
                              .where(Event.stack_id == sid)).scalar() or 0))


def test_purge_while_stacks_are_created_and_deleted(workers):
    old = [_deleted(f"old{i}", dt.timedelta(days=2)) for i in range(5)]
    recent = _deleted("recent", dt.timedelta(minutes=5))
    live = _created("live")
    assert final(CTX, live, 120).stack_status == "CREATE_COMPLETE"
    # work in flight while the purge runs: creates, and a delete of a live stack
    busy = [_created(f"busy{i}", 20) for i in range(3)]
    stacks.delete_stack(CTX, "live", live)
    done = threading.Event()
    removed: dict[str, int] = {}

    def run() -> None:
        removed.update(purge.purge_deleted(1, "hours", batch_size=2))
        done.set()
    t = threading.Thread(target=run)
    t.start()
    t.join(120)
    assert done.is_set()

    assert removed["stacks"] == 5
    assert all(_rows(sid) == (0, 0, 0) for sid in old)
    for sid in busy:
        st = final(CTX, sid, 180)
        assert st.stack_status == "CREATE_COMPLETE", st.status_reason
        assert _rows(sid)[1] == 20
    assert final(CTX, live, 120).stack_status == "DELETE_COMPLETE"
    assert _rows(recent)[0] == 1 and _rows(recent)[2] > 0  # deleted 5 minutes ago: kept
    assert _rows(live)[0] == 1                             # deleted just now: kept

    # the task a beat schedule sends, run by a worker: minutes granularity takes "recent"
    celery_app.send_task("stoker.purge_deleted",
                         kwargs={"age": 1, "granularity": "minutes", "project_id": "purge"})
    wait_for(lambda: _rows(recent) == (0, 0, 0), 60, 0.2, "the worker's purge")
    assert all(_rows(sid)[0] == 1 for sid in busy)
