"""Composition (DESIGN.md "Composition"): each process is built by its factory or boot function,
nothing is wired at import, and no lower layer is reached through a module-level setter.

- In a fresh interpreter that imports only the factory's package, ``app.api:create_app()`` and
  ``app.cfn:create_app()`` (embedded settings from ``STOKER_*``, in-process engine) build an API
  that creates stacks: nested stacks, a scaling policy's signal and the event sinks all work,
  and importing the package composed nothing;
- a Celery worker's boot (``worker_init``) composes its runtime with Celery's dispatcher (the
  real worker processes of ``tests/integration`` run stacks on it); beat runs no engine code
  (``tests/unit/tasks/test_beat_app.py``);
- an AST scan of ``app/``: no module-level statement calls into another ``app`` module for its
  effect (an ``install()``, a ``set_*``, a registration), and only the reviewed functions
  rebind module state (``global``).
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
#: the sandbox cloud is its own application (a stand-in for OpenStack), outside the layout
#: DESIGN.md draws; its Flask blueprints are assembled at import, as blueprints are
OUTSIDE_THE_LAYOUT = ("app/sandbox/",)
#: functions that may rebind module state, each for a reason: the factories' own calls
#: (settings, database, runtime), lazy caches, and the worker's boot machinery in app.tasks
MAY_REBIND_MODULE_STATE = {
    "app/config.py": {"get", "set_current"},           # the process's settings
    "app/models/base.py": {"_install"},                # the process's database engine (init)
    "app/convergence/runtime.py": {"configure"},       # the process's composition
    # the heartbeat threads, and whether its own beats land (a per-process fact, as they are)
    "app/convergence/store/lease.py": {"ensure_heartbeat", "stop", "_beaten"},
    "app/resource_types/registry.py": {"_load"},       # plugin modules imported once
    "app/templates/functions/yaql_fn.py": {"_engine"},  # the YAQL engine built once
    "app/tasks/broker_watch.py": {"start"},            # the worker's broker watch, once
    "app/tasks/profiling.py": {"install"},             # the worker's profiler (its boot)
    "app/tasks/labels.py": {"_remember_consumer"},     # the worker's consumer (worker_ready)
}

ASG = {"heat_template_version": "2018-08-31", "resources": {
    "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
        "min_size": 1, "max_size": 3, "cooldown": 0,
        "resource": {"type": "OS::Heat::RandomString"}}},
    "up": {"type": "OS::Heat::ScalingPolicy", "properties": {
        "auto_scaling_group_id": {"get_resource": "asg"}, "cooldown": 0,
        "adjustment_type": "change_in_capacity", "scaling_adjustment": 1}}},
    "outputs": {"size": {"value": {"get_attr": ["asg", "current_size"]}}}}

#: a webhook event sink listening in the fresh interpreter (its received bodies in ``received``)
HOOK = r'''
import http.server, json, threading, time
received = []
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=server.serve_forever, daemon=True).start()
SINKS = {"event_sinks": [{"type": "webhook", "url": f"http://127.0.0.1:{server.server_port}/"}]}
def undelivered(ids):
    """The event ids of ``ids`` the sink has not received within 20 s."""
    deadline = time.monotonic() + 20
    while set(ids) - {body["id"] for body in received} and time.monotonic() < deadline:
        time.sleep(0.05)
    return sorted(set(ids) - {body["id"] for body in received})
'''

API_SCRIPT = HOOK + r'''
import sys
import app.api
from app.convergence import runtime
out = {"composed_at_import": runtime._current is not None}
client = app.api.create_app().test_client()
template = json.loads(sys.argv[1])
r = client.post("/v1/t1/stacks", json={"stack_name": "fresh", "template": template,
                                       "environment": SINKS})
out["create"] = r.status_code
sid = r.get_json()["stack"]["id"]
base = f"/v1/t1/stacks/fresh/{sid}"
def stack():
    st = client.get(base).get_json()["stack"]
    return st["stack_status"], {o["output_key"]: o["output_value"] for o in st["outputs"]}
out["status"], outs = stack()
out["size"] = outs["size"]
out["signal"] = client.post(f"{base}/resources/up/signal", json={"current": "alarm"}).status_code
out["status_after_signal"], outs = stack()
out["size_after_signal"] = outs["size"]
ids = [e["id"] for e in client.get(f"{base}/events").get_json()["events"]]
out["events"], out["undelivered"] = len(ids), undelivered(ids)
print(json.dumps(out))
'''

CFN_SCRIPT = HOOK + r'''
import sys
from urllib.parse import urlencode
from xml.etree import ElementTree as ET
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
import app.cfn
from app.convergence import runtime
out = {"composed_at_import": runtime._current is not None}
client = app.cfn.create_app().test_client()
def call(**params):
    body = urlencode({"Version": "2010-05-15", **params}).encode()
    req = AWSRequest(method="POST", url="http://localhost/v1/", data=body, headers={
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(Credentials("AKIDEXAMPLE", "secret"), "cloudformation", "RegionOne").add_auth(req)
    resp = client.post("/v1/", data=body, headers=dict(req.headers.items()))
    text = resp.data.decode()
    for ns in ("http://cloudformation.amazonaws.com/doc/2010-05-15/",):
        text = text.replace(f' xmlns="{ns}"', "")
    return resp.status_code, ET.fromstring(text)
template = json.loads(sys.argv[1])
template["parameters"] = {}
status, root = call(Action="CreateStack", StackName="fresh", TemplateBody=json.dumps(template))
out["create"] = status
status, root = call(Action="DescribeStacks", StackName="fresh")
out["status"] = root.findtext(".//StackStatus")
out["size"] = root.findtext(".//Outputs/member/OutputValue")
print(json.dumps(out))
'''

BOOT_SCRIPT = r'''
import json, sys
import app.tasks.worker
from celery import signals
from app.convergence import runtime
out = {"composed_at_import": runtime._current is not None}
signal = getattr(signals, sys.argv[1])
signal.send(sender=None)
rt = runtime.current()
out["dispatcher"] = type(rt.dispatcher).__name__
out["child_stacks"] = type(rt.child_stacks).__name__
out["hooks"] = [f"{f.__module__}.{f.__name__}" for f in (
    rt.scaling_adjuster, rt.group_completed, rt.child_unclaimed, *rt.event_observers)]
print(json.dumps(out))
'''


def _fresh(script: str, tmp_path: Path, *args: str, **env: str) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter on an embedded configuration of its own (a migrated
    SQLite database under ``tmp_path``, the engine in-process); :returns: its JSON line."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    clean.update({"STOKER_DATA_DIR": str(tmp_path / "data"), "STOKER_ALWAYS_EAGER": "1",
                  "STOKER_EVENT_SINK_PRIVATE_ADDRESSES": "1", **env})
    subprocess.run([sys.executable, "-m", "app.cli", "db", "upgrade"], cwd=ROOT, env=clean,
                   check=True, capture_output=True, timeout=120)
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=clean,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_app_api_create_app_alone_builds_an_api_that_creates_scales_and_publishes(tmp_path):
    out = _fresh(API_SCRIPT, tmp_path, json.dumps(ASG))
    assert out["composed_at_import"] is False
    assert (out["create"], out["status"], out["size"]) == (201, "CREATE_COMPLETE", 1)
    assert (out["signal"], out["size_after_signal"]) == (200, 2)   # the scaling adjuster
    assert out["status_after_signal"] == "CREATE_COMPLETE"
    assert out["events"] > 0 and out["undelivered"] == []   # the event sinks


def test_app_cfn_create_app_alone_builds_an_api_whose_create_stack_completes(tmp_path):
    out = _fresh(CFN_SCRIPT, tmp_path, json.dumps(ASG))
    assert out["composed_at_import"] is False
    assert (out["create"], out["status"], out["size"]) == (200, "CREATE_COMPLETE", "1")


def test_a_worker_composes_its_runtime_at_boot_not_at_import(tmp_path):
    out = _fresh(BOOT_SCRIPT, tmp_path, "worker_init", STOKER_BROKER_URL="memory://",
                 STOKER_ALWAYS_EAGER="0")
    assert out["composed_at_import"] is False
    assert out["dispatcher"] == "CeleryDispatcher"
    assert out["child_stacks"] == "ServiceChildStacks"
    assert out["hooks"] == ["app.services.scaling.adjust",
                            "app.services.scaling.reload_load_balancers",
                            "app.services.scaling.child_ended",
                            "app.services.event_sinks.publish",
                            "app.services.change_sets.observe"]


def _layered_modules() -> list[Path]:
    """The modules of ``app/`` an import runs (``__main__.py`` runs a program: not scanned)."""
    return [p for p in sorted((ROOT / "app").rglob("*.py"))
            if not str(p.relative_to(ROOT)).startswith(OUTSIDE_THE_LAYOUT)
            and p.name != "__main__.py"]


def _app_names(tree: ast.Module) -> set[str]:
    """The names a module binds to ``app`` modules and their members by importing them."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names
                         if a.name.split(".")[0] == "app")
        elif isinstance(node, ast.ImportFrom) and (node.level or
                                                  (node.module or "").split(".")[0] == "app"):
            names.update(a.asname or a.name for a in node.names)
    return names


def _is_main_guard(st: ast.stmt) -> bool:
    return isinstance(st, ast.If) and "__main__" in ast.unparse(st.test)


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import: the body and the blocks of its if/try/with/for (not
    functions' or classes' bodies, nor what runs only as a program: ``if __name__ ==
    "__main__"``)."""
    out: list[ast.stmt] = []
    for st in body:
        if _is_main_guard(st):
            continue
        out.append(st)
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            out.extend(_module_level(getattr(st, field, None) or []))
        for handler in getattr(st, "handlers", None) or []:
            out.extend(_module_level(handler.body))
    return out


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def import_time_wiring(source: str, rel: str) -> list[str]:
    """Module-level statements of module ``rel`` that call, for their effect, something imported
    from an ``app`` module (``children.install()``, ``dispatch.set_fallback(...)``), as
    ``rel:line: code``."""
    tree = ast.parse(source, filename=rel)
    imported = _app_names(tree)
    return [f"{rel}:{st.lineno}: {ast.unparse(st)}"
            for st in _module_level(tree.body)
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call)
            and _root(st.value.func) in imported]


def module_state_setters(source: str, rel: str) -> list[str]:
    """Functions of module ``rel`` that rebind module globals (``global``) and are not
    reviewed in :data:`MAY_REBIND_MODULE_STATE`, as ``rel:line: name``."""
    allowed = MAY_REBIND_MODULE_STATE.get(rel, set())
    tree = ast.parse(source, filename=rel)
    return [f"{rel}:{fn.lineno}: {fn.name}" for fn in ast.walk(tree)
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name not in allowed
            and any(isinstance(n, ast.Global) for n in ast.walk(fn))]


def _scan(check: Any) -> list[str]:
    return [hit for p in _layered_modules()
            for hit in check(p.read_text(), str(p.relative_to(ROOT)))]


def test_no_module_wires_anything_at_import():
    found = _scan(import_time_wiring)
    assert not found, ("module-level calls into app modules (wire in a factory: "
                       "app.services.wiring.compose):\n" + "\n".join(found))


def test_no_module_level_setters_beyond_the_reviewed_ones():
    found = _scan(module_state_setters)
    assert not found, ("functions that rebind module state (hand it to the Runtime instead, "
                       "or review it into MAY_REBIND_MODULE_STATE):\n" + "\n".join(found))


def test_the_scans_see_what_they_guard_against():
    probe = ("from app.services import children\nimport app.tasks\nfrom .x import hook\n"
             "children.install()\nif True:\n    app.tasks.configure(None)\nhook.register(1)\n"
             "local = dict()\nlocal.update(a=1)\n_x = None\n"
             "def set_x(v):\n    global _x\n    _x = v\n"
             "if __name__ == '__main__':\n    children.main()\n")
    calls = [hit.split(": ", 1)[1] for hit in import_time_wiring(probe, "app/probe.py")]
    setters = [hit.split(": ", 1)[1] for hit in module_state_setters(probe, "app/probe.py")]
    assert calls == ["children.install()", "app.tasks.configure(None)", "hook.register(1)"]
    assert setters == ["set_x"]
