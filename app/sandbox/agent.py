"""The sandbox server agent: what cloud-init does with a server's user data on a real image, as
far as the orchestration service can see it — the signals the script sends back. This module
runs them (once the server is ACTIVE, in a thread of their own) and counts the runs in flight;
:mod:`app.sandbox.agent_script` reads them out of the user data.

More in docs/code/sandbox.md (app.sandbox.agent).
"""
from __future__ import annotations

import logging
import threading
from typing import Any

from app.sandbox.agent_script import Request, requests_of, scripts
from app.sandbox.store import Obj

log = logging.getLogger(__name__)
#: seconds each request of the agent may take
REQUEST_TIMEOUT = 30.0
#: agent runs scheduled or running, not yet recorded (guarded by ``_PENDING_LOCK``)
_pending = 0
_PENDING_LOCK = threading.Lock()


def pending() -> int:
    """How many servers' agent runs are scheduled or running and not yet recorded: a caller
    that needs every signal a script sends (a test, before its next step) waits for 0."""
    with _PENDING_LOCK:
        return _pending


def _count(delta: int) -> None:
    global _pending
    with _PENDING_LOCK:
        _pending += delta


def perform(request: Request) -> Obj:
    """Send ``request``; the record of what happened (``status`` or ``error``)."""
    import requests
    record: Obj = {"method": request.method, "url": request.url, "status": None, "error": None}
    if "$" in request.url or (request.data and "$" in request.data):
        record["error"] = "skipped: an unexpanded shell variable"
        return record
    try:
        resp = requests.request(request.method, request.url, headers=request.headers,
                                data=request.data.encode() if request.data is not None else None,
                                timeout=REQUEST_TIMEOUT)
        record["status"] = resp.status_code
    except requests.RequestException as exc:
        record["error"] = str(exc)
    return record


def boot(sandbox: Any, server: Obj, delay: float) -> None:
    """Once ``server`` is ACTIVE (``delay`` seconds from now), run its user data's signalling
    commands in a thread of their own; nothing when it has no shell script. A
    SOFTWARE_CONFIG server's deployments are polled and run by :mod:`app.sandbox.agent_configs`.
    """
    from app.sandbox import agent_configs
    agent_configs.boot(sandbox, server, delay, _count)
    found = [r for s in scripts(server.get("OS-EXT-SRV-ATTR:user_data"))
             for r in requests_of(s, server["id"])]
    if not found:
        return
    timer = threading.Timer(max(0.0, delay), _run, args=(sandbox, server["id"], found))
    timer.daemon = True
    _count(1)
    timer.start()


def resume(sandbox: Any) -> None:
    """Restart the deployment pollers of the servers a restarted sandbox holds (cloud-init's
    user-data scripts ran once, at their first boot, and are not run again)."""
    from app.sandbox import agent_configs
    agent_configs.resume(sandbox, _count)


def _run(sandbox: Any, server_id: str, found: list[Request]) -> None:
    try:
        _perform_all(sandbox, server_id, found)
    finally:
        _count(-1)


def _perform_all(sandbox: Any, server_id: str, found: list[Request]) -> None:
    st = sandbox.store
    server = st.get("servers", server_id)
    if server is None or server.get("status") != "ACTIVE":
        return  # deleted, or in ERROR: cloud-init never ran
    records = []
    for request in found:
        records.append(perform(request))
        log.info("sandbox agent %s: %s %s -> %s", server_id, request.method, request.url,
                 records[-1]["status"] or records[-1]["error"])
    with st.lock:
        server.setdefault("_agent", []).extend(records)
        st.dirty = True
