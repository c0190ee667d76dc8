"""A webhook POST goes to the address that was checked, resolved once per delivery: a name that
resolves to a non-global address is refused (no request is made), and the HTTP library never
resolves the name again (DNS rebinding). Redirects are not followed."""
from __future__ import annotations

import json
import socket
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.clients import webhook
from app.services import event_sinks


class Hook:
    """A local HTTP server answering ``status`` to each POST, keeping what it got."""

    def __init__(self, status: int = 200) -> None:
        self.posts: list[tuple[dict[str, str], Any]] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                hook.posts.append((dict(self.headers), body))
                self.send_response(status)
                if status in (301, 302):
                    self.send_header("Location", "http://127.0.0.1:1/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def hook():
    h = Hook()
    yield h
    h.close()


@pytest.fixture()
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Names under ``.invalid`` (which never resolve, RFC 6761) answered from a table; every
    lookup is counted. Anything else fails, as ``.invalid`` would."""
    state: dict[str, Any] = {"table": {}, "asked": []}

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        state["asked"].append(host)
        if host in state["table"]:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (state["table"][host], port))]
        if host == "127.0.0.1":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return state


def test_the_post_goes_to_the_address_checked_with_the_urls_host(hook: Hook, dns: dict):
    dns["table"]["hook.invalid"] = "127.0.0.1"
    status = webhook.post_json(f"http://hook.invalid:{hook.port}/events?x=1", {"id": "e1"},
                               {"X-Extra": "yes"}, 5, allow_private=True)
    assert status == 200
    (headers, body), = hook.posts
    assert body == {"id": "e1"}
    assert headers["Host"] == f"hook.invalid:{hook.port}" and headers["X-Extra"] == "yes"
    # resolved once, by the check; had the HTTP library resolved "hook.invalid" itself, the
    # POST could not have been made
    assert [h for h in dns["asked"] if h == "hook.invalid"] == ["hook.invalid"]


def test_a_name_resolving_to_loopback_is_refused_without_a_request(hook: Hook, dns: dict):
    dns["table"]["rebind.invalid"] = "127.0.0.1"
    with pytest.raises(webhook.WebhookRefused, match="non-global address"):
        webhook.post_json(f"http://rebind.invalid:{hook.port}/x", {}, {}, 5, allow_private=False)
    assert hook.posts == []


def test_a_redirect_is_not_followed():
    h = Hook(302)
    try:
        with pytest.raises(webhook.WebhookFailed) as caught:
            webhook.post_json(f"http://127.0.0.1:{h.port}/x", {}, {}, 5, allow_private=True)
        assert caught.value.status == 302 and len(h.posts) == 1
    finally:
        h.close()


def test_check_url_needs_no_dns(dns: dict):
    webhook.check_url("https://hooks.invalid/x", allow_private=False)   # a name: later
    assert dns["asked"] == []
    for bad in ("ftp://x.invalid/", "http://", "http://10.0.0.1/", "http://[::1]:80/",
                "http://169.254.169.254/latest"):
        with pytest.raises(webhook.WebhookRefused):
            webhook.check_url(bad, allow_private=False)
    webhook.check_url("http://10.0.0.1/", allow_private=True)


def test_a_courier_drops_a_refused_delivery_at_once(hook: Hook, dns: dict, monkeypatch):
    dns["table"]["private.invalid"] = "127.0.0.1"
    monkeypatch.setattr(event_sinks.config, "get",
                        lambda: types.SimpleNamespace(event_sink_private_addresses=False))
    sink = event_sinks.build({"type": "webhook", "url": f"http://private.invalid:{hook.port}/x",
                              "retries": 3, "backoff": 0.01})
    courier = event_sinks.Courier(sink, sleep=lambda s: None)
    courier.put({"id": "e1"})
    deadline = time.monotonic() + 10
    while courier.dropped == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (courier.attempts, courier.dropped, courier.delivered) == (1, 1, 0)
    assert hook.posts == []
