"""Run Heat's own test suite (heat-tempest-plugin) against Stoker: what ``make tempest`` does once
the tempest virtualenv is installed (scripts/tempest.sh).

1. ``stoker up --auth keystone`` in a fresh home (SQLite, its own Redis, real workers, the
   sandbox cloud and its Keystone) on free ports;
2. in the sandbox, as the ``demo`` user: the network ``heat-net`` with its subnet ``heat-subnet``
   (routed to the external network ``public``) and the key pair ``heat-key``;
3. ``tempest init`` a workspace and write its ``etc/tempest.conf``: ``[identity]`` to the sandbox's
   Keystone, ``[heat_plugin]`` with user demo, image cirros, flavors m1.small / m1.tiny, floating
   network public, the convergence engine, ``heat-config-notify`` from the venv, the hidden
   stack tag ``hidden`` (Stoker's ``hidden_stack_tags``, as Heat's devstack), the scenario
   tests the sandbox cannot serve skipped (:data:`SCENARIO_SKIPS`, with the reasons);
4. ``tempest run`` over ``heat_tempest_plugin.tests.api``, ``...functional`` and
   ``...scenario``, then the counts (``tempest: N passed, N failed, N skipped``), the failing
   tests' names and the time;
5. stop everything (also on SIGTERM / SIGHUP) and remove the workspace unless ``--keep``.

Exit status: non-zero when a test failed, tempest failed or nothing passed. Run from the
repository with Stoker's interpreter:
``.venv/bin/python scripts/tempest_run.py --tempest-venv .tempest-venv``.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "sandbox"
DEFAULT_REGEX = r"^heat_tempest_plugin\.tests\.(api|functional|scenario)\."
#: the tag of hidden stacks (Heat's ``hidden_stack_tags``), as Heat's devstack sets it
HIDDEN_TAG = "hidden"
#: scenario tests the sandbox cannot serve, and why (README "Heat's own test suite")
SCENARIO_SKIPS = {
    "AodhAlarmTest": "sends measures to Gnocchi, which the sandbox does not have",
    "CfnInitIntegrationTest": "pings the server and reads files cfn-init wrote on it over SSH",
    "ServerSignalIntegrationTest": "pings the server's floating IP (ICMP to a real VM)",
    "SoftwareConfigIntegrationTest": "checks what shell, cfn-init and puppet hooks wrote on "
                                     "the server (the sandbox agent runs no commands)",
    "VolumeBackupRestoreIntegrationTest": "reads back data the server's user data script wrote "
                                          "to its volume (the sandbox runs no commands)",
}

CONF = """[DEFAULT]
log_file = tempest.log

[auth]
use_dynamic_credentials = false

[identity]
uri_v3 = {auth_url}
auth_version = v3
region = RegionOne

[identity-feature-enabled]
api_v2 = false

[volume-feature-enabled]
backup = true

[service_available]
heat = true

[heat_plugin]
auth_url = {auth_url}
auth_version = 3
username = demo
password = {password}
project_name = demo
admin_username = admin
admin_password = {password}
admin_project_name = admin
user_domain_name = Default
project_domain_name = Default
region = RegionOne
instance_type = m1.small
minimal_instance_type = m1.tiny
image_ref = cirros
minimal_image_ref = cirros-0.6.2-x86_64-disk
keypair_name = heat-key
fixed_network_name = heat-net
fixed_subnet_name = heat-subnet
floating_network_name = public
convergence_engine_enabled = true
skip_scenario_tests = false
skip_scenario_test_list = {scenario_skips}
heat_config_notify_script = {notify_script}
hidden_stack_tag = {hidden_tag}
build_interval = {build_interval}
build_timeout = {build_timeout}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Stoker:
    """``stoker up --auth keystone`` in ``home``: API on ``port``, the sandbox's ``auth_url``."""

    def __init__(self, home: Path, workers: int) -> None:
        self.port, sandbox_port, cfn_port = free_port(), free_port(), free_port()
        self.auth_url = f"http://127.0.0.1:{sandbox_port}/identity/v3"
        env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
        env.update(HOME=str(home), STOKER_API_PORT=str(self.port),
                   STOKER_HIDDEN_STACK_TAGS=HIDDEN_TAG,
                   STOKER_SANDBOX_PORT=str(sandbox_port), STOKER_CFN_PORT=str(cfn_port),
                   PYTHONPATH=str(ROOT))
        self.log = home / "stoker-up.log"
        stoker = Path(sys.executable).parent / "stoker"
        argv = [str(stoker)] if stoker.exists() else [sys.executable, "-m", "app.cli"]
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen([*argv, "up", "--auth", "keystone", "--workers", str(workers)],
                                         cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self._wait()

    def _wait(self, timeout: float = 120) -> None:
        import requests
        deadline = time.monotonic() + timeout
        while True:
            try:
                requests.get(f"http://127.0.0.1:{self.port}/", timeout=2)
                requests.get(self.auth_url, timeout=2).raise_for_status()
                return
            except requests.RequestException:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                sys.exit(f"stoker up did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def prepare(auth_url: str) -> None:
    """What Heat's gate prepares for the plugin: the demo project's ``heat-net`` / ``heat-subnet``
    with a router to ``public``, and the demo user's key pair ``heat-key``."""
    import openstack
    conn: Any = openstack.connect(auth_url=auth_url, username="demo", password=PASSWORD,
                                  project_name="demo", user_domain_name="Default",
                                  project_domain_name="Default", region_name="RegionOne",
                                  identity_api_version="3")
    net = conn.network.create_network(name="heat-net")
    subnet = conn.network.create_subnet(name="heat-subnet", network_id=net.id, ip_version=4,
                                        cidr="10.0.5.0/24", dns_nameservers=["8.8.8.8"])
    public = conn.network.find_network("public")
    router = conn.network.create_router(name="heat-router",
                                        external_gateway_info={"network_id": public.id})
    conn.network.add_interface_to_router(router, subnet_id=subnet.id)
    conn.compute.create_keypair(name="heat-key")


def counts(output: str) -> dict[str, int]:
    """tempest run's ``Totals`` block: passed / failed / skipped."""
    found = {}
    for key in ("Passed", "Failed", "Skipped"):
        m = re.search(rf"^\s*-\s*{key}:\s*(\d+)", output, re.MULTILINE)
        found[key.lower()] = int(m.group(1)) if m else 0
    return found


def run_tempest(venv: Path, work: Path, auth_url: str, args: argparse.Namespace) -> int:
    tempest = str(venv / "bin" / "tempest")
    # HOME in the work directory: tempest records its workspaces in ~/.tempest
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "PYTHON"))}
    env["HOME"] = str(work)
    subprocess.run([tempest, "init", str(work / "ws")], check=True, capture_output=True, env=env)
    ws = work / "ws"
    (ws / "etc" / "tempest.conf").write_text(CONF.format(
        auth_url=auth_url, password=PASSWORD, build_interval=args.build_interval,
        build_timeout=args.build_timeout, scenario_skips=",".join(SCENARIO_SKIPS),
        notify_script=venv / "heat-config-notify", hidden_tag=HIDDEN_TAG))
    # the suite runs os-collect-config (the Zaqar transport test): the venv's bin on PATH
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    argv = [tempest, "run", "--regex", args.regex, "--concurrency", str(args.concurrency),
            *args.extra]
    print(f"running: {' '.join(argv)}  (in {ws})", flush=True)
    started = time.monotonic()
    runner = subprocess.Popen(argv, cwd=ws, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = runner.communicate()
    except BaseException:   # stopped meanwhile: tempest's workers go too
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        raise
    proc = subprocess.CompletedProcess(argv, runner.returncode, output)
    (work / "tempest-run.txt").write_text(proc.stdout)
    tail = proc.stdout[proc.stdout.rfind("======\nTotals"):] if "Totals" in proc.stdout else ""
    failing = subprocess.run([str(venv / "bin" / "stestr"), "failing", "--list"], cwd=ws, env=env,
                             capture_output=True, text=True, check=False).stdout.split()
    print(tail)
    if failing:
        print("failing tests:")
        for name in sorted(set(failing)):
            print("  " + name)
    c = counts(proc.stdout)
    print(f"took {time.monotonic() - started:.0f} s")
    print(f"tempest: {c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped", flush=True)
    # a failure, tempest's own error or a selection that ran nothing all fail the run
    if proc.returncode == 0 and (c["failed"] or failing or not c["passed"]):
        return 1
    return proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tempest-venv", type=Path, default=ROOT / ".tempest-venv")
    parser.add_argument("--regex", default=os.environ.get("TEMPEST_REGEX", DEFAULT_REGEX))
    parser.add_argument("--concurrency", type=int,
                        default=int(os.environ.get("TEMPEST_CONCURRENCY", "4")))
    parser.add_argument("--workers", type=int, default=2, help="Stoker's worker processes")
    parser.add_argument("--build-interval", type=int, default=2)
    parser.add_argument("--build-timeout", type=int, default=240)
    parser.add_argument("--keep", action="store_true", default=bool(os.environ.get("TEMPEST_KEEP")),
                        help="keep the work directory (logs, tempest.conf, the stestr stream)")
    parser.add_argument("extra", nargs="*", help="more `tempest run` arguments")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="stoker-tempest-"))

    def stop(signum: int, _frame: Any) -> None:   # CI's or a user's stop: clean up first
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    stoker = Stoker(work, args.workers)
    try:
        print(f"stoker up --auth keystone: API :{stoker.port}, Keystone {stoker.auth_url}", flush=True)
        prepare(stoker.auth_url)
        code = run_tempest(args.tempest_venv.resolve(), work, stoker.auth_url, args)
    finally:
        stoker.stop()
        if args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
