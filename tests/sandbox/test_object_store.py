"""Swift v1 of the sandbox (catalog type ``object-store``) through a keystoneauth session and
plain ``requests``: account, containers and objects with their metadata, a non-empty container's
409, versioned writes, project scoping, and TempURLs signed as Swift's tempurl middleware checks
them (HMAC-SHA1 and SHA256; a wrong signature is 401)."""
from __future__ import annotations

import hashlib
import hmac
import time
import uuid

import pytest
import requests

SWIFT = {"service_type": "object-store", "interface": "public"}


def _req(conn, method, path, **kw):
    return conn.session.request(path, method, endpoint_filter=SWIFT, raise_exc=False, **kw)


def _name() -> str:
    return f"c-{uuid.uuid4().hex[:8]}"


def _temp_url(conn, path, method, key, digest=hashlib.sha1, expires=None):
    expires = int(expires or time.time() + 60)
    sig = hmac.new(key.encode(), f"{method}\n{expires}\n{path}".encode(), digest).hexdigest()
    base = conn.session.get_endpoint(**SWIFT).split("/v1/")[0]
    return f"{base}{path}?temp_url_sig={sig}&temp_url_expires={expires}"


@pytest.mark.usefixtures("no_leaks")
def test_containers_objects_and_metadata(conn):
    c = _name()
    assert _req(conn, "PUT", f"/{c}", headers={"X-Container-Meta-Web-Index": "index.html",
                                                "X-Container-Read": ".r:*"}).status_code == 201
    assert _req(conn, "PUT", f"/{c}").status_code == 202
    assert _req(conn, "PUT", f"/{c}/a/b.txt", data=b"hello",
                headers={"X-Object-Meta-Color": "blue"}).status_code == 201
    head = _req(conn, "HEAD", f"/{c}")
    assert head.status_code == 204
    assert head.headers["X-Container-Object-Count"] == "1"
    assert head.headers["X-Container-Bytes-Used"] == "5"
    assert head.headers["X-Container-Meta-Web-Index"] == "index.html"
    assert head.headers["X-Container-Read"] == ".r:*"
    listing = _req(conn, "GET", f"/{c}", params={"format": "json"}).json()
    assert [(o["name"], o["bytes"], o["hash"]) for o in listing] == \
        [("a/b.txt", 5, hashlib.md5(b"hello").hexdigest())]
    got = _req(conn, "GET", f"/{c}/a/b.txt")
    assert got.content == b"hello" and got.headers["X-Object-Meta-Color"] == "blue"
    names = [x["name"] for x in _req(conn, "GET", "", params={"format": "json"}).json()]
    assert c in names
    # a public-read container's objects are readable without a token
    public = conn.session.get_endpoint(**SWIFT) + f"/{c}/a/b.txt"
    assert requests.get(public, timeout=5).content == b"hello"
    # not empty: Swift's 409, with its body
    conflict = _req(conn, "DELETE", f"/{c}")
    assert conflict.status_code == 409
    assert "There was a conflict when trying to complete your request." in conflict.text
    assert _req(conn, "DELETE", f"/{c}/a/b.txt").status_code == 204
    assert _req(conn, "GET", f"/{c}/a/b.txt").status_code == 404
    assert _req(conn, "DELETE", f"/{c}").status_code == 204
    assert _req(conn, "HEAD", f"/{c}").status_code == 404


@pytest.mark.usefixtures("no_leaks")
def test_another_project_cannot_reach_the_account(conn, demo_conn):
    c = _name()
    _req(conn, "PUT", f"/{c}")
    admin_account = conn.session.get_endpoint(**SWIFT)
    token = demo_conn.session.get_token()
    resp = requests.get(f"{admin_account}/{c}", headers={"X-Auth-Token": token}, timeout=5)
    assert resp.status_code == 403
    assert requests.get(f"{admin_account}/{c}", timeout=5).status_code == 401
    _req(conn, "DELETE", f"/{c}")


@pytest.mark.usefixtures("no_leaks")
def test_versioned_writes_keep_each_copy_and_delete_restores_them(conn):
    c = _name()
    _req(conn, "PUT", f"/{c}", headers={"X-Versions-Location": c})
    for n in range(3):
        _req(conn, "PUT", f"/{c}/sig", data=f"v{n}".encode())
    names = [o["name"] for o in _req(conn, "GET", f"/{c}", params={"format": "json"}).json()]
    assert len(names) == 3 and "sig" in names
    assert all(n.startswith("003sig/") for n in names if n != "sig")
    seen = []
    while _req(conn, "GET", f"/{c}/sig").status_code == 200:
        seen.append(_req(conn, "GET", f"/{c}/sig").text)
        _req(conn, "DELETE", f"/{c}/sig")
    assert seen == ["v2", "v1", "v0"]
    assert _req(conn, "DELETE", f"/{c}").status_code == 204


@pytest.mark.usefixtures("no_leaks")
@pytest.mark.parametrize("digest", [hashlib.sha1, hashlib.sha256])
def test_temp_url_put_without_a_token(conn, digest):
    c, key = _name(), f"k-{uuid.uuid4().hex}"
    assert _req(conn, "POST", "", headers={"X-Account-Meta-Temp-URL-Key": key}).status_code == 204
    assert _req(conn, "HEAD", "").headers["X-Account-Meta-Temp-Url-Key"] == key
    _req(conn, "PUT", f"/{c}")
    account = "/v1/" + conn.session.get_endpoint(**SWIFT).split("/v1/")[1]
    path = f"{account}/{c}/signal"
    ok = requests.put(_temp_url(conn, path, "PUT", key, digest), data=b'{"status": "SUCCESS"}',
                      timeout=5)
    assert ok.status_code == 201
    assert _req(conn, "GET", f"/{c}/signal").json() == {"status": "SUCCESS"}
    bad = requests.put(_temp_url(conn, path, "PUT", "wrong-key", digest), data=b"x", timeout=5)
    assert bad.status_code == 401 and "Temp URL invalid" in bad.text
    # signed for GET, used for PUT; expired
    assert requests.put(_temp_url(conn, path, "GET", key, digest), data=b"x",
                        timeout=5).status_code == 401
    assert requests.put(_temp_url(conn, path, "PUT", key, digest, time.time() - 10),
                        data=b"x", timeout=5).status_code == 401
    assert requests.get(_temp_url(conn, path, "GET", key, digest), timeout=5).json() == \
        {"status": "SUCCESS"}
    _req(conn, "DELETE", f"/{c}/signal")
    _req(conn, "DELETE", f"/{c}")


def test_the_catalog_names_the_object_store_per_project(conn, demo_conn):
    ours, theirs = conn.session.get_endpoint(**SWIFT), demo_conn.session.get_endpoint(**SWIFT)
    assert ours.split("/v1/AUTH_")[1] == conn.current_project_id
    assert theirs.split("/v1/AUTH_")[1] == demo_conn.current_project_id
