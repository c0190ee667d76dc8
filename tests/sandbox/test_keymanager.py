"""Barbican v1 of the sandbox (catalog type ``key-manager``) through openstacksdk's
``key_manager`` proxy and raw requests: secrets and their payloads, metadata, containers with
consumers, asynchronous orders that make real keys, project scoping and Barbican's errors."""
from __future__ import annotations

import base64

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from tests.sandbox.conftest import wait_for

pytestmark = pytest.mark.usefixtures("no_leaks")


def _km(conn):
    return conn.key_manager


def _id(ref):
    return ref.rstrip("/").rsplit("/", 1)[1]


def _post(conn, path, json):
    return _km(conn).post(path, json=json, raise_exc=False)


def _order(conn, body):
    resp = _post(conn, "/orders", body)
    assert resp.status_code == 202, resp.text
    ref = resp.json()["order_ref"]
    assert _km(conn).get(f"/orders/{_id(ref)}").json()["status"] == "PENDING"
    return wait_for(lambda: (o := _km(conn).get(f"/orders/{_id(ref)}").json())["status"] != "PENDING" and o)


def _payload(conn, ref):
    return _km(conn).get(f"/secrets/{_id(ref)}/payload", headers={"Accept": "*/*"}).content


def _delete_container(conn, ref):
    body = _km(conn).get(f"/containers/{_id(ref)}").json()
    for s in body["secret_refs"]:
        _km(conn).delete(f"/secrets/{_id(s['secret_ref'])}")
    _km(conn).delete(f"/containers/{_id(ref)}")


def test_discovery_finds_v1_and_a_secret_round_trips_its_payload(conn):
    assert _km(conn).get_endpoint().rstrip("/").endswith("/key-manager/v1")
    resp = _post(conn, "/secrets", {"name": "s1", "payload": "top secret",
                                    "payload_content_type": "text/plain"})
    assert resp.status_code == 201 and resp.headers["Location"] == resp.json()["secret_ref"]
    ref = resp.json()["secret_ref"]
    meta = _km(conn).get(f"/secrets/{_id(ref)}").json()
    assert meta["status"] == "ACTIVE" and meta["secret_type"] == "opaque"
    assert meta["content_types"] == {"default": "text/plain"} and meta["secret_ref"] == ref
    assert _payload(conn, ref) == b"top secret"
    wrong = _km(conn).get(f"/secrets/{_id(ref)}/payload",
                          headers={"Accept": "application/octet-stream"}, raise_exc=False)
    assert wrong.status_code == 406
    assert _km(conn).delete(f"/secrets/{_id(ref)}").status_code == 204
    gone = _km(conn).get(f"/secrets/{_id(ref)}", raise_exc=False)
    assert gone.status_code == 404
    assert gone.json() == {"code": 404, "title": "Not Found", "description": "Secret not found."}


def test_binary_payload_metadata_and_a_two_step_secret(conn):
    raw = bytes(range(16))
    ref = _post(conn, "/secrets", {"payload": base64.b64encode(raw).decode(),
                                   "payload_content_type": "application/octet-stream",
                                   "payload_content_encoding": "base64"}).json()["secret_ref"]
    assert _payload(conn, ref) == raw
    assert _km(conn).put(f"/secrets/{_id(ref)}/metadata",
                         json={"metadata": {"Color": "red"}}).status_code == 201
    assert _km(conn).get(f"/secrets/{_id(ref)}/metadata").json() == {"metadata": {"color": "red"}}
    assert _post(conn, f"/secrets/{_id(ref)}/metadata", {"key": "color", "value": "x"}).status_code == 409
    empty = _post(conn, "/secrets", {"name": "later"}).json()["secret_ref"]
    assert _km(conn).get(f"/secrets/{_id(empty)}/payload", raise_exc=False).status_code == 404
    put = _km(conn).put(f"/secrets/{_id(empty)}", data=b"late",
                        headers={"Content-Type": "text/plain"})
    assert put.status_code == 204 and _payload(conn, empty) == b"late"
    again = _km(conn).put(f"/secrets/{_id(empty)}", data=b"x", headers={"Content-Type": "text/plain"},
                          raise_exc=False)
    assert again.status_code == 409
    for r in (ref, empty):
        _km(conn).delete(f"/secrets/{_id(r)}")


@pytest.mark.parametrize("body, fragment", [
    ({"payload": "x"}, "'payload_content_type' must also be supplied"),
    ({"payload": "", "payload_content_type": "text/plain"}, "must be non empty"),
    ({"payload": "@@", "payload_content_type": "application/octet-stream",
      "payload_content_encoding": "base64"}, "Problem decoding payload"),
    ({"name": "x", "expiration": "2001-01-01T00:00:00Z"}, "'expiration' is before current time"),
])
def test_bad_secrets_are_400_with_barbicans_wording(conn, body, fragment):
    resp = _post(conn, "/secrets", body)
    assert resp.status_code == 400 and resp.json()["title"] == "Bad Request"
    assert fragment in resp.json()["description"]


def test_containers_check_names_and_secrets_and_keep_consumers(conn):
    a = _post(conn, "/secrets", {"payload": "a", "payload_content_type": "text/plain"}).json()["secret_ref"]
    b = _post(conn, "/secrets", {"payload": "b", "payload_content_type": "text/plain"}).json()["secret_ref"]
    bad = _post(conn, "/containers", {"type": "rsa", "secret_refs": [{"name": "x", "secret_ref": a}]})
    assert bad.status_code == 400 and "RSA type" in bad.json()["description"]
    missing = _post(conn, "/containers", {"type": "generic", "secret_refs": [
        {"name": "x", "secret_ref": a.rsplit("/", 1)[0] + "/00000000-0000-4000-8000-999999999999"}]})
    assert missing.status_code == 404
    ref = _post(conn, "/containers", {"type": "rsa", "name": "pair", "secret_refs": [
        {"name": "private_key", "secret_ref": a}, {"name": "public_key", "secret_ref": b}]}).json()["container_ref"]
    shown = _km(conn).get(f"/containers/{_id(ref)}").json()
    assert shown["type"] == "rsa" and shown["status"] == "ACTIVE" and shown["consumers"] == []
    assert {s["name"]: s["secret_ref"] for s in shown["secret_refs"]} == {"private_key": a, "public_key": b}
    consumer = {"name": "lb", "URL": "http://lb/1"}
    assert _post(conn, f"/containers/{_id(ref)}/consumers", consumer).json()["consumers"] == [consumer]
    assert _km(conn).get(f"/containers/{_id(ref)}/consumers").json() == {"consumers": [consumer], "total": 1}
    removed = _km(conn).delete(f"/containers/{_id(ref)}/consumers", json=consumer)
    assert removed.status_code == 200 and removed.json()["consumers"] == []
    _delete_container(conn, ref)


def test_another_projects_secret_is_404(conn, demo_conn):
    ref = _post(conn, "/secrets", {"payload": "mine", "payload_content_type": "text/plain"}).json()["secret_ref"]
    assert _km(demo_conn).get(f"/secrets/{_id(ref)}", raise_exc=False).status_code == 404
    assert _id(ref) not in str(_km(demo_conn).get("/secrets").json())
    _km(conn).delete(f"/secrets/{_id(ref)}")


def test_a_key_order_makes_a_symmetric_key_after_pending(conn):
    order = _order(conn, {"type": "key", "meta": {"name": "k", "algorithm": "aes", "bit_length": 256,
                                                   "mode": "cbc"}})
    assert order["status"] == "ACTIVE"
    secret = _km(conn).get(f"/secrets/{_id(order['secret_ref'])}").json()
    assert (secret["secret_type"], secret["algorithm"], secret["bit_length"]) == ("symmetric", "aes", 256)
    assert len(_payload(conn, order["secret_ref"])) == 32
    assert _km(conn).delete(f"/orders/{_id(order['order_ref'])}").status_code == 204
    # the key outlives its order, as in Barbican
    assert _km(conn).get(f"/secrets/{_id(order['secret_ref'])}").status_code == 200
    _km(conn).delete(f"/secrets/{_id(order['secret_ref'])}")


def test_an_unsupported_key_length_ends_the_order_in_error(conn):
    order = _order(conn, {"type": "key", "meta": {"algorithm": "aes", "bit_length": 264}})
    assert order["status"] == "ERROR" and order["error_status_code"] == "400"
    assert "bit-length '264'" in order["error_reason"]
    _km(conn).delete(f"/orders/{_id(order['order_ref'])}")


def test_asymmetric_and_certificate_orders_make_real_pem(conn):
    order = _order(conn, {"type": "asymmetric", "meta": {"name": "pair", "algorithm": "rsa",
                                                          "bit_length": 2048}})
    pair = _km(conn).get(f"/containers/{_id(order['container_ref'])}").json()
    refs = {s["name"]: s["secret_ref"] for s in pair["secret_refs"]}
    key = serialization.load_pem_private_key(_payload(conn, refs["private_key"]), None)
    assert key.key_size == 2048
    assert b"BEGIN PUBLIC KEY" in _payload(conn, refs["public_key"])
    cert_order = _order(conn, {"type": "certificate", "meta": {
        "request_type": "stored-key", "subject_dn": "CN=www.example.com",
        "source_container_ref": order["container_ref"]}})
    assert cert_order["status"] == "ACTIVE", cert_order
    certs = {s["name"]: s["secret_ref"] for s in
             _km(conn).get(f"/containers/{_id(cert_order['container_ref'])}").json()["secret_refs"]}
    cert = x509.load_pem_x509_certificate(_payload(conn, certs["certificate"]))
    assert cert.subject.rfc4514_string() == "CN=www.example.com"
    assert cert.public_key().public_numbers() == key.public_key().public_numbers()
    assert certs["private_key"] == refs["private_key"]
    custom = _order(conn, {"type": "certificate", "meta": {"request_type": "custom"}})
    assert custom["status"] == "ERROR"
    for o in (order, cert_order, custom):
        _km(conn).delete(f"/orders/{_id(o['order_ref'])}")
    _km(conn).delete(f"/secrets/{_id(certs['certificate'])}")
    _km(conn).delete(f"/secrets/{_id(certs['intermediates'])}")
    _km(conn).delete(f"/containers/{_id(cert_order['container_ref'])}")
    _delete_container(conn, order["container_ref"])


def test_a_bad_order_is_400(conn):
    resp = _post(conn, "/orders", {"type": "key", "meta": {"algorithm": "aes"}})
    assert resp.status_code == 400 and "bit_length" in resp.json()["description"]
    assert _post(conn, "/orders", {"type": "nope", "meta": {}}).status_code == 400


def test_an_injected_fault_answers_in_barbicans_shape(conn, faults):
    faults({"match": "keymanager.POST.secrets", "status": 500, "message": "busy", "times": 1})
    resp = _post(conn, "/secrets", {"name": "x"})
    assert resp.status_code == 500
    assert resp.json() == {"code": 500, "title": "Internal Server Error", "description": "busy"}
