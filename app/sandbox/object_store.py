"""Swift v1 object storage for the sandbox (catalog type ``object-store``, at the host's root as
Swift serves it: ``/v1/AUTH_<project_id>``), what Heat's Swift plugins and a template's instance
need.

More in docs/code/sandbox.md (app.sandbox.object_store).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

from flask import Blueprint, Response, g, request

from app.sandbox import auth
from app.sandbox.http import SandboxError
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("objectstore", __name__)
ACCOUNTS, CONTAINERS, OBJECTS = "swift_accounts", "swift_containers", "swift_objects"
REASONS = {400: ("Bad Request", "The server could not comply with the request since it is "
                 "either malformed or otherwise incorrect."),
           401: ("Unauthorized", "This server could not verify that you are authorized to "
                 "access the document you requested."),
           403: ("Forbidden", "Access was denied to this resource."),
           404: ("Not Found", "The resource could not be found."),
           405: ("Method Not Allowed", "The method is not allowed for this resource."),
           409: ("Conflict", "There was a conflict when trying to complete your request."),
           412: ("Precondition Failed", "A precondition for this request was not met.")}
#: container headers kept as they are (besides ``X-Container-Meta-*``)
CONTAINER_HEADERS = ("X-Container-Read", "X-Container-Write", "X-Versions-Location")
DIGESTS = {"sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
HEX_LENGTHS = {40: "sha1", 64: "sha256", 128: "sha512"}


def swift_error(status: int, text: str | None = None) -> Response:
    """Swift's error body (``swob``'s HTML; a tempurl refusal is its plain text)."""
    title, detail = REASONS.get(status, ("Error", "An error occurred."))
    body = text if text is not None else f"<html><h1>{title}</h1><p>{detail}</p></html>"
    return Response(body, status=status, content_type="text/html; charset=UTF-8")


@bp.errorhandler(SandboxError)
def _error(err: SandboxError) -> Response:
    return swift_error(err.status, err.message if err.kind == "text" else None)


# ---- auth --------------------------------------------------------------------------------------
def _now() -> float:
    return float(store().clock())


def _account(account: str, create: bool = True) -> Obj:
    st = store()
    found = st.get(ACCOUNTS, account)
    if found is None:
        found = {"id": account, "project_id": account[len("AUTH_"):], "meta": {},
                 "created": _now(), "_auto": True}
        if create:
            st.add(ACCOUNTS, found)
    return found


def _tempurl_keys(account: str, container: str) -> list[str]:
    keys = [v for k, v in _account(account, create=False)["meta"].items()
            if k.lower() in ("temp-url-key", "temp-url-key-2")]
    cont = store().get(CONTAINERS, f"{account}/{container}")
    if cont is not None:
        keys += [v for k, v in cont["meta"].items() if k.lower() in ("temp-url-key", "temp-url-key-2")]
    return [k for k in keys if k]


def _expires(text: str) -> float | None:
    try:
        return float(int(text))
    except ValueError:
        pass
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    except ValueError:
        return None


def _signature_ok(sig: str, key: str, method: str, expires: str, path: str) -> bool:
    if ":" in sig:
        algo, _, b64 = sig.partition(":")
        try:
            wanted = base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)).hex()
        except ValueError:
            return False
    else:
        algo, wanted = HEX_LENGTHS.get(len(sig), ""), sig.lower()
    digest = DIGESTS.get(algo)
    if digest is None:
        return False
    mac = hmac.new(key.encode(), f"{method}\n{expires}\n{path}".encode(), digest).hexdigest()
    return hmac.compare_digest(mac, wanted)


def _tempurl(account: str, container: str | None, obj: str | None) -> bool:
    """Serve a TempURL request (no token): True when its signature holds.

    :raises SandboxError: 401 (Swift's ``Temp URL invalid`` / ``expired``)."""
    sig, expires = request.args.get("temp_url_sig"), request.args.get("temp_url_expires")
    if not sig or not expires or not container or not obj:
        return False
    when = _expires(expires)
    if when is None or when < time.time():
        raise SandboxError(401, "401 Unauthorized: Temp URL expired\n", "text")
    methods = ("GET", "PUT", "POST") if request.method == "HEAD" else (request.method,)
    for key in _tempurl_keys(account, container):
        if any(_signature_ok(sig, key, m, expires, request.path) for m in methods):
            return True
    raise SandboxError(401, "401 Unauthorized: Temp URL invalid\n", "text")


def _public_read(account: str, container: str | None) -> bool:
    if request.method not in ("GET", "HEAD") or not container:
        return False
    cont = store().get(CONTAINERS, f"{account}/{container}")
    read = str((cont or {}).get("headers", {}).get("X-Container-Read") or "")
    return ".r:*" in [p.strip() for p in read.split(",")]


@bp.before_request
def _authenticate() -> None:
    values = request.view_args or {}
    account = str(values.get("account", ""))
    container, obj = values.get("container"), values.get("obj")
    if not account.startswith("AUTH_"):
        raise SandboxError(403, "")
    if not request.headers.get("X-Auth-Token"):
        if _tempurl(account, container, obj) or (obj and _public_read(account, container)):
            g.ctx = auth.Ctx(user_id="", project_id=account[len("AUTH_"):])
            return
        raise SandboxError(401, "")
    caller = auth.authenticate(store())
    if f"AUTH_{caller.project_id}" != account:
        raise SandboxError(403, "")


# ---- helpers -----------------------------------------------------------------------------------
def _http_date(ts: float) -> str:
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(ts))


def _meta_updates(kind: str) -> dict[str, str | None]:
    """``X-<Kind>-Meta-*`` of the request: name -> value (None: remove)."""
    out: dict[str, str | None] = {}
    prefix, remove = f"x-{kind}-meta-", f"x-remove-{kind}-meta-"
    for name, value in request.headers.items():
        low = name.lower()
        if low.startswith(prefix):
            out[name[len(prefix):].title()] = value or None
        elif low.startswith(remove):
            out[name[len(remove):].title()] = None
    return out


def _apply(meta: dict[str, str], updates: dict[str, str | None]) -> None:
    for key, value in updates.items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value


def _container(account: str, name: str) -> Obj:
    found = store().get(CONTAINERS, f"{account}/{name}")
    if found is None:
        raise SandboxError(404, "")
    return found


def _objects(account: str, container: str) -> list[Obj]:
    return sorted(store().find(OBJECTS, account=account, container=container),
                  key=lambda o: o["name"])


def _listing(items: list[Obj], rows: Any) -> Response:
    prefix, marker = request.args.get("prefix", ""), request.args.get("marker", "")
    chosen = [i for i in items if i["name"].startswith(prefix) and i["name"] > marker]
    limit = request.args.get("limit")
    if limit and limit.isdigit():
        chosen = chosen[:int(limit)]
    fmt = request.args.get("format", "")
    if "json" in fmt or "json" in request.headers.get("Accept", ""):
        return Response(json.dumps([rows(i) for i in chosen]), 200,
                        content_type="application/json; charset=utf-8")
    if not chosen:
        return Response(status=204)
    return Response("".join(i["name"] + "\n" for i in chosen), 200,
                    content_type="text/plain; charset=utf-8")


def _with_headers(resp: Response, headers: dict[str, Any]) -> Response:
    for key, value in headers.items():
        resp.headers[key] = str(value)
    return resp


# ---- account -----------------------------------------------------------------------------------
def _account_headers(account: str) -> dict[str, Any]:
    conts = store().find(CONTAINERS, account=account)
    objs = store().find(OBJECTS, account=account)
    out: dict[str, Any] = {"X-Account-Container-Count": len(conts),
                           "X-Account-Object-Count": len(objs),
                           "X-Account-Bytes-Used": sum(o["bytes"] for o in objs),
                           "X-Timestamp": f"{_account(account, create=False)['created']:.5f}"}
    for key, value in _account(account, create=False)["meta"].items():
        out[f"X-Account-Meta-{key}"] = value
    return out


@bp.route("/<account>", methods=["GET", "HEAD"])
@bp.route("/<account>/", methods=["GET", "HEAD"])
def show_account(account: str) -> Response:
    headers = _account_headers(account)
    if request.method == "HEAD":
        return _with_headers(Response(status=204), headers)
    conts = sorted(store().find(CONTAINERS, account=account), key=lambda c: c["name"])
    def row(c: Obj) -> Obj:
        objs = _objects(account, c["name"])
        return {"name": c["name"], "count": len(objs), "bytes": sum(o["bytes"] for o in objs),
                "last_modified": time.strftime("%Y-%m-%dT%H:%M:%S.000000",
                                               time.gmtime(c["created"]))}
    return _with_headers(_listing(conts, row), headers)


@bp.post("/<account>")
@bp.post("/<account>/")
def post_account(account: str) -> Response:
    _apply(_account(account)["meta"], _meta_updates("account"))
    store().touch()
    return Response(status=204)


# ---- containers --------------------------------------------------------------------------------
def _container_headers(account: str, cont: Obj) -> dict[str, Any]:
    objs = _objects(account, cont["name"])
    out: dict[str, Any] = {"X-Container-Object-Count": len(objs),
                           "X-Container-Bytes-Used": sum(o["bytes"] for o in objs),
                           "X-Timestamp": f"{cont['created']:.5f}",
                           "X-Storage-Policy": "Policy-0"}
    out.update({k: v for k, v in cont["headers"].items() if v})
    for key, value in cont["meta"].items():
        out[f"X-Container-Meta-{key}"] = value
    return out


def _set_container_headers(cont: Obj) -> None:
    _apply(cont["meta"], _meta_updates("container"))
    for name in CONTAINER_HEADERS:
        if name in request.headers:
            cont["headers"][name] = request.headers[name]
        if f"X-Remove-{name[2:]}" in request.headers:
            cont["headers"].pop(name, None)


@bp.put("/<account>/<container>")
def put_container(account: str, container: str) -> Response:
    if len(container) > 256 or "/" in container:
        raise SandboxError(400, "")
    st = store()
    _account(account)
    cont = st.get(CONTAINERS, f"{account}/{container}")
    status = 202
    if cont is None:
        cont = st.add(CONTAINERS, {"id": f"{account}/{container}", "name": container,
                                   "account": account, "project_id": account[len("AUTH_"):],
                                   "meta": {}, "headers": {}, "created": _now()})
        status = 201
    _set_container_headers(cont)
    st.touch()
    return Response(status=status)


@bp.route("/<account>/<container>", methods=["GET", "HEAD"])
@bp.route("/<account>/<container>/", methods=["GET", "HEAD"])
def show_container(account: str, container: str) -> Response:
    cont = _container(account, container)
    headers = _container_headers(account, cont)
    if request.method == "HEAD":
        return _with_headers(Response(status=204), headers)
    def row(o: Obj) -> Obj:
        return {"name": o["name"], "hash": o["etag"], "bytes": o["bytes"],
                "content_type": o["content_type"],
                "last_modified": time.strftime("%Y-%m-%dT%H:%M:%S.000000",
                                               time.gmtime(o["modified"]))}
    return _with_headers(_listing(_objects(account, container), row), headers)


@bp.post("/<account>/<container>")
def post_container(account: str, container: str) -> Response:
    _set_container_headers(_container(account, container))
    store().touch()
    return Response(status=204)


@bp.delete("/<account>/<container>")
def delete_container(account: str, container: str) -> Response:
    cont = _container(account, container)
    if _objects(account, container):
        raise SandboxError(409, "")
    store().remove(CONTAINERS, cont["id"])
    return Response(status=204)


# ---- objects -----------------------------------------------------------------------------------
def _object(account: str, container: str, name: str) -> Obj:
    found = store().get(OBJECTS, f"{account}/{container}/{name}")
    if found is None:
        raise SandboxError(404, "")
    return found


def _keep_version(account: str, cont: Obj, old: Obj) -> None:
    """Swift's versioned writes: the replaced copy goes to the versions container."""
    target = str(cont["headers"].get("X-Versions-Location") or "")
    if not target or store().get(CONTAINERS, f"{account}/{target}") is None:
        return
    name = f"{len(old['name']):03x}{old['name']}/{old['modified']:.5f}"
    store().add(OBJECTS, {**old, "id": f"{account}/{target}/{name}", "container": target,
                          "name": name})


@bp.put("/<account>/<container>/<path:obj>")
def put_object(account: str, container: str, obj: str) -> Response:
    cont = _container(account, container)
    st, data = store(), request.get_data()
    key = f"{account}/{container}/{obj}"
    old = st.get(OBJECTS, key)
    if old is not None:
        _keep_version(account, cont, old)
        st.remove(OBJECTS, key)
    etag = hashlib.md5(data, usedforsecurity=False).hexdigest()
    now = max(_now(), float(old["modified"]) + 0.00001 if old else 0.0)
    meta: dict[str, str] = {}
    _apply(meta, _meta_updates("object"))
    st.add(OBJECTS, {"id": key, "account": account, "container": container, "name": obj,
                     "project_id": account[len("AUTH_"):], "data": data.decode("latin-1"),
                     "bytes": len(data), "etag": etag, "modified": now, "meta": meta,
                     "content_type": request.headers.get("Content-Type")
                     or "application/octet-stream"})
    return _with_headers(Response(status=201), {"Etag": etag,
                                                "Last-Modified": _http_date(now)})


@bp.route("/<account>/<container>/<path:obj>", methods=["GET", "HEAD"])
def get_object(account: str, container: str, obj: str) -> Response:
    o = _object(account, container, obj)
    headers = {"Etag": o["etag"], "Last-Modified": _http_date(o["modified"]),
               "X-Timestamp": f"{o['modified']:.5f}", "Content-Type": o["content_type"]}
    headers.update({f"X-Object-Meta-{k}": v for k, v in o["meta"].items()})
    resp = Response(o["data"].encode("latin-1"), 200)
    return _with_headers(resp, headers)


@bp.post("/<account>/<container>/<path:obj>")
def post_object(account: str, container: str, obj: str) -> Response:
    o = _object(account, container, obj)
    o["meta"] = {}
    _apply(o["meta"], _meta_updates("object"))
    store().touch()
    return Response(status=202)


@bp.delete("/<account>/<container>/<path:obj>")
def delete_object(account: str, container: str, obj: str) -> Response:
    """Delete; in a versioned container the newest kept copy takes the object's place (so a
    client deletes until 404 to remove every version, as Heat's SwiftSignalHandle does)."""
    o = _object(account, container, obj)
    st = store()
    st.remove(OBJECTS, o["id"])
    target = str(_container(account, container)["headers"].get("X-Versions-Location") or "")
    if target:
        kept = [v for v in _objects(account, target)
                if v["name"].startswith(f"{len(obj):03x}{obj}/")]
        if kept:
            newest = max(kept, key=lambda v: float(v["modified"]))
            st.remove(OBJECTS, newest["id"])
            st.add(OBJECTS, {**newest, "id": o["id"], "container": container, "name": obj})
    return Response(status=204)

