"""app.logs: one setup for every process; JSON lines on request; each line carries the ids of
its context (request id, stack, traversal, resource), never another thread's; the API binds its
``x-openstack-request-id`` for the lines of that request."""
from __future__ import annotations

import io
import json
import logging
import threading

import pytest

from app import config, logs


@pytest.fixture()
def captured():
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    root.handlers = [h for h in root.handlers if not getattr(h, logs._HANDLER_MARK, False)]
    yield stream
    root.handlers, _ = saved
    root.setLevel(saved[1])
    logs.clear()


@pytest.fixture()
def client(settings, monkeypatch):
    """The API on Flask's test client, over a stack list that is always empty (the request's
    log lines are the point, not the list)."""
    from app.api import create_app
    from app.services import stacks
    monkeypatch.setattr(stacks, "list_stacks", lambda ctx, **kw: [])
    return create_app(settings).test_client()


def _lines(stream: io.StringIO) -> list[str]:
    return [line for line in stream.getvalue().splitlines() if line]


def test_json_lines_carry_the_context_ids(captured):
    logs.setup(config.load({"STOKER_LOG_FORMAT": "json"}), stream=captured)
    logs.bind(request_id="req-abc", stack_id="s1", traversal="t1", resource=7)
    logging.getLogger("app.x").info("created %s", "net")
    logs.clear()
    logging.getLogger("app.x").warning("no ids")
    first, second = (json.loads(line) for line in _lines(captured))
    assert first["message"] == "created net" and first["level"] == "INFO"
    assert (first["request_id"], first["stack_id"], first["traversal"], first["resource"]) == \
        ("req-abc", "s1", "t1", 7)
    assert first["logger"] == "app.x" and first["time"].endswith("+00:00")
    assert "request_id" not in second and second["level"] == "WARNING"


def test_text_lines_show_the_ids_that_are_known(captured):
    logs.setup(config.load({}), stream=captured)
    logs.bind(request_id="req-1", stack_id="s9")
    logging.getLogger("app.y").info("hello")
    assert _lines(captured)[-1].endswith("INFO app.y [req-1 stack=s9] hello")


def test_threads_never_see_each_others_ids(captured):
    logs.setup(config.load({"STOKER_LOG_FORMAT": "json"}), stream=captured)
    barrier = threading.Barrier(2)

    def work(rid: str) -> None:
        logs.bind(request_id=rid)
        barrier.wait()
        logging.getLogger("app.t").info(rid)
    threads = [threading.Thread(target=work, args=(r,)) for r in ("req-a", "req-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(json.loads(line)["request_id"] == json.loads(line)["message"]
               for line in _lines(captured))


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="text or json"):
        logs.setup(config.load({"STOKER_LOG_FORMAT": "xml"}))


def test_the_api_logs_each_request_with_its_request_id(client, captured):
    logs.setup(config.get().replace(log_format="json"), stream=captured)
    resp = client.get("/v1/admin/stacks")
    rid = resp.headers["x-openstack-request-id"]
    access = [json.loads(line) for line in _lines(captured)
              if json.loads(line)["logger"] == "stoker.api.access"]
    assert access[-1]["request_id"] == rid and access[-1]["message"] == "GET /v1/admin/stacks 200"
    assert logs.request_id() is None               # forgotten after the request
