"""Beat's app (``celery -A app.tasks.beat beat``): the workers' Celery configuration without
the engine. Beat sends its schedule's tasks by name, so its process imports no convergence,
model, service or resource-type module, and its schedule, routes, queues and broker are the
workers' (operator overrides included)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
#: what ``celery -A <name> beat`` does before its scheduler starts: find the app, load its
#: modules (Celery's ``init_loader``); then the engine modules imported and the configuration
PROBE = r'''
import json, sys
from celery.app.utils import find_app
app = find_app(sys.argv[1])
app.loader.init_worker()
app.finalize()
c = app.conf
heavy = sorted(m for m in sys.modules if m.startswith(
    ("app.convergence", "app.models", "app.services", "app.resource_types", "app.engine",
     "app.templates", "sqlalchemy")))
conf = {k: repr(v) for k, v in sorted(c.changes.items()) if k != "include"}
print(json.dumps({"heavy": heavy, "conf": conf, "include": list(c.include),
                  "schedule": {k: [v["task"], v["schedule"]] for k, v in c.beat_schedule.items()},
                  "route": app.amqp.router.route({}, "stoker.reconcile")["queue"].name,
                  "transport": c.broker_transport, "options": c.broker_transport_options}))
'''
#: an operator's module over the repository's: a purge schedule, a transport option, a route
OPS = ("from celeryconfig import *  # noqa\n"
       "beat_schedule = {**beat_schedule, 'purge': {'task': 'stoker.purge_deleted',"
       " 'schedule': 60.0}}\n"
       "broker_transport_options = {**broker_transport_options, 'max_connections': 7}\n"
       "task_routes = {**task_routes, 'stoker.reconcile': {'queue': 'stoker.poll'}}\n")


def _probe(name: str, cwd: Path, **env: str) -> dict:
    full = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    full.update(env, STOKER_DATA_DIR=str(cwd), STOKER_BROKER_URL="redis://127.0.0.1:6399/3",
                PYTHONPATH=os.pathsep.join([str(cwd), str(REPO)]))
    out = subprocess.run([sys.executable, "-c", PROBE, name], cwd=cwd, env=full,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_beat_imports_no_engine_module(tmp_path):
    beat = _probe("app.tasks.beat", tmp_path)
    assert beat["heavy"] == [] and beat["include"] == []
    assert beat["schedule"] == {"stoker-timeouts": ["stoker.check_timeouts", 5.0],
                                "stoker-reconcile": ["stoker.reconcile", 30.0]}


def test_beat_has_the_workers_configuration_with_the_operators_overrides(tmp_path):
    (tmp_path / "ops_celery.py").write_text(OPS)
    env = {"STOKER_CELERY_CONFIG": "ops_celery", "STOKER_RECONCILE_INTERVAL": "7"}
    beat, workers = _probe("app.tasks.beat", tmp_path, **env), _probe("app.tasks", tmp_path, **env)
    assert workers["include"] == ["app.tasks.worker"]   # a worker's engine: loaded at its start
    assert "app.services.engine" in workers["heavy"]
    assert beat["conf"] == workers["conf"]               # every setting, the schedule included
    assert beat["schedule"] == workers["schedule"] == {
        "stoker-timeouts": ["stoker.check_timeouts", 5.0],
        "stoker-reconcile": ["stoker.reconcile", 7.0], "purge": ["stoker.purge_deleted", 60.0]}
    assert beat["route"] == workers["route"] == "stoker.poll"
    assert beat["transport"] == workers["transport"] == "stoker-redis"
    assert beat["options"] == workers["options"]
    assert beat["options"]["max_connections"] == 7 and beat["options"]["priority_steps"] == [0]
