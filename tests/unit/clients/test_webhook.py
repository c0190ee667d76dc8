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


def _certificate(tmp_path: Any, name: str) -> tuple[str, str]:
    """A self-signed certificate for ``name`` (its own CA): (cert file, key file)."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_file), str(key_file)


def test_https_checks_the_certificate_against_the_urls_host(tmp_path: Any, dns: dict):
    """Connected to the checked address, the TLS handshake still names the URL's host (SNI)
    and the certificate must be valid for it."""
    import ssl
    cert, key = _certificate(tmp_path, "hook.invalid")
    h = Hook()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    h.server.socket = context.wrap_socket(h.server.socket, server_side=True)
    dns["table"]["hook.invalid"] = "127.0.0.1"
    dns["table"]["other.invalid"] = "127.0.0.1"
    try:
        assert webhook.post_json(f"https://hook.invalid:{h.port}/x", {"id": "tls"}, {}, 5,
                                 allow_private=True, ca_certs=cert) == 200
        assert [b for _, b in h.posts] == [{"id": "tls"}]
        import urllib3
        with pytest.raises(urllib3.exceptions.HTTPError):  # the certificate names another host
            webhook.post_json(f"https://other.invalid:{h.port}/x", {}, {}, 5,
                              allow_private=True, ca_certs=cert)
        with pytest.raises(urllib3.exceptions.HTTPError):  # not signed by a CA in the bundle
            webhook.post_json(f"https://hook.invalid:{h.port}/x", {}, {}, 5, allow_private=True)
        assert len(h.posts) == 1
    finally:
        h.close()
