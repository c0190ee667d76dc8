"""Event sinks (Heat's environment ``event_sinks``): a stack's whole event stream reaches a
``zaqar-queue`` sink (the sandbox's Zaqar v2 queue, read back with openstacksdk) and a ``webhook``
sink, in Heat's ``os.heat.event`` shape; a sink that is down for a while never stops the stack
and its events are delivered when it answers again (retried with backoff)."""
from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.context import RequestContext
from app.services import event_sinks, stacks
from tests.fixtures.stacks import events, final, hot

CTX = RequestContext(tenant_id="admin")
TEMPLATE = hot({"net": {"type": "OS::Neutron::Net", "properties": {"name": "sinknet"}},
                "subnet": {"type": "OS::Neutron::Subnet",
                           "properties": {"network": {"get_resource": "net"},
                                          "cidr": "10.77.0.0/24"}},
                "word": {"type": "OS::Heat::RandomString"}})


class Hook:
    """A local webhook answering 503 to its first ``failures`` POSTs, then 200."""

    def __init__(self, failures: int = 0) -> None:
        self.failures, self.posts, self.bodies = failures, 0, []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                hook.posts += 1
                if hook.posts <= hook.failures:
                    self.send_response(503)
                else:
                    hook.bodies.append((dict(self.headers), data))
                    self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/events"


def _admin(sandbox: Any) -> Any:
    import openstack
    return openstack.connect(auth_url=sandbox.auth_url, username="admin", password="sandbox",
                             project_name="admin", user_domain_name="Default",
                             project_domain_name="Default", region_name="RegionOne")


@pytest.fixture()
def sinks_on(db, cloud_settings, no_leaks, sandbox):
    """Sinks on (the process's runtime publishes every event to them); every stack the test made and its queues are deleted after it (nothing
    left in the session's sandbox), and every event delivered or dropped."""
    from app import config
    # the test's webhook listens on loopback: allowed as an operator would allow it
    config.set_current(cloud_settings.replace(event_sink_private_addresses=True))
    event_sinks._sinks_cache.clear()
    yield cloud_settings
    for st in stacks.list_stacks(CTX):
        stacks.delete_stack(CTX, st.name, st.id)
    assert event_sinks.flush(30)
    conn = _admin(sandbox)
    for q in list(conn.message.queues()):
        conn.message.delete_queue(q.name)


def _queued(conn: Any, queue: str) -> list[dict[str, Any]]:
    """Every message of ``queue`` (as another client: no echo needed), oldest first."""
    out, marker = [], None
    while True:
        params: dict[str, Any] = {"limit": 20, **({"marker": marker} if marker else {})}
        page = conn.session.get(f"/v2/queues/{queue}/messages",
                                endpoint_filter={"service_type": "messaging"},
                                headers={"Client-ID": str(uuid.uuid4())}, params=params).json()
        if not page["messages"]:
            return out
        out += page["messages"]
        marker = page["messages"][-1]["id"]


def _stream(stack_id: str) -> list[tuple[str, str, str]]:
    return [(e.uuid, e.resource_name, f"{e.action}_{e.status}") for e in events(stack_id)]


def _sent(bodies: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(b["id"], b["payload"]["resource_name"],
             f"{b['payload']['resource_action']}_{b['payload']['resource_status']}") for b in bodies]


def test_every_event_reaches_the_zaqar_queue_and_the_webhook_in_heats_shape(sinks_on, sandbox):
    hook, queue = Hook(), f"events-{uuid.uuid4().hex[:6]}"
    env = {"event_sinks": [{"type": "zaqar-queue", "target": queue, "ttl": 600},
                           {"type": "webhook", "url": hook.url, "headers": {"X-Stack": "sinks"}}]}
    st = stacks.create_stack(CTX, stack_name="sinks", template=TEMPLATE, environment=env)
    st = final(CTX, st.id)
    assert st.status == "COMPLETE"
    assert event_sinks.flush(30)
    stream = _stream(st.id)
    assert ("sinks", "CREATE_COMPLETE") == stream[-1][1:] and len(stream) == 8
    conn = _admin(sandbox)
    messages = _queued(conn, queue)
    assert {m["ttl"] for m in messages} == {600}
    bodies = [m["body"] for m in messages]
    # one worker process here: the order is the order of writing
    assert _sent(bodies) == stream
    assert _sent([b for _, b in hook.bodies]) == stream
    assert all(h.get("X-Stack") == "sinks" for h, _ in hook.bodies)
    server = next(b for b in bodies if b["payload"]["resource_name"] == "net"
                  and b["payload"]["resource_status"] == "COMPLETE")
    assert server["type"] == "os.heat.event" and server["version"] == "0.1"
    assert set(server["payload"]) == {"resource_name", "physical_resource_id", "stack_id",
                                      "resource_action", "resource_status",
                                      "resource_status_reason", "resource_type",
                                      "resource_properties", "version"}
    assert server["payload"]["resource_type"] == "OS::Neutron::Net"
    assert server["payload"]["stack_id"] == st.id and server["payload"]["physical_resource_id"]


def test_a_sink_that_is_down_delays_nothing_and_gets_every_event_later(sinks_on, faults,
                                                                     sandbox):
    hook, queue = Hook(failures=3), f"down-{uuid.uuid4().hex[:6]}"
    faults({"match": "messaging.POST.queues", "status": 503, "times": 2,
            "message": "Service temporarily unavailable"})
    env = {"event_sinks": [{"type": "zaqar-queue", "target_queue": queue, "backoff": 0.05},
                           {"type": "webhook", "url": hook.url, "retries": 6, "backoff": 0.05}]}
    st = stacks.create_stack(CTX, stack_name="sinks-down", template=TEMPLATE, environment=env)
    assert final(CTX, st.id).status == "COMPLETE"
    assert event_sinks.flush(30)
    stream = _stream(st.id)
    assert hook.posts == len(stream) + 3          # three refused, each retried
    assert _sent([b for _, b in hook.bodies]) == stream
    conn = _admin(sandbox)
    assert _sent([m["body"] for m in _queued(conn, queue)]) == stream


def test_a_sink_that_never_answers_drops_its_events_and_the_stack_completes(sinks_on):
    env = {"event_sinks": [{"type": "webhook", "url": "http://127.0.0.1:9/nothing",
                            "retries": 1, "backoff": 0.01, "timeout": 1}]}
    st = stacks.create_stack(CTX, stack_name="sinks-dead", template=hot({"x": {"type": "OS::Heat::None"}}),
                             environment=env)
    assert final(CTX, st.id).status == "COMPLETE"
    assert event_sinks.flush(30)
    c = event_sinks.courier(event_sinks.build(env["event_sinks"][0]))
    assert c.delivered == 0 and c.dropped == len(events(st.id)) and c.attempts == 2 * c.dropped


def test_a_webhook_to_a_loopback_service_is_refused_and_the_stack_completes(sinks_on):
    """A template author may not make the server POST to its own loopback services (Flower's
    API, the sandbox's control API): without the operator's setting such a sink is skipped."""
    from app import config
    config.set_current(sinks_on.replace(event_sink_private_addresses=False))
    event_sinks._sinks_cache.clear()
    hook = Hook()
    env = {"event_sinks": [{"type": "webhook", "url": hook.url, "retries": 0}]}
    st = final(CTX, stacks.create_stack(CTX, stack_name="ssrf", template=hot(
        {"word": {"type": "OS::Heat::RandomString"}}), environment=env).id)
    assert st.status == "COMPLETE"
    assert event_sinks.flush(30)
    assert hook.posts == 0


@pytest.mark.parametrize("url", ["file:///etc/passwd", "gopher://127.0.0.1/", "http://",
                                 "http://127.0.0.1:5555/api/task/revoke/x",
                                 "http://169.254.169.254/latest/meta-data", "http://[::1]/",
                                 "http://10.1.2.3/hook"])
def test_webhook_urls_that_are_not_global_http_are_refused(url, settings):
    with pytest.raises(event_sinks.SinkError):
        event_sinks.build({"type": "webhook", "url": url})
