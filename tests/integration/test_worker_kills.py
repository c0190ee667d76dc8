"""Workers SIGKILLed again and again, with no beat (so no reconciler): every task message must be
redelivered by the broker itself, and the stack must still complete with nothing created twice.

Before app.tasks.transport, a worker killed between fetching a message (BRPOP) and recording it
in ``unacked`` lost that message for good; only the beat reconciler re-drove its node. Busy
workers are in that window often enough that a dozen kills lose a message more often than not.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select

from app import config
from app.context import RequestContext
from app.models import Resource, read_session
from app.services import stacks
from app.tasks import transport
from tests.fixtures.stacks import events, rows
from tests.integration.conftest import Workers, worker_env

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest-kills")
KILLS = 12


def chains(width: int, depth: int, wait: float) -> dict[str, Any]:
    """``width`` independent chains of ``depth`` TestResources (each polled for ``wait`` s),
    each passing its value on, so that a resource created twice would show."""
    res: dict[str, Any] = {}
    for i in range(width):
        for k in range(depth):
            value: Any = f"c{i}" if k == 0 else {"list_join": ["-", [
                {"get_attr": [f"c{i}_{k - 1}", "output"]}, str(k)]]}
            res[f"c{i}_{k}"] = {"type": "OS::Heat::TestResource",
                                "properties": {"value": value, "wait_secs": wait}}
    return {"heat_template_version": "2018-08-31", "resources": res}


@pytest.fixture()
def fleet(engine_settings: config.Settings, tmp_path: Path) -> Iterator[Workers]:
    """Two workers, no beat."""
    w = Workers(worker_env(engine_settings), tmp_path)
    w.start(2)
    yield w
    w.stop()


def test_repeated_sigkills_without_beat_lose_no_task(fleet: Workers, redis_url: str):
    rng = random.Random(7)
    tmpl = chains(width=40, depth=8, wait=0.2)
    st = stacks.create_stack(CTX, stack_name="kills-no-beat", template=tmpl)
    started = {i: 0.0 for i in range(len(fleet.procs))}  # spawn times; these two answered
    kills = 0
    while kills < KILLS and stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS":
        started[len(fleet.procs)] = time.time()
        fleet.spawn()  # the replacement boots while the others work
        time.sleep(rng.uniform(0.8, 1.6))
        while not (ready := [i for i, t in started.items() if time.time() - t > 3]):
            time.sleep(0.2)  # a worker is consuming 3 s after its start
        victim = rng.choice(ready)
        del started[victim]
        fleet.kill(victim)
        kills += 1
    assert kills >= 6, f"the stack finished after {kills} kills: make it longer"
    deadline = time.time() + 60  # visibility timeout 5 s, stale locks 4 s, mutex 5 s: ample
    while stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS" and time.time() < deadline:
        time.sleep(0.2)
    final = stacks.get_by_id(CTX, st.id)
    r = redis.Redis.from_url(redis_url)
    with read_session() as s:
        done = s.execute(select(Resource.name).where(
            Resource.stack_id == st.id, Resource.status == "COMPLETE")).scalars().all()
    assert final.stack_status == "CREATE_COMPLETE", (
        f"{final.stack_status} after {kills} kills: {len(done)}/{len(tmpl['resources'])} created;"
        f" queue {r.llen('celery')}, unacked {r.hlen('unacked')}, in flight "
        f"{[r.llen(k) for k in r.keys(transport.INFLIGHT_PREFIX + '*')]}")
    res = rows(st.id)
    creates = Counter(e.resource_name for e in events(st.id) if e.action == "CREATE"
                      and e.status == "COMPLETE" and e.resource_name != st.name)
    assert set(creates) == set(res) and set(creates.values()) == {1}
    for name, x in res.items():  # every value resolved from its predecessor's final value
        i, k = (int(n) for n in name[1:].split("_"))
        assert x.properties_data["value"] == "-".join([f"c{i}", *map(str, range(1, k + 1))])
    print(f"{kills} workers SIGKILLed; every task was redelivered by the broker alone")
