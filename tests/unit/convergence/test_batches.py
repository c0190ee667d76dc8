"""How a wide fan-out's ready nodes are split into messages (:func:`dispatch.batches`): one node
a message while the fleet could run them all at once twice over, else even batches of at most
``largest``, every node exactly once and in order."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.convergence.dispatch import batches


def _nodes(n: int) -> list[tuple[int, bool]]:
    return [(i, i % 2 == 0) for i in range(n)]


def test_no_wider_than_twice_the_fleet_is_one_node_a_message():
    assert batches(_nodes(16), parallelism=8, largest=50) == [[n] for n in _nodes(16)]


def test_ten_thousand_leaves_on_eight_threads_are_two_hundred_batches_of_fifty():
    out = batches(_nodes(10_000), parallelism=8, largest=50)
    assert len(out) == 200 and {len(b) for b in out} == {50}


def test_two_hundred_leaves_on_eight_threads_keep_every_thread_busy():
    out = batches(_nodes(200), parallelism=8, largest=50)
    assert len(out) >= 16 and max(map(len, out)) - min(map(len, out)) <= 1


def test_largest_one_never_batches():
    assert batches(_nodes(100), parallelism=1, largest=1) == [[n] for n in _nodes(100)]


@given(st.integers(0, 3000), st.integers(1, 200), st.integers(1, 100))
def test_every_node_once_in_order_and_sizes_bounded(n, parallelism, largest):
    out = batches(_nodes(n), parallelism, largest)
    assert [x for b in out for x in b] == _nodes(n)
    assert all(1 <= len(b) <= max(1, largest) for b in out)
    if n > 2 * parallelism and largest > 1:
        assert len(out) >= min(n, 2 * parallelism)


def test_a_step_that_raises_is_enqueued_alone_and_the_others_still_run(settings, monkeypatch):
    from app.convergence import check
    from tests.fixtures.wiring import use_dispatcher

    ran: list[int] = []
    requeued: list[tuple] = []

    def step(stack_id, traversal_id, resource_id, is_update):  # type: ignore[no-untyped-def]
        ran.append(resource_id)
        if resource_id == 2:
            raise ConnectionError("database went away")

    class Recorder:
        def check_resource(self, *args, countdown=0.0):  # type: ignore[no-untyped-def]
            requeued.append((*args, countdown))

    monkeypatch.setattr(check, "check_resource", step)
    monkeypatch.setattr(check, "_run_locked", lambda stack_id, traversal_id, nodes: nodes)
    use_dispatcher(Recorder())  # type: ignore[type-var]
    check.check_resources("s", "t", [(1, True), (2, True), (3, True)])
    assert ran == [1, 2, 3]
    assert requeued == [("s", "t", 2, True, check.LOCK_RETRY_SECONDS)]


def test_a_saturated_fleet_takes_a_small_fan_out_in_one_message():
    # a group's member stack fires its 22 leaves while the queue already holds work for
    # every thread: one message of 22, not 22 messages
    assert batches(_nodes(22), parallelism=8, largest=50, backlog=8) == [_nodes(22)]
    assert len(batches(_nodes(120), parallelism=8, largest=50, backlog=100)) == 3
    assert batches(_nodes(16), parallelism=8, largest=50, backlog=7) == [[n] for n in _nodes(16)]


@given(st.integers(0, 3000), st.integers(1, 200), st.integers(1, 100), st.integers(0, 500))
def test_with_a_backlog_every_node_once_in_order(n, parallelism, largest, backlog):
    out = batches(_nodes(n), parallelism, largest, backlog)
    assert [x for b in out for x in b] == _nodes(n)
    assert all(1 <= len(b) <= max(1, largest) for b in out)
