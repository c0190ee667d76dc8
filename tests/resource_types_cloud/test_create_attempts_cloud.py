"""A create asks the cloud for an earlier attempt's object only when there may have been one.

DESIGN invariant 1: a redelivered or retried step must not make a second cloud object, so a
resource with Heat's physical name (unique to it) first looks that name up
(``CloudResource.adopt``). The step that holds the resource's first lock ever (its
compare-and-swap's ``atomic_key`` is 1, the row still INIT) is the first attempt: nothing can
have been made yet, and the lookup is skipped. Any later attempt took the lock again (a
redelivery takes it over from the dead engine, a retry after an error takes it afresh), so it
looks, and adopts."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from app.clients import status
from app.context import RequestContext
from app.convergence import check
from app.models import Resource, Stack, read_session
from app.services import stacks

CTX = RequestContext(tenant_id="admin")
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {
    "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}}


@pytest.fixture()
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds ``status.find_named`` was asked for (the adoption lookups by name)."""
    seen: list[str] = []
    real = status.find_named

    def spy(cloud: Any, kind: status.Kind, name: str) -> Any:
        seen.append(kind.one)
        return real(cloud, kind, name)
    monkeypatch.setattr(status, "find_named", spy)
    return seen


def _volumes(sandbox: Any, stack_name: str) -> list[str]:
    made = sandbox.admin("GET", "inventory")["objects"].get("volumes", [])
    return [v["name"] for v in made if str(v.get("name", "")).startswith(f"{stack_name}-vol-")]


def test_a_first_create_asks_for_no_earlier_attempt(db: Any, cloud_settings: Any, sandbox: Any,
                                                    lookups: list[str], no_leaks: None) -> None:
    st = stacks.create_stack(CTX, stack_name="first-try", template=TEMPLATE)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert lookups == [] and len(_volumes(sandbox, "first-try")) == 1
    stacks.delete_stack(CTX, st.name, st.id)


def test_a_step_retried_after_its_post_adopts_instead_of_making_a_second(
        db: Any, cloud_settings: Any, sandbox: Any, lookups: list[str], no_leaks: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = check.outcome._write
    calls: list[int] = []

    def fails_once(node: Any, outcome: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:     # the volume's POST went out; its result is never written
            raise RuntimeError("the worker's database connection dropped")
        return real_write(node, outcome)
    monkeypatch.setattr(check.outcome, "_write", fails_once)
    try:
        stacks.create_stack(CTX, stack_name="second-try", template=TEMPLATE)
    except RuntimeError:
        pass                     # the in-process engine runs the step in this call
    with read_session() as s:
        st = s.execute(select(Stack).where(Stack.name == "second-try")).scalar_one()
        rid = s.execute(select(Resource.id).where(Resource.stack_id == st.id)).scalar_one()
        sid, tid = st.id, st.current_traversal
    assert len(_volumes(sandbox, "second-try")) == 1 and lookups == []
    check.check_resource(sid, tid, rid, True)      # the task's retry
    got = stacks.get_by_id(CTX, sid)
    assert got.stack_status == "CREATE_COMPLETE", got.status_reason
    assert lookups == ["volume"]                   # it looked, found the first one, adopted it
    assert len(_volumes(sandbox, "second-try")) == 1
    stacks.delete_stack(CTX, got.name, got.id)
