"""Zaqar v2 subscriptions and pre-signed queue URLs for the sandbox (under ``/messaging/v2``),
beside :mod:`app.sandbox.messaging`.

:func:`authenticate` serves a request that has no token but Zaqar's signed headers
(``URL-Signature``, ``URL-Expires``, ``URL-Methods``, ``URL-Paths``, ``X-Project-ID``) when the
signature holds, the URL has not expired and the request's method and path are among those
signed; otherwise 403.

More in docs/code/sandbox.md (app.sandbox.messaging_share).
"""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
import uuid
from typing import Any

from flask import Blueprint, g, request

from app.sandbox import auth, messaging
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj, Store

bp = Blueprint("messaging_share", __name__)
bp.register_error_handler(SandboxError, messaging._error)
SUBSCRIPTIONS = messaging.SUBSCRIPTIONS
SUBSCRIBER_TYPES = ("http", "https", "mailto", "trust+http", "trust+https")
VALID_PATHS = ("messages", "subscriptions", "claims")
VALID_METHODS = ("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH")
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"


def _key(st: Store) -> bytes:
    key = st.meta.get("zaqar_signing_key")
    if not key:
        key = st.meta["zaqar_signing_key"] = secrets.token_hex(16)
    return str(key).encode()


def sign(st: Store, paths: list[str], methods: list[str], project: str, expires: str) -> str:
    """Zaqar's signature of a pre-signed URL (HMAC-SHA256, hex)."""
    text = f"{','.join(paths)}\\n{','.join(methods)}\\n{project}\\n{expires}"
    return hmac.new(_key(st), text.encode(), hashlib.sha256).hexdigest()


def authenticate(st: Store) -> auth.Ctx:
    """A token's caller (:func:`auth.authenticate`), or a pre-signed URL's project.

    :raises SandboxError: 401 without either; 403 for a signature that does not hold, an
        expired URL, or a method or path it was not signed for."""
    signature = request.headers.get("URL-Signature")
    if request.headers.get("X-Auth-Token") or not signature:
        return auth.authenticate(st)
    project = request.headers.get("X-Project-ID", "")
    expires = request.headers.get("URL-Expires", "")
    methods = [m for m in request.headers.get("URL-Methods", "").split(",") if m]
    paths = [p for p in request.headers.get("URL-Paths", "").split(",") if p]
    try:
        when = dt.datetime.strptime(expires, DATE_FORMAT).replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        when = 0.0
    path = request.path.removeprefix("/messaging")
    if not hmac.compare_digest(sign(st, paths, methods, project, expires), signature) \
            or when < st.clock() or request.method not in methods or path not in paths:
        raise SandboxError(403, "The pre-signed URL is not valid for this request.")
    ctx = auth.Ctx(user_id="", project_id=project)
    g.ctx = ctx
    return ctx


def _project() -> str:
    return str(auth.ctx().project_id or "")


# ---- queue metadata ----------------------------------------------------------------------------
@bp.patch("/queues/<name>")
def patch_queue(name: str) -> Any:
    """Zaqar v2's queue update: a JSON patch (``application/openstack-messaging-v2.0-json-patch``)
    of ``add``/``replace``/``remove`` operations on ``/metadata/<key>``; 404 for no queue."""
    if "json-patch" not in request.headers.get("Content-Type", ""):
        raise SandboxError(400, "Content-Type must be application/openstack-messaging-v2.0-json-patch")
    queue = messaging._queue(name)
    if queue is None:
        raise SandboxError(404, f"Queue {name} does not exist.")
    ops = request.get_json(silent=True, force=True)
    if not isinstance(ops, list):
        raise SandboxError(400, "Request body must be a JSON array of operation objects.")
    meta = dict(queue["metadata"])
    for op in ops:
        path = str(op.get("path", "")) if isinstance(op, dict) else ""
        if not path.startswith("/metadata/") or op.get("op") not in ("add", "replace", "remove"):
            raise SandboxError(400, f"Invalid operation: {op}")
        key = path[len("/metadata/"):]
        if op["op"] == "remove":
            meta.pop(key, None)
        else:
            meta[key] = op.get("value")
    queue["metadata"] = meta
    store().touch()
    return reply(meta)


# ---- pre-signed URLs ---------------------------------------------------------------------------
@bp.post("/queues/<name>/share")
def share(name: str) -> Any:
    data = body(required=False)
    paths = data.get("paths") or ["messages"]
    if not isinstance(paths, list) or set(paths) - set(VALID_PATHS):
        raise SandboxError(400, f"Invalid paths: {paths}")
    methods = data.get("methods") or ["GET"]
    if not isinstance(methods, list) or set(methods) - set(VALID_METHODS):
        raise SandboxError(400, f"Invalid methods: {methods}")
    now = dt.datetime.fromtimestamp(store().clock(), dt.UTC)
    if data.get("expires"):
        try:
            when = dt.datetime.fromisoformat(str(data["expires"]))
        except ValueError:
            raise SandboxError(400, "Invalid expires value.") from None
        when = when if when.tzinfo else when.replace(tzinfo=dt.UTC)
        if when <= now:
            raise SandboxError(400, "Expiration date should be in the future.")
    else:
        when = now + dt.timedelta(days=1)
    full = sorted(f"/v2/queues/{name}/{p}" for p in paths)
    expires = when.strftime(DATE_FORMAT)
    project = _project()
    signature = sign(store(), full, sorted(methods), project, expires)
    return reply({"project": project, "paths": full, "methods": sorted(methods),
                  "expires": expires, "signature": signature})


# ---- subscriptions -----------------------------------------------------------------------------
def _valid(data: Obj, partial: bool) -> Obj:
    out: Obj = {}
    if "subscriber" in data or not partial:
        sub = data.get("subscriber")
        if not isinstance(sub, str) or sub.split(":", 1)[0] not in SUBSCRIBER_TYPES:
            raise SandboxError(400, f"The subscriber type of subscription must be supported "
                                    f"in the list {list(SUBSCRIBER_TYPES)}.")
        out["subscriber"] = sub
    if "ttl" in data or not partial:
        ttl = data.get("ttl", 3600)
        if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 60:
            raise SandboxError(400, "The TTL for a subscription must be at least 60 seconds long.")
        out["ttl"] = ttl
    if "options" in data or not partial:
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise SandboxError(400, "Options must be a dict.")
        out["options"] = options
    return out


def _subscription(queue: str, sid: str) -> Obj:
    found = store().get(SUBSCRIPTIONS, sid)
    if found is None or found["source"] != queue or found["project_id"] != _project():
        raise SandboxError(404, f"Subscription {sid} does not exist.")
    return found


def _view(s: Obj) -> Obj:
    return {"id": s["id"], "source": s["source"], "subscriber": s["subscriber"], "ttl": s["ttl"],
            "age": int(store().clock() - s["created"]), "options": s["options"],
            "confirmed": True}


@bp.post("/queues/<name>/subscriptions")
def create_subscription(name: str) -> Any:
    data = _valid(body(), partial=False)
    st = store()
    if st.find(SUBSCRIPTIONS, project_id=_project(), source=name, subscriber=data["subscriber"]):
        raise SandboxError(409, "Such subscription already exists. Subscriptions are unique "
                                "by project + queue + subscriber URI.")
    sid = uuid.uuid4().hex[:24]
    st.add(SUBSCRIPTIONS, {"id": sid, "source": name, "project_id": _project(),
                           "created": st.clock(), "deliveries": [], **data})
    return reply({"subscription_id": sid}, 201)


@bp.get("/queues/<name>/subscriptions")
def list_subscriptions(name: str) -> Any:
    subs = sorted(store().find(SUBSCRIPTIONS, project_id=_project(), source=name),
                  key=lambda s: s["created"])
    return reply({"subscriptions": [_view(s) for s in subs], "links": []})


@bp.get("/queues/<name>/subscriptions/<sid>")
def show_subscription(name: str, sid: str) -> Any:
    return reply(_view(_subscription(name, sid)))


@bp.patch("/queues/<name>/subscriptions/<sid>")
def update_subscription(name: str, sid: str) -> Any:
    sub = _subscription(name, sid)
    sub.update(_valid(body(), partial=True))
    store().touch()
    return no_content()


@bp.delete("/queues/<name>/subscriptions/<sid>")
def delete_subscription(name: str, sid: str) -> Any:
    try:
        sub = _subscription(name, sid)
    except SandboxError:
        return no_content()
    store().remove(SUBSCRIPTIONS, sub["id"])
    return no_content()

