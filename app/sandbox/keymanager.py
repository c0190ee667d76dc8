"""Barbican v1 for the sandbox (catalog type ``key-manager``): secrets with their payloads and
user metadata, and the helpers the other Barbican modules share (owned look-ups, refs, paging).
Containers are in :mod:`app.sandbox.keymanager_containers`, orders in
:mod:`app.sandbox.keymanager_orders`.

More in docs/code/sandbox.md (app.sandbox.keymanager).
"""
from __future__ import annotations

import base64
import binascii
import datetime as _dt
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, no_content, parse_iso, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("keymanager", __name__)
discovery_bp = Blueprint("keymanager_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
SECRETS, CONTAINERS = "barbican_secrets", "barbican_containers"
CONTENT_TYPES = ("text/plain", "text/plain;charset=utf-8", "application/octet-stream",
                 "application/pkcs8", "application/pkix-cert")
SECRET_TYPES = ("symmetric", "public", "private", "passphrase", "certificate", "opaque")
#: called before every request of this blueprint (orders that came due make their objects)
SETTLERS: list[Callable[[], None]] = []


@bp.before_request
def settle_due() -> None:
    """Run the :data:`SETTLERS` (before every secrets and containers request)."""
    for settle in SETTLERS:
        settle()


def base_url() -> str:
    return request.host_url.rstrip("/") + "/key-manager/v1"


def href(kind: str, obj_id: str) -> str:
    return f"{base_url()}/{kind}/{obj_id}"


def when(ts: float | None) -> str | None:
    """Barbican's timestamps: ``2015-03-23T20:46:51+00:00``."""
    if ts is None:
        return None
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).isoformat(timespec="seconds")


def invalid(schema: str, reason: str, prop: str | None = None) -> SandboxError:
    """Barbican's ``InvalidObject``: 400 ``Provided object does not match schema ...``."""
    tail = f" Invalid property: '{prop}'" if prop else ""
    return SandboxError(400, f"Provided object does not match schema '{schema}': {reason}.{tail}")


def owned(collection: str, obj_id: str, what: str) -> Obj:
    """The caller's object. :raises SandboxError: 404 ``<What> not found.`` otherwise."""
    obj = store().get(collection, obj_id)
    if obj is None or obj.get("project_id") != auth.ctx().project_id:
        raise SandboxError(404, f"{what} not found.")
    return obj


def ref_id(ref: Any, kind: str) -> str:
    """The uuid at the end of a secret or container href (or the uuid itself)."""
    text = str(ref or "").rstrip("/")
    if f"/{kind}/" in text:
        text = text.rsplit("/", 1)[1]
    return text


def page(items: list[Obj], key: str, view: Any) -> Any:
    try:
        offset = int(request.args.get("offset", 0))
        limit = int(request.args.get("limit", 10))
    except ValueError:
        raise SandboxError(400, "offset and limit must be integers") from None
    chosen = items[offset:offset + limit]
    out: Obj = {key: [view(o) for o in chosen], "total": len(items)}
    if offset + limit < len(items):
        out["next"] = f"{base_url()}/{key}?limit={limit}&offset={offset + limit}"
    if offset > 0:
        out["previous"] = f"{base_url()}/{key}?limit={limit}&offset={max(0, offset - limit)}"
    return reply(out)


# ---- versions ---------------------------------------------------------------------------------
def _version() -> Obj:
    return {"id": "v1", "status": "CURRENT", "updated": "2015-04-28T00:00:00Z",
            "links": [{"rel": "self", "href": base_url() + "/"},
                      {"rel": "describedby", "type": "text/html",
                       "href": "https://docs.openstack.org/"}],
            "media-types": [{"base": "application/json",
                             "type": "application/vnd.openstack.key-manager-v1+json"}]}


@discovery_bp.get("/key-manager")
@discovery_bp.get("/key-manager/")
def versions() -> Any:
    return reply({"versions": {"values": [_version()]}}, 300)


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"version": _version()})


# ---- secrets ----------------------------------------------------------------------------------
def _check_payload(payload: Any, content_type: Any, encoding: Any) -> str:
    """The payload as stored (text, or base64 of the bytes for ``application/octet-stream``).

    :raises SandboxError: 400 as Barbican's secret validator."""
    if payload == "" or (payload is not None and not isinstance(payload, str)):
        raise invalid("Secret", "If 'payload' specified, must be non empty", "payload")
    if not content_type:
        raise invalid("Secret", "If 'payload' specified, 'payload_content_type' must also be "
                                "supplied", "payload_content_type")
    ctype = str(content_type).replace(" ", "").lower()
    if ctype not in CONTENT_TYPES:
        raise SandboxError(400, "Provided object does not match schema 'Secret': payload content "
                                f"type {content_type} is not supported. Invalid property: "
                                "'payload_content_type'")
    if ctype.startswith("text/plain"):
        if encoding:
            raise invalid("Secret", "payload_content_encoding is not valid for text/plain",
                          "payload_content_encoding")
        return str(payload)
    if encoding != "base64":
        raise invalid("Secret", "payload_content_encoding must be 'base64' for binary payloads",
                      "payload_content_encoding")
    try:
        base64.b64decode(str(payload), validate=True)
    except (binascii.Error, ValueError):
        raise SandboxError(400, "Problem decoding payload") from None
    return str(payload)


def owner_of(owner: tuple[str, str] | None) -> tuple[str, str]:
    """``owner`` ((project id, user id)) when given, else the caller's."""
    if owner is not None:
        return owner
    return str(auth.ctx().project_id), str(auth.ctx().user_id)


def new_secret(data: Obj, *, generated: bytes | None = None,
               owner: tuple[str, str] | None = None) -> Obj:
    """Validate ``data`` (a POST body) and store the secret; ``generated``: key material an
    order made (stored as ``application/octet-stream``); ``owner``: ``(project, user)``, the
    caller's by default. :raises SandboxError: 400."""
    st, now = store(), store().clock()
    project, user = owner_of(owner)
    secret_type = data.get("secret_type") or "opaque"
    if secret_type not in SECRET_TYPES:
        raise invalid("Secret", f"{secret_type} is not a valid secret type", "secret_type")
    bits = data.get("bit_length")
    if bits is not None and (not isinstance(bits, int) or isinstance(bits, bool) or bits < 0):
        raise invalid("Secret", "bit_length must be a positive integer", "bit_length")
    expiration = data.get("expiration")
    if expiration:
        stamp = parse_iso(str(expiration))
        if stamp is None:
            raise invalid("Secret", "Invalid date for 'expiration'", "expiration")
        if stamp <= now:
            raise invalid("Secret", "'expiration' is before current time", "expiration")
    payload, ctype = None, None
    if generated is not None:
        payload, ctype = base64.b64encode(generated).decode(), "application/octet-stream"
    elif data.get("payload") is not None or data.get("payload_content_type"):
        if data.get("payload") is None:
            raise invalid("Secret", "If 'payload_content_type' specified, 'payload' must also be "
                                    "supplied", "payload")
        payload = _check_payload(data.get("payload"), data.get("payload_content_type"),
                                 data.get("payload_content_encoding"))
        ctype = str(data["payload_content_type"]).replace(" ", "").lower()
    elif data.get("payload_content_encoding"):
        raise invalid("Secret", "payload_content_encoding given without a payload",
                      "payload_content_encoding")
    secret = {"id": st.new_id(), "name": data.get("name"), "status": "ACTIVE",
              "project_id": project, "creator_id": user,
              "algorithm": data.get("algorithm"), "bit_length": bits, "mode": data.get("mode"),
              "secret_type": secret_type, "expiration": expiration, "created": now,
              "updated": now, "_payload": payload, "_content_type": ctype, "_metadata": {}}
    return st.add(SECRETS, secret)


def secret_view(s: Obj) -> Obj:
    out = {k: s.get(k) for k in ("status", "algorithm", "bit_length", "mode", "name",
                                 "secret_type", "expiration", "creator_id")}
    out.update(created=when(s["created"]), updated=when(s["updated"]),
               secret_ref=href("secrets", s["id"]))
    if s.get("_payload") is not None:
        out["content_types"] = {"default": s["_content_type"]}
    return out


def payload_response(s: Obj) -> Response:
    """The secret's payload, as its content type (Barbican's payload retrieval).

    :raises SandboxError: 404 without a payload; 406 for an Accept it cannot give."""
    if s.get("_payload") is None:
        raise SandboxError(404, "Not Found. Sorry but your secret has no payload.")
    ctype = s["_content_type"]
    accept = (request.headers.get("Accept") or "*/*").split(",")[0].split(";")[0].strip().lower()
    if accept not in ("*/*", "", ctype.split(";")[0]):
        raise SandboxError(406, "Wrong payload content-type")
    if ctype.startswith("text/plain"):
        return Response(s["_payload"], status=200, content_type="text/plain; charset=utf-8")
    return Response(base64.b64decode(s["_payload"]), status=200, content_type=ctype)


@bp.post("/secrets")
def create_secret() -> Any:
    secret = new_secret(body())
    ref = href("secrets", secret["id"])
    return reply({"secret_ref": ref}, 201, {"Location": ref})


@bp.get("/secrets")
def list_secrets() -> Any:
    items = store().find(SECRETS, project_id=auth.ctx().project_id)
    for key in ("name", "alg", "mode", "bits", "secret_type"):
        wanted = request.args.get(key)
        if wanted:
            field = {"alg": "algorithm", "bits": "bit_length"}.get(key, key)
            items = [s for s in items if str(s.get(field)) == wanted]
    return page(items, "secrets", secret_view)


@bp.get("/secrets/<secret_id>")
def show_secret(secret_id: str) -> Any:
    secret = owned(SECRETS, secret_id, "Secret")
    accept = (request.headers.get("Accept") or "").lower()
    if accept.startswith(("text/plain", "application/octet-stream")):
        return payload_response(secret)
    return reply(secret_view(secret))


@bp.get("/secrets/<secret_id>/payload")
def secret_payload(secret_id: str) -> Any:
    return payload_response(owned(SECRETS, secret_id, "Secret"))


@bp.put("/secrets/<secret_id>")
def put_payload(secret_id: str) -> Any:
    secret = owned(SECRETS, secret_id, "Secret")
    if secret.get("_payload") is not None:
        raise SandboxError(409, "Secret already has data, cannot modify it.")
    ctype = (request.content_type or "").split(";")[0].strip().lower()
    raw = request.get_data()
    if not raw:
        raise SandboxError(400, "No payload provided")
    encoding = request.headers.get("Content-Encoding")
    if ctype == "application/octet-stream" and encoding != "base64":
        payload = base64.b64encode(raw).decode()
        encoding = "base64"
    else:
        payload = raw.decode("utf-8", "replace")
    secret["_payload"] = _check_payload(payload, ctype, encoding)
    secret["_content_type"] = ctype
    secret["updated"] = store().clock()
    store().touch()
    return no_content()


@bp.delete("/secrets/<secret_id>")
def delete_secret(secret_id: str) -> Any:
    owned(SECRETS, secret_id, "Secret")
    store().remove(SECRETS, secret_id)
    return no_content()


# ---- secret metadata --------------------------------------------------------------------------
@bp.get("/secrets/<secret_id>/metadata")
def get_metadata(secret_id: str) -> Any:
    return reply({"metadata": dict(owned(SECRETS, secret_id, "Secret")["_metadata"])})


@bp.put("/secrets/<secret_id>/metadata")
def put_metadata(secret_id: str) -> Any:
    secret = owned(SECRETS, secret_id, "Secret")
    meta = body("metadata")
    secret["_metadata"] = {str(k).lower(): str(v) for k, v in meta.items()}
    store().touch()
    return reply({"metadata_ref": href("secrets", secret_id) + "/metadata"}, 201)


@bp.post("/secrets/<secret_id>/metadata")
def add_metadatum(secret_id: str) -> Any:
    secret = owned(SECRETS, secret_id, "Secret")
    data = body()
    key = str(data.get("key") or "").lower()
    if not key or "value" not in data:
        raise invalid("SecretMetadatum", "'key' and 'value' are required")
    if key in secret["_metadata"]:
        raise SandboxError(409, "Conflict. Key in request is already in the secret metadata")
    secret["_metadata"][key] = str(data["value"])
    store().touch()
    return reply({"key": key, "value": secret["_metadata"][key]}, 201,
                 {"Location": href("secrets", secret_id) + f"/metadata/{key}"})


@bp.get("/secrets/<secret_id>/metadata/<key>")
def get_metadatum(secret_id: str, key: str) -> Any:
    meta = owned(SECRETS, secret_id, "Secret")["_metadata"]
    if key.lower() not in meta:
        raise SandboxError(404, "Secret metadata not found.")
    return reply({"key": key.lower(), "value": meta[key.lower()]})


@bp.put("/secrets/<secret_id>/metadata/<key>")
def put_metadatum(secret_id: str, key: str) -> Any:
    meta = owned(SECRETS, secret_id, "Secret")["_metadata"]
    data = body()
    if key.lower() not in meta:
        raise SandboxError(404, "Secret metadata not found.")
    if str(data.get("key", key)).lower() != key.lower() or "value" not in data:
        raise invalid("SecretMetadatum", "'key' must match the URL and 'value' is required")
    meta[key.lower()] = str(data["value"])
    store().touch()
    return reply({"key": key.lower(), "value": meta[key.lower()]})


@bp.delete("/secrets/<secret_id>/metadata/<key>")
def delete_metadatum(secret_id: str, key: str) -> Any:
    meta = owned(SECRETS, secret_id, "Secret")["_metadata"]
    if meta.pop(key.lower(), None) is None:
        raise SandboxError(404, "Secret metadata not found.")
    store().touch()
    return no_content()
