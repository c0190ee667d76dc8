"""What operators see, with real processes on the test's PostgreSQL and Redis: Flower (started
as ``stoker up --flower`` starts it) lists the engine's tasks through its HTTP API with readable
arguments and the three queues; its API is open on loopback when no authentication is
configured and asks for it when basic auth is; a worker's JSON log lines carry the request id of
the API call that started the work, with the stack, traversal and resource."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import requests

from app.tasks import flower
from tests.fixtures.procs import free_port as _free_port
from tests.fixtures.procs import stop_groups
from tests.fixtures.stacks import wait_for
from tests.integration.conftest import REPO, worker_env

pytestmark = pytest.mark.integration
TEMPLATE = {"heat_template_version": "2018-08-31",
            "resources": {"server": {"type": "OS::Heat::TestResource",
                                     "properties": {"value": "x", "wait_secs": 0.3}},
                          "volume": {"type": "OS::Heat::None", "depends_on": ["server"]}}}


class Procs:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir, self.procs = log_dir, []

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> Path:
        log = self.log_dir / f"{name}.log"
        out = open(log, "wb")  # noqa: SIM115 (the child owns it)
        self.procs.append(subprocess.Popen(argv, cwd=REPO, env=env, stdout=out,
                                           stderr=subprocess.STDOUT, start_new_session=True))
        return log

    def stop(self) -> None:
        stop_groups(self.procs)


@pytest.fixture()
def procs(tmp_path):
    p = Procs(tmp_path)
    yield p
    p.stop()


def _flower(procs: Procs, settings, env: dict[str, str], name: str, **changes) -> str:
    port = _free_port()
    argv, extra = flower.command(settings.replace(flower_port=port, **changes))
    procs.start(name, argv, {**env, **extra})
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return requests.get(f"{url}/healthcheck", timeout=1).status_code == 200
        except requests.RequestException:
            return False
    wait_for(up, 60, 0.2, "flower to listen")
    return url


def test_flower_lists_readable_tasks_and_worker_logs_carry_the_request_id(engine_settings,
                                                                          procs, tmp_path):
    from app.cli.wsgi import create_app
    # task events on from the first task (off by default: Flower alone turns the workers' on
    # only at its first enable_events, 5 s after it starts, and this stack may finish first)
    env = {**worker_env(engine_settings), "STOKER_LOG_FORMAT": "json", "STOKER_TASK_EVENTS": "1"}
    # Flower first, its worker later: the worker list fills without ?refresh=1 once it is up
    url = _flower(procs, engine_settings, env, "flower")
    assert requests.get(f"{url}/api/workers", timeout=10).json() == {}
    name = f"ops-{uuid.uuid4().hex[:6]}"
    worker_log = procs.start("worker", [sys.executable, "-m", "celery", "-A", "app.tasks", "worker",
                                        "--pool", "threads", "-c", "4", "-l", "INFO",
                                        "-n", f"{name}@%h",
                                        "--without-gossip", "--without-mingle"], env)
    workers = wait_for(lambda: requests.get(f"{url}/api/workers", timeout=10).json(), 60, 0.5,
                       "flower to list the worker")
    assert [w.split("@")[0] for w in workers] == [name]
    assert {"stats", "active_queues", "registered"} <= set(next(iter(workers.values())))

    # the API writes the labels of what it enqueues only with task events on, as the workers;
    # the stack is project itest's (noauth: the X-Auth-Project header), its tasks say so
    api = create_app(dataclasses.replace(engine_settings, task_events=True)).test_client()
    project = {"X-Auth-Project": "itest"}
    resp = api.post("/v1/itest/stacks", json={"stack_name": "web", "template": TEMPLATE},
                    headers=project)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    rid, stack_id = resp.headers["x-openstack-request-id"], resp.get_json()["stack"]["id"]
    wait_for(lambda: api.get(f"/v1/itest/stacks/web/{stack_id}", headers=project).get_json()
             ["stack"]["stack_status"] == "CREATE_COMPLETE", 120, 0.2, "the stack")

    def listed() -> list[dict]:
        tasks = requests.get(f"{url}/api/tasks", timeout=10).json()
        got = [t for t in tasks.values()
               if t.get("args") == "(project=itest, stack=web, resource=volume, CREATE)"]
        return list(tasks.values()) if got and got[0].get("state") == "SUCCESS" else []
    tasks = wait_for(listed, 60, 0.5, "flower to list the stack's tasks")
    named = {(t["name"], t["args"]) for t in tasks}
    assert ("stoker.check_resource", "(project=itest, stack=web, resource=server, CREATE)") in named
    assert ("stoker.poll_resource", "(project=itest, stack=web, resource=server, CREATE)") in named
    queues = requests.get(f"{url}/api/queues/length", timeout=10).json()["active_queues"]
    assert {"stoker.engine", "stoker.poll", "stoker.maintenance"} <= {q["name"] for q in queues}

    lines = [json.loads(line) for line in worker_log.read_text().splitlines()
             if line.startswith("{")]
    mine = [ln for ln in lines if ln.get("request_id") == rid]
    assert mine, worker_log.read_text()[-3000:]
    assert {ln["stack_id"] for ln in mine} == {stack_id}
    assert all(ln.get("traversal") and ln.get("resource") for ln in mine)
    assert any("check_resource(project=itest, stack=web, resource=volume, CREATE) started"
               in ln["message"]
               for ln in mine)   # the successor, enqueued by a worker, still carries the id


def test_flower_asks_for_credentials_when_basic_auth_is_configured(engine_settings, procs):
    env = worker_env(engine_settings)
    url = _flower(procs, engine_settings, env, "flower-auth", flower_basic_auth="ops:s3cret",
                  api_host="127.0.0.1")
    assert requests.get(f"{url}/api/workers", timeout=10).status_code == 401
    assert requests.get(f"{url}/api/workers", auth=("ops", "wrong"), timeout=10).status_code == 401
    assert requests.get(f"{url}/api/workers", auth=("ops", "s3cret"), timeout=10).status_code == 200
