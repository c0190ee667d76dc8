"""Zaqar v2 subscriptions and pre-signed queue URLs of the sandbox: subscribe, update in place,
unsubscribe; a posted message recorded as each subscription's notification; a URL shared with
``POST /queues/{q}/share`` serves a request without a token, and a bad signature is 403."""
from __future__ import annotations

import uuid

import pytest
import requests

MESSAGING = {"service_type": "messaging", "interface": "public"}


def _call(conn, method, path, client="c1", **kw):
    return conn.session.request(f"/v2{path}", method, endpoint_filter=MESSAGING,
                                headers={"Client-ID": client}, raise_exc=False, **kw)


def _queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


@pytest.mark.usefixtures("no_leaks")
def test_subscriptions_are_created_updated_listed_and_deleted(sandbox, conn, demo_conn):
    q = _queue()
    _call(conn, "PUT", f"/queues/{q}")
    made = _call(conn, "POST", f"/queues/{q}/subscriptions",
                 json={"subscriber": "mailto:ops@example.com", "ttl": 3600,
                       "options": {"from": "me"}})
    assert made.status_code == 201
    sid = made.json()["subscription_id"]
    again = _call(conn, "POST", f"/queues/{q}/subscriptions",
                  json={"subscriber": "mailto:ops@example.com"})
    assert again.status_code == 409
    bad = _call(conn, "POST", f"/queues/{q}/subscriptions", json={"subscriber": "ftp://x"})
    assert bad.status_code == 400 and "subscriber type" in bad.json()["description"]
    assert _call(conn, "PATCH", f"/queues/{q}/subscriptions/{sid}",
                 json={"ttl": 7200, "subscriber": "https://example.com/hook"}).status_code == 204
    shown = _call(conn, "GET", f"/queues/{q}/subscriptions/{sid}").json()
    assert (shown["source"], shown["subscriber"], shown["ttl"], shown["options"]) == \
        (q, "https://example.com/hook", 7200, {"from": "me"})
    # another project does not see it
    assert _call(demo_conn, "GET", f"/queues/{q}/subscriptions/{sid}").status_code == 404
    # a posted message is recorded as the notification the subscriber would get
    _call(conn, "POST", f"/queues/{q}/messages", json={"messages": [{"body": {"n": 1}}]})
    assert [s["id"] for s in _call(conn, "GET", f"/queues/{q}/subscriptions").json()
            ["subscriptions"]] == [sid]
    store = sandbox.app.extensions["sandbox"].store
    assert store.get("zaqar_subscriptions", sid)["deliveries"] == \
        [{"subscriber": "https://example.com/hook", "body": {"n": 1}}]
    assert _call(conn, "DELETE", f"/queues/{q}/subscriptions/{sid}").status_code == 204
    assert _call(conn, "GET", f"/queues/{q}/subscriptions/{sid}").status_code == 404
    _call(conn, "DELETE", f"/queues/{q}")


@pytest.mark.usefixtures("no_leaks")
def test_a_pre_signed_url_serves_without_a_token(conn):
    q = _queue()
    _call(conn, "POST", f"/queues/{q}/messages", json={"messages": [{"body": "hi"}]})
    shared = _call(conn, "POST", f"/queues/{q}/share",
                   json={"methods": ["GET", "POST"], "paths": ["messages"]}).json()
    assert shared["paths"] == [f"/v2/queues/{q}/messages"]
    assert shared["methods"] == ["GET", "POST"]
    assert shared["project"] == conn.current_project_id
    assert len(shared["signature"]) == 64
    url = conn.session.get_endpoint(**MESSAGING).rstrip("/") + f"/v2/queues/{q}/messages"
    headers = {"URL-Signature": shared["signature"], "URL-Expires": shared["expires"],
               "URL-Methods": ",".join(shared["methods"]), "URL-Paths": ",".join(shared["paths"]),
               "X-Project-ID": shared["project"], "Client-ID": str(uuid.uuid4())}
    got = requests.get(url, headers=headers, timeout=5)
    assert got.status_code == 200 and [m["body"] for m in got.json()["messages"]] == ["hi"]
    forged = requests.get(url, headers={**headers, "URL-Signature": "0" * 64}, timeout=5)
    assert forged.status_code == 403
    wider = requests.get(url, headers={**headers, "URL-Methods": "GET,POST,DELETE"}, timeout=5)
    assert wider.status_code == 403
    assert requests.delete(url + "?pop=1", headers=headers, timeout=5).status_code == 403
    assert requests.get(url, headers={"Client-ID": "x"}, timeout=5).status_code == 401
    bad = _call(conn, "POST", f"/queues/{q}/share", json={"paths": ["elsewhere"]})
    assert bad.status_code == 400
    _call(conn, "DELETE", f"/queues/{q}")
