"""Redis (the broker) faults, with the production topology (tests/storms/conftest.py).

A create, update or delete that arrives while Redis is down is accepted (201, 202, 204: the
database holds the operation) and driven once the broker is back; Redis restarted empty or
flushed under a create loses nothing (the database is the truth). Each ends within
:data:`RECOVERY` s of the broker's return, every resource created once; the work accepted
while it was down starts within :data:`RESUMED` s of its return (each worker's consumer
reconnects, and the in-flight work is sent again, within a quarter second of it)."""
from __future__ import annotations

import time

import pytest
import requests

from tests.storms.checks import assert_created_once, chains
from tests.storms.conftest import Storm

pytestmark = pytest.mark.integration
#: s from the broker's return to the stacks' end (the chains' remaining work included)
RECOVERY = 10.0
#: s from the broker's return to the first step of the work accepted while it was down
RESUMED = 3.0
HEADERS = {"X-Auth-Token": "x"}


def test_operations_arriving_while_the_broker_is_down_are_accepted_and_driven(storm: Storm):
    small = chains(width=1, depth=2, wait=0.0)
    kept = storm.create("kept", small).json()["stack"]["id"]
    gone = storm.create("gone", small).json()["stack"]["id"]
    storm.settled(kept, timeout=30)
    storm.settled(gone, timeout=30)
    storm.redis.stop()
    down = time.monotonic()
    template = chains(width=2, depth=3, wait=0.2)
    created = storm.create("while-down", template)
    bigger = chains(width=2, depth=2, wait=0.0)
    updated = requests.put(storm.api(storm.path(kept)), json={"template": bigger},
                           headers=HEADERS, timeout=30)
    deleted = requests.delete(storm.api(storm.path(gone)), headers=HEADERS, timeout=30)
    answers = (created.status_code, updated.status_code, deleted.status_code)
    print(f"while the broker was down: create {answers[0]}, update {answers[1]}, "
          f"delete {answers[2]} in {time.monotonic() - down:.1f} s")
    assert answers == (201, 202, 204), (created.text, updated.text, deleted.text)
    sid = created.json()["stack"]["id"]
    assert storm.stack(sid)["stack_status"] == "CREATE_IN_PROGRESS"
    again = storm.create("while-down", template)
    assert again.status_code == 409  # it was accepted: a retry is a duplicate
    time.sleep(2)
    storm.redis.start()
    back = time.monotonic()
    while all(r["resource_status"] == "INIT_COMPLETE" for r in storm.get(
            storm.path(sid) + "/resources").json()["resources"]):
        assert time.monotonic() - back < 30, "nothing started after the broker's return"
        time.sleep(0.05)
    resumed = time.monotonic() - back
    _, ended = storm.settled(sid, timeout=40)
    st, kept_ended = storm.settled(kept, timeout=40)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    deadline = back + 40
    while (resp := storm.get(storm.path(gone))).status_code == 200 \
            and resp.json()["stack"]["stack_status"] != "DELETE_COMPLETE":
        assert time.monotonic() < deadline, resp.json()["stack"]["stack_status"]
        time.sleep(0.2)
    gone_ended = time.monotonic()
    print(f"after the broker's return: the create's first step after {resumed:.2f} s; create "
          f"ended in {ended - back:.1f} s, update in {kept_ended - back:.1f} s, delete in "
          f"{gone_ended - back:.1f} s")
    assert resumed <= RESUMED
    assert max(ended, kept_ended, gone_ended) - back <= RECOVERY
    assert_created_once(storm, sid, template)
    names = {r["resource_name"] for r in storm.get(storm.path(kept) + "/resources")
             .json()["resources"]}
    assert names == set(bigger["resources"])


def _check_create_through(storm: Storm, name: str, fault: str, width: int = 3, depth: int = 6) -> None:
    template = chains(width=width, depth=depth, wait=0.3)
    resp = storm.create(name, template)
    assert resp.status_code == 201, resp.text
    sid = resp.json()["stack"]["id"]
    with storm.probing(storm.path(sid)):
        time.sleep(1.0)
        start = time.monotonic()
        if fault == "restart":  # no persistence: it comes back empty
            storm.redis.stop()
            time.sleep(2)
            storm.redis.start()
        else:
            storm.redis.flushall()
        back = time.monotonic()
        _, ended = storm.settled(sid, timeout=45)
    print(f"Redis {fault} ({back - start:.1f} s): stack ended {ended - back:.1f} s after")
    assert storm.probe.server_errors() == []  # the API reads the database only
    assert ended - back <= RECOVERY
    assert_created_once(storm, sid, template)


def test_redis_restarted_empty_mid_create_loses_nothing(storm: Storm):
    _check_create_through(storm, "redis-restart", "restart")


@pytest.mark.parametrize("storm", [{"concurrency": 2}], indirect=True)
def test_redis_flushed_mid_create_loses_nothing(storm: Storm):
    # more steps at once than two workers of 2 greenlets reserve (4 each): some wait in Redis
    _check_create_through(storm, "redis-flush", "flush", width=24, depth=3)
