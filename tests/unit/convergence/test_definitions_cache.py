"""The per-process cache of stack definitions: concurrent misses of one stack load it once; the
resources it holds are bounded, idle definitions dropped first."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from app.convergence import runtime
from app.convergence.store import definitions


class _Session:
    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute(self, statement, params):  # type: ignore[no-untyped-def]
        row = SimpleNamespace(template={}, files={}, environment={}, parameters={},
                              nested_info=None)
        return SimpleNamespace(one=lambda: row)


@pytest.fixture()
def slow_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def of_raw(raw, params, ident, nested_info, s):  # type: ignore[no-untyped-def]
        calls.append(ident)
        time.sleep(0.05)  # long enough for every thread to miss
        if len(calls) == 1 and ident == "boom":
            raise RuntimeError("first load fails")
        return SimpleNamespace(ident=ident, requires={})

    monkeypatch.setattr(definitions, "read_session", _Session)
    monkeypatch.setattr(definitions, "of_raw", of_raw)
    monkeypatch.setattr(definitions, "identity", lambda name, sid, tenant: name)
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    # the process's composition: its environment_read hook sees every read environment
    monkeypatch.setattr(runtime, "_current", runtime.Runtime(
        dispatcher=None, child_stacks=None, scaling_adjuster=None,  # type: ignore[arg-type]
        group_completed=lambda *a: None, child_unclaimed=lambda *a: None,
        environment_read=lambda sid, name, tenant, env: READ.append((sid, name, env))))
    READ.clear()
    return calls


#: ``(stack id, stack name, environment)`` handed to the runtime's ``environment_read``
READ: list[tuple[str, str, object]] = []


def _load_in_threads(name: str, n: int) -> list[object]:
    got: list[object] = []

    def run() -> None:
        try:
            got.append(definitions.load("stack-1", 7, name, "t"))
        except RuntimeError as exc:
            got.append(exc)

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return got


def test_concurrent_misses_of_one_stack_load_it_once(slow_loads: list[str]):
    got = _load_in_threads("s", 6)
    assert slow_loads == ["s"]
    assert len(got) == 6 and all(g is got[0] for g in got)
    assert READ == [("stack-1", "s", {})]  # the one read's environment, handed on once
    assert not definitions._loading


def test_a_failed_load_lets_the_next_waiter_load(slow_loads: list[str]):
    got = _load_in_threads("boom", 3)
    assert slow_loads == ["boom", "boom"]  # the first raised; the next loaded; the last hit
    assert sum(isinstance(g, RuntimeError) for g in got) == 1
    assert not definitions._loading


def _definition(resources: int) -> definitions.Loaded:
    return SimpleNamespace(requires=dict.fromkeys(range(resources)))  # type: ignore[return-value]


def test_a_large_definition_stays_while_used_and_goes_once_idle(monkeypatch: pytest.MonkeyPatch):
    now = [1000.0]
    monkeypatch.setattr(definitions.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    monkeypatch.setattr(definitions, "_used", {})
    monkeypatch.setattr(definitions, "_swept", [0.0])
    big = _definition(definitions.MAX_CACHED_RESOURCES * 5)
    definitions.seed(("group-child", 1), big)
    definitions.seed(("parent", 2), _definition(1))   # over the budget, but the child is in use
    assert definitions._cached(("group-child", 1)) is big
    now[0] += definitions.IDLE_SECONDS / 2
    assert definitions._cached(("group-child", 1)) is big
    now[0] += definitions.IDLE_SECONDS + 1     # the group ended: nothing used it since
    definitions.seed(("other", 3), _definition(1))
    assert definitions._cached(("group-child", 1)) is None
    assert definitions._cached(("parent", 2)) is not None   # small ones stay (entries bound)
    assert definitions._cached(("other", 3)) is not None


def test_an_idle_large_definition_goes_at_the_next_use_of_another(
        monkeypatch: pytest.MonkeyPatch):
    now = [1000.0]
    monkeypatch.setattr(definitions.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    monkeypatch.setattr(definitions, "_used", {})
    monkeypatch.setattr(definitions, "_swept", [0.0])
    definitions.seed(("group-child", 1), _definition(definitions.MAX_CACHED_RESOURCES + 1))
    definitions.seed(("parent", 2), _definition(1))
    now[0] += definitions.IDLE_SECONDS + 1
    assert definitions._cached(("parent", 2)) is not None
    assert ("group-child", 1) not in definitions._cache


def test_the_periodic_sweep_drops_an_idle_large_definition(monkeypatch: pytest.MonkeyPatch):
    now = [1000.0]
    monkeypatch.setattr(definitions.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    monkeypatch.setattr(definitions, "_used", {})
    monkeypatch.setattr(definitions, "_swept", [0.0])
    definitions.seed(("group-child", 1), _definition(definitions.MAX_CACHED_RESOURCES + 1))
    definitions.drop_idle()
    assert ("group-child", 1) in definitions._cache     # still in use
    now[0] += definitions.IDLE_SECONDS
    definitions.drop_idle()
    assert not definitions._cache


def test_dropping_a_large_definition_gives_the_heap_back_once(monkeypatch: pytest.MonkeyPatch):
    trims: list[int] = []
    monkeypatch.setattr(definitions, "_malloc_trim", lambda: trims.append)
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    monkeypatch.setattr(definitions, "_used", {})
    definitions.seed(("small", 1), _definition(definitions.TRIM_RESOURCES - 1))
    definitions.seed(("group-child", 2), _definition(definitions.TRIM_RESOURCES))
    definitions.forget("small")
    assert trims == []                   # a small definition's pages are not worth a trim
    definitions.forget("group-child")
    assert trims == [0] and not definitions._cache


def test_a_delete_step_drops_its_stacks_definition(monkeypatch: pytest.MonkeyPatch):
    from app.convergence.steps import run
    from app.engine.states import Action
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    monkeypatch.setattr(definitions, "_used", {})
    definitions.seed(("deleted", 1), _definition(3))
    definitions.seed(("other", 2), _definition(3))
    monkeypatch.setattr(run.delete, "step", lambda node: "deleting")
    node = SimpleNamespace(stack=SimpleNamespace(id="deleted"), is_update=False)
    assert run._step(node, Action.DELETE) == "deleting"  # type: ignore[arg-type]
    assert list(definitions._cache) == [("other", 2)]


def test_a_stored_plan_is_not_kept_with_the_cached_definition():
    loaded = definitions.Loaded(definition=None, requires={"a": frozenset(), "b": frozenset("a")})
    first = loaded.forward_plan
    assert loaded.forward_plan is first       # computed once, before the transaction
    loaded.drop_plan()
    assert "forward_plan" not in vars(loaded)
    assert loaded.forward_plan == first       # read again: the same plan, computed again
    assert loaded.required_by == {"a": {"b"}, "b": set()}
