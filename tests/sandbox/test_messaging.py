"""Zaqar v2 of the sandbox through openstacksdk's ``message`` proxy (catalog type ``messaging``)
and its raw session: queues, post, list (echo), claim, delete, as Zaqar's v2 API reference."""
from __future__ import annotations

import uuid

import pytest

MESSAGING = {"service_type": "messaging", "interface": "public"}


def _queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


def _get(conn, path, client="c1", **kw):
    return conn.session.get(f"/v2{path}", endpoint_filter=MESSAGING,
                            headers={"Client-ID": client}, raise_exc=False, **kw)


def test_the_catalog_names_messaging_and_discovery_finds_v2(conn):
    assert conn.message.get_endpoint().rstrip("/").endswith("/messaging/v2")


def test_post_creates_the_queue_and_other_clients_list_the_messages(conn):
    q = _queue()
    hrefs = conn.message.post_message(q, [{"body": {"n": 1}, "ttl": 300}, {"body": "two"}])
    assert len(hrefs) == 2 and all(h.startswith(f"/v2/queues/{q}/messages/") for h in hrefs)
    assert q in [x.name for x in conn.message.queues()]
    # the poster's own messages are hidden unless echo=true (Zaqar's default)
    other = _get(conn, f"/queues/{q}/messages", client="someone-else").json()["messages"]
    assert [m["body"] for m in other] == [{"n": 1}, "two"]
    assert other[0]["ttl"] == 300 and other[1]["ttl"] == 3600
    echoed = _get(conn, f"/queues/{q}/messages", client="c1", params={"echo": "true"}).json()
    assert len(echoed["messages"]) == 2


def test_a_message_request_without_client_id_is_400(conn):
    q = _queue()
    resp = conn.session.get(f"/v2/queues/{q}/messages", endpoint_filter=MESSAGING, raise_exc=False)
    assert resp.status_code == 400 and "Client-ID" in resp.json()["description"]


def test_claim_hides_messages_until_deleted_with_the_claim(conn):
    q = _queue()
    conn.message.post_message(q, [{"body": i} for i in range(3)])
    resp = conn.session.post(f"/v2/queues/{q}/claims", endpoint_filter=MESSAGING,
                             headers={"Client-ID": "x"}, params={"limit": 2},
                             json={"ttl": 120, "grace": 60})
    assert resp.status_code == 201
    claim_id = resp.headers["Location"].split("claims/")[1]
    claimed = resp.json()["messages"]
    assert [m["body"] for m in claimed] == [0, 1]
    shown = _get(conn, f"/queues/{q}/claims/{claim_id}", client="x").json()
    assert shown["ttl"] == 120 and len(shown["messages"]) == 2
    left = _get(conn, f"/queues/{q}/messages", client="x").json()["messages"]
    assert [m["body"] for m in left] == [2]
    mid = claimed[0]["href"].rsplit("/", 1)[-1]
    denied = conn.session.delete(f"/v2/queues/{q}/messages/{mid}", endpoint_filter=MESSAGING,
                                 headers={"Client-ID": "x"}, raise_exc=False)
    assert denied.status_code == 403
    ok = conn.session.delete(f"/v2/queues/{q}/messages/{mid}", endpoint_filter=MESSAGING,
                             headers={"Client-ID": "x"}, params={"claim_id": claim_id},
                             raise_exc=False)
    assert ok.status_code == 204
    conn.message.delete_claim(q, claim_id)
    after = _get(conn, f"/queues/{q}/messages", client="x").json()["messages"]
    assert sorted(m["body"] for m in after) == [1, 2]


def test_claiming_an_empty_queue_is_204_and_queues_delete(conn):
    q = _queue()
    resp = conn.session.post(f"/v2/queues/{q}/claims", endpoint_filter=MESSAGING,
                             headers={"Client-ID": "x"}, json={"ttl": 60}, raise_exc=False)
    assert resp.status_code == 204
    put = conn.session.put(f"/v2/queues/{q}", endpoint_filter=MESSAGING,
                           headers={"Client-ID": "x"}, json={"_max_messages_post_size": 65536})
    assert put.status_code == 201
    again = conn.session.put(f"/v2/queues/{q}", endpoint_filter=MESSAGING,
                             headers={"Client-ID": "x"}, json={})
    assert again.status_code == 204
    conn.message.delete_queue(q)
    assert q not in [x.name for x in conn.message.queues()]


@pytest.mark.parametrize("ttl", [10, 2_000_000, "60"])
def test_a_ttl_out_of_range_is_400(conn, ttl):
    resp = conn.session.post(f"/v2/queues/{_queue()}/messages", endpoint_filter=MESSAGING,
                             headers={"Client-ID": "x"},
                             json={"messages": [{"body": 1, "ttl": ttl}]}, raise_exc=False)
    assert resp.status_code == 400 and "TTL" in resp.json()["description"]
