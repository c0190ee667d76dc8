"""``stoker up --flower`` as an operator runs it: Flower serves its API without credentials on
loopback, lists the worker it started with once that worker is up (no ``?refresh=1``), and
lists the engine's ``check_resource`` tasks with arguments naming the stack's project and
resources (two projects' stacks of the same name told apart); a stack created with ``event_sinks: [{type: zaqar-queue, target_queue: Q}]`` leaves
its events (resource names and statuses) in queue Q of the sandbox's Zaqar API; the live page
is served by the API process."""
from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
import requests

from tests.fixtures.procs import stop_groups
from tests.fixtures.stacks import wait_for
from tests.integration.test_up import REPO, _free_port, _port_open, _stoker, home  # noqa: F401

pytestmark = pytest.mark.integration


def test_up_with_flower_and_a_zaqar_event_sink(home: Path) -> None:  # noqa: F811
    port, sandbox_port, flower_port = _free_port(), _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STOKER_", "FLOWER_"))}
    env.update(HOME=str(home), STOKER_API_PORT=str(port), STOKER_SANDBOX_PORT=str(sandbox_port),
               STOKER_FLOWER_PORT=str(flower_port), STOKER_CFN_PORT=str(_free_port()))
    queue = f"events-{uuid.uuid4().hex[:6]}"
    (home / "sinks.yaml").write_text(
        f"event_sinks:\n  - type: zaqar-queue\n    target_queue: {queue}\n")
    log_path = home / "up.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([*_stoker(), "up", "--workers", "1", "--flower"], cwd=home,
                                env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is not None or (_port_open(port) and _port_open(flower_port)
                                                     and _port_open(sandbox_port)),
                 90, 0.3, "the API, Flower and the sandbox")
        assert proc.poll() is None, log_path.read_text()[-3000:]
        flower = f"http://127.0.0.1:{flower_port}"
        # the worker, started with Flower, is listed once it is up: no ?refresh=1 needed
        workers = wait_for(lambda: requests.get(f"{flower}/api/workers", timeout=10).json(),
                           30, 0.5, "Flower to list the worker")
        assert [w.split("@")[0] for w in workers] == ["worker1"]
        assert "stoker.engine" in {q["name"] for q in next(iter(workers.values()))["active_queues"]}
        create = subprocess.run(
            [*_stoker(), "stack", "create", "-t", str(REPO / "examples" / "demo.yaml"),
             "-e", str(home / "sinks.yaml"), "it", "--wait"],
            env=env, cwd=home, capture_output=True, text=True, timeout=180)
        assert create.returncode == 0, create.stdout + create.stderr + log_path.read_text()[-3000:]
        api = f"http://127.0.0.1:{port}/v1/admin"
        stack = requests.get(f"{api}/stacks/it", timeout=10).json()["stack"]
        names = {r["resource_name"] for r in requests.get(
            f"{api}/stacks/it/{stack['id']}/resources", timeout=10).json()["resources"]}
        # a stack of the same name in another project (noauth: the X-Auth-Project header)
        other = requests.post(f"http://127.0.0.1:{port}/v1/other/stacks",
                              headers={"X-Auth-Project": "other"}, timeout=10,
                              json={"stack_name": "it", "template": {
                                  "heat_template_version": "2018-08-31",
                                  "resources": {"nothing": {"type": "OS::Heat::None"}}}})
        assert other.status_code == 201, other.text

        def listed() -> set[str]:
            tasks = requests.get(f"{flower}/api/tasks", timeout=10).json()
            got = {t["args"] for t in tasks.values() if t["name"] == "stoker.check_resource"}
            return got if len(got) > len(names) else set()
        args = wait_for(listed, 60, 0.5, "Flower to list the stacks' tasks")
        assert {f"(project=admin, stack=it, resource={n}, CREATE)" for n in names} <= args
        assert "(project=other, stack=it, resource=nothing, CREATE)" in args

        import openstack
        conn = openstack.connect(auth_url=f"http://127.0.0.1:{sandbox_port}/identity/v3",
                                 username="admin", password="sandbox", project_name="admin",
                                 user_domain_name="Default", project_domain_name="Default",
                                 region_name="RegionOne")
        expected = len(requests.get(f"{api}/stacks/it/{stack['id']}/events", params={"limit": 1000},
                                    timeout=10).json()["events"])

        def queued() -> list[dict]:
            out, marker = [], None
            while True:
                page = conn.session.get(
                    f"/v2/queues/{queue}/messages", endpoint_filter={"service_type": "messaging"},
                    headers={"Client-ID": "reader"},
                    params={"limit": 20, **({"marker": marker} if marker else {})}).json()
                if not page["messages"]:
                    return out if len(out) >= expected else []
                out += page["messages"]
                marker = page["messages"][-1]["id"]
        bodies = [m["body"]["payload"] for m in wait_for(queued, 30, 0.5, "the queued events")]
        assert {(p["resource_name"], p["resource_status"]) for p in bodies} >= \
            {(n, s) for n in names for s in ("IN_PROGRESS", "COMPLETE")} | {("it", "COMPLETE")}

        page = requests.get(f"http://127.0.0.1:{port}/live/admin/stacks/it/{stack['id']}", timeout=10)
        assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
    finally:
        stop_groups([proc], grace=40)
    assert proc.returncode == 0, log_path.read_text()[-2000:]
    assert not _port_open(flower_port)
