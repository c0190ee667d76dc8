"""The Celery app's configuration comes from ``celeryconfig.py`` at the repository root (or the
module ``STOKER_CELERY_CONFIG`` names): a value changed there takes effect in the Celery app of
every process that builds it (``celery -A app.tasks ...``, ``stoker up``'s children)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import config, tasks

REPO = Path(__file__).resolve().parents[3]
SHOW = ("import json; from app.tasks import celery_app as a; c = a.conf; "
        "print(json.dumps({'prefetch': c.worker_prefetch_multiplier, 'soft': c.task_soft_time_limit,"
        " 'acks_late': c.task_acks_late, 'events': c.worker_send_task_events,"
        " 'visibility': c.broker_transport_options['visibility_timeout'],"
        " 'steps': c.broker_transport_options['priority_steps'],"
        " 'transport': c.broker_transport, 'broker': c.broker_url,"
        " 'poll_queue': a.amqp.router.route({}, 'stoker.poll_resource')['queue'].name}))")


def _celery_conf(cwd: Path, **env: str) -> dict:
    """The Celery settings a fresh process (as a worker or `stoker up` child) builds in ``cwd``."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    full.update(env, PYTHONPATH=os.pathsep.join([str(cwd), str(REPO)]))
    out = subprocess.run([sys.executable, "-c", SHOW], cwd=cwd, env=full, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_repositorys_celeryconfig_is_what_the_app_uses(tmp_path):
    got = _celery_conf(tmp_path, STOKER_DATA_DIR=str(tmp_path))
    assert got["acks_late"] is True and got["events"] is False   # Flower turns them on
    assert got["prefetch"] == 4 and got["soft"] == 300
    assert got["poll_queue"] == "stoker.poll"
    assert got["steps"] == [0]                      # the in-flight transport's one key per queue
    assert got["broker"].startswith("stoker-redis+socket://")


def test_a_value_changed_in_celeryconfig_takes_effect(tmp_path):
    text = (REPO / "celeryconfig.py").read_text()
    assert "worker_prefetch_multiplier = 4" in text and "task_soft_time_limit = 300" in text
    (tmp_path / "celeryconfig.py").write_text(
        text.replace("worker_prefetch_multiplier = 4", "worker_prefetch_multiplier = 1")
            .replace("task_soft_time_limit = 300", "task_soft_time_limit = 42"))
    got = _celery_conf(tmp_path, STOKER_DATA_DIR=str(tmp_path))
    assert got["prefetch"] == 1 and got["soft"] == 42


def test_stoker_settings_flow_through_celeryconfig(tmp_path):
    got = _celery_conf(tmp_path, STOKER_BROKER_URL="redis://127.0.0.1:6379/7",
                       STOKER_VISIBILITY_TIMEOUT="17")
    assert got["broker"] == "redis://127.0.0.1:6379/7" and got["transport"] == "stoker-redis"
    assert got["visibility"] == 17


def test_another_module_named_by_stoker_celery_config(tmp_path):
    (tmp_path / "ops_celery.py").write_text(
        "from celeryconfig import *  # noqa\nworker_prefetch_multiplier = 2\n"
        "broker_transport_options = {**broker_transport_options, 'priority_steps': [0, 5]}\n")
    got = _celery_conf(tmp_path, STOKER_CELERY_CONFIG="ops_celery", STOKER_DATA_DIR=str(tmp_path))
    assert got["prefetch"] == 2 and got["soft"] == 300
    assert got["steps"] == [0]                      # Stoker keeps what its transport needs


def test_a_missing_settings_module_is_a_clear_error():
    with pytest.raises(ImportError, match="no_such_module.*STOKER_CELERY_CONFIG"):
        tasks.make_celery(config.load({}, celery_config="no_such_module"))


def test_routes_put_steps_polls_and_maintenance_on_their_own_queues():
    route = tasks.celery_app.amqp.router.route
    assert {n: route({}, n)["queue"].name for n in (
        "stoker.check_resource", "stoker.poll_resource", "stoker.check_timeouts",
        "stoker.reconcile")} == {
        "stoker.check_resource": "stoker.engine", "stoker.poll_resource": "stoker.poll",
        "stoker.check_timeouts": "stoker.maintenance",
        "stoker.reconcile": "stoker.maintenance"}
    # each queue its own exchange and key: a message is delivered to one queue only
    keys = {q.name: (q.exchange.name, q.routing_key) for q in tasks.celery_app.conf.task_queues}
    assert len(set(keys.values())) == 3


def test_defaults_are_late_acks_and_the_in_flight_transport():
    app = tasks.make_celery()
    assert app.conf.task_acks_late is True and app.conf.task_reject_on_worker_lost is True
    options = app.conf.broker_transport_options
    assert options["priority_steps"] == [0]
    # kombu's default (300 s) stops restores for five minutes after a kill mid-restore
    assert options["unacked_mutex_expire"] <= 30


def test_task_events_follow_stoker_task_events(tmp_path):
    got = _celery_conf(tmp_path, STOKER_DATA_DIR=str(tmp_path), STOKER_TASK_EVENTS="1")
    assert got["events"] is True


def test_one_result_backend_serves_every_thread():
    """Under the gevent pool each greenlet is a thread to Celery's thread-locals: a backend a
    thread made every task build a RedisBackend of its own."""
    import threading
    app = tasks.make_celery()
    seen: list = []
    t = threading.Thread(target=lambda: seen.append(app.backend))
    t.start()
    t.join()
    assert seen and seen[0] is app.backend
