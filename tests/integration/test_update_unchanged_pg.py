"""On PostgreSQL, an UPDATE that settles an unchanged resource at its start
(:mod:`app.convergence.unchanged`) and a step of the traversal it supersedes, caught between
reading the stack and taking the resource's lock: the step must not act on the row the new
traversal will never visit (the settled row's ``atomic_key`` moved on; the step takes the lock
only at the key it read with the stack)."""
from __future__ import annotations

import threading

from app import convergence
from app.context import RequestContext
from app.convergence.store import lease, locks
from app.services import stacks, updates
from tests.fixtures.stacks import events, hot, knob, rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.conftest import Recorder

CTX = RequestContext(tenant_id="race")


def test_a_superseded_step_caught_mid_read_leaves_a_settled_row_alone(pg_db, monkeypatch):
    rec = Recorder()
    use_dispatcher(rec)
    st = stacks.create_stack(CTX, stack_name="race", template=hot({"x": knob("one")}))
    rec.run_all()
    x = rows(st.id)["x"]
    # U1 changes x; its step is about to run when U2 (x back to what it is) supersedes it
    updates.update_stack(CTX, st.name, st.id, template=hot({"x": knob("two")}))
    (u1_step,) = rec.queue
    rec.queue.clear()
    lease.ensure_heartbeat()
    read, go = threading.Event(), threading.Event()
    real_engine_id = locks.engine_id
    stepper = {}

    def paused_engine_id() -> str:  # called between the step's read and its lock
        if threading.current_thread() is stepper.get("t") and not read.is_set():
            read.set()
            assert go.wait(30)
        return real_engine_id()

    monkeypatch.setattr(locks, "engine_id", paused_engine_id)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            convergence.check_resource(*u1_step)
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=run)
    stepper["t"] = t
    t.start()
    assert read.wait(30)
    updates.update_stack(CTX, st.name, st.id, template=hot({"x": knob("one")}))
    go.set()
    t.join(30)
    assert not t.is_alive() and errors == []
    after = rows(st.id)["x"]
    assert after.properties_data == x.properties_data  # U1's step did not update it
    assert after.engine_id is None and after.action == x.action
    assert not [e for e in events(st.id) if e.resource_name == "x" and e.action == "UPDATE"]
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert rows(st.id)["x"].properties_data["value"] == "one"
