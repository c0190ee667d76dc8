"""The CLI tests' server: the real Orchestration API (the ``app`` fixture: SQLite, tasks
in-process) served by werkzeug on a loopback port, for the ``stoker`` commands to reach."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture()
def url(app: Any) -> Iterator[str]:
    """``http://127.0.0.1:<port>/v1/admin``: the API's root for project ``admin``."""
    from werkzeug.serving import make_server
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1/admin"
    server.shutdown()
    thread.join(5)
