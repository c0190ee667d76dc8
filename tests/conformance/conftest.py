"""Fixtures of the conformance tests: python-heatclient against a running API."""
from __future__ import annotations

import threading

import pytest
from heatclient import client as heat_client
from werkzeug.serving import make_server


@pytest.fixture()
def heat(app):  # type: ignore[no-untyped-def]
    """python-heatclient talking HTTP to the API (a real server on a free port)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield heat_client.Client("1", endpoint=f"http://127.0.0.1:{server.port}/v1/conform",
                             token="any-token")
    server.shutdown()
