"""Barbican v1 orders for the sandbox: ``POST /orders {"type", "meta"}`` → 202
``{"order_ref"}``; the order is ``PENDING`` for the ``order_generate`` delay, then generates
real key material and becomes ``ACTIVE`` (or ``ERROR`` with ``error_status_code`` and
``error_reason``, e.g. a bit length no plugin supports).

More in docs/code/sandbox.md (app.sandbox.keymanager_orders).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth
from app.sandbox import keymanager as km
from app.sandbox import keymanager_crypto as crypto
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.keymanager_containers import new_container
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("keymanager_orders", __name__)
ORDERS = "barbican_orders"
TYPES = ("key", "asymmetric", "certificate")
REQUEST_TYPES = ("stored-key", "simple-cmc", "custom", "full-cmc")


@bp.before_request
def _settle_orders() -> None:
    settle()


def settle() -> None:
    """Fulfil every PENDING order whose deadline has passed (any project)."""
    st = store()
    for order in st.all(ORDERS):
        if order["status"] == "PENDING" and order["_due"] <= st.clock():
            _fulfil(order)


def _fulfil(order: Obj) -> None:
    owner = (order["project_id"], order["creator_id"])
    meta = order["meta"]
    try:
        if order["type"] == "key":
            key = crypto.symmetric_key(str(meta.get("algorithm")), int(meta.get("bit_length") or 0))
            secret = km.new_secret(_secret_meta(meta, "symmetric"), generated=key, owner=owner)
            order["_secret_id"] = secret["id"]
        elif order["type"] == "asymmetric":
            private, public, _ = crypto.key_pair(str(meta.get("algorithm")),
                                                 int(meta.get("bit_length") or 0),
                                                 meta.get("pass_phrase"))
            order["_container_id"] = _pair_container(meta, private, public, owner)
        else:
            order["_container_id"] = _certificate_container(meta, owner)
    except crypto.GenerationError as err:
        order.update(status="ERROR", error_status_code=str(err.status), error_reason=err.reason)
    except SandboxError as err:
        order.update(status="ERROR", error_status_code=str(err.status), error_reason=err.message)
    else:
        order["status"] = "ACTIVE"
    order["updated"] = store().clock()
    store().touch()


km.SETTLERS.append(settle)  # secrets and containers requests see fulfilled orders' objects


def _secret_meta(meta: Obj, secret_type: str, suffix: str = "") -> Obj:
    name = meta.get("name")
    return {"name": f"{name}{suffix}" if name else None, "algorithm": meta.get("algorithm"),
            "bit_length": meta.get("bit_length"), "mode": meta.get("mode"),
            "expiration": meta.get("expiration"), "secret_type": secret_type}


def _pair_container(meta: Obj, private: bytes, public: bytes, owner: tuple[str, str]) -> str:
    refs = [{"name": "private_key", "secret_ref": km.new_secret(
                _secret_meta(meta, "private"), generated=private, owner=owner)["id"]},
            {"name": "public_key", "secret_ref": km.new_secret(
                _secret_meta(meta, "public"), generated=public, owner=owner)["id"]}]
    if meta.get("pass_phrase"):
        refs.append({"name": "private_key_passphrase", "secret_ref": km.new_secret(
            _secret_meta(meta, "passphrase"), generated=str(meta["pass_phrase"]).encode(),
            owner=owner)["id"]})
    return str(new_container("rsa", meta.get("name"), refs, owner=owner)["id"])


def _payload_bytes(secret_id: str) -> bytes:
    import base64
    secret = store().get(km.SECRETS, secret_id)
    if secret is None or secret.get("_payload") is None:
        raise crypto.GenerationError(400, "The source container's secrets have no payload.")
    if str(secret["_content_type"]).startswith("text/plain"):
        return str(secret["_payload"]).encode()
    return base64.b64decode(secret["_payload"])


def _certificate_container(meta: Obj, owner: tuple[str, str]) -> str:
    kind = meta.get("request_type") or "custom"
    refs: list[Obj] = []
    if kind == "stored-key":
        source = store().get(km.CONTAINERS, km.ref_id(meta.get("source_container_ref"),
                                                      "containers"))
        if source is None or source["project_id"] != owner[0] or source["type"] != "rsa":
            raise crypto.GenerationError(400, "Invalid container: the source container must be "
                                              "an existing RSA container.")
        by_name = {r["name"]: r["secret_id"] for r in source["_refs"]}
        phrase = by_name.get("private_key_passphrase")
        key = crypto.load_private(_payload_bytes(by_name["private_key"]),
                                  _payload_bytes(phrase).decode() if phrase else None)
        public_key, subject = key.public_key(), meta.get("subject_dn")
        refs = [{"name": n, "secret_ref": by_name[n]} for n in ("private_key",
                                                               "private_key_passphrase")
                if n in by_name]
    elif kind == "simple-cmc":
        public_key, name = crypto.csr_public_key(str(meta.get("request_data") or ""))
        subject = name.rfc4514_string() or None
    else:
        raise crypto.GenerationError(400, f"No certificate plugin supports the '{kind}' "
                                          "request type.")
    cert, chain = crypto.certificate(public_key, subject)
    refs += [{"name": "certificate", "secret_ref": km.new_secret(
                _secret_meta({"name": meta.get("name")}, "certificate"), generated=cert,
                owner=owner)["id"]},
             {"name": "intermediates", "secret_ref": km.new_secret(
                 _secret_meta({"name": meta.get("name")}, "certificate", " intermediates"),
                 generated=chain, owner=owner)["id"]}]
    return str(new_container("certificate", meta.get("name"), refs, owner=owner)["id"])


def _validate(kind: Any, meta: Any) -> None:
    """:raises SandboxError: 400 as Barbican's order validator."""
    if kind not in TYPES:
        raise km.invalid("Order", f"'{kind}' is not one of {list(TYPES)}", "type")
    if not isinstance(meta, dict):
        raise km.invalid("Order", "'meta' is a required property", "meta")
    if kind in ("key", "asymmetric"):
        if not meta.get("algorithm"):
            raise km.invalid("Order", "'algorithm' is a required property", "algorithm")
        bits = meta.get("bit_length")
        if not isinstance(bits, int) or isinstance(bits, bool) or bits <= 0:
            raise km.invalid("Order", "Must have non-zero positive bit_length to generate secret",
                             "bit_length")
        if bits % 8 and kind == "key":
            raise km.invalid("Order", "Must be a positive integer that is a multiple of 8",
                             "bit_length")
        ctype = meta.get("payload_content_type")
        if ctype and ctype != "application/octet-stream":
            raise km.invalid("Order", "payload_content_type must be application/octet-stream",
                             "payload_content_type")
    else:
        request_type = meta.get("request_type") or "custom"
        if request_type not in REQUEST_TYPES:
            raise km.invalid("Order", f"'{request_type}' is not a valid request type",
                             "request_type")
        if request_type == "stored-key" and not meta.get("source_container_ref"):
            raise km.invalid("Order", "'source_container_ref' is required for stored-key "
                                      "requests", "source_container_ref")
        if request_type == "simple-cmc" and not meta.get("request_data"):
            raise km.invalid("Order", "'request_data' is required for simple-cmc requests",
                             "request_data")


def order_view(o: Obj) -> Obj:
    meta = {k: v for k, v in o["meta"].items() if k != "pass_phrase"}
    out: Obj = {"type": o["type"], "meta": meta, "status": o["status"],
                "order_ref": km.href("orders", o["id"]), "creator_id": o["creator_id"],
                "created": km.when(o["created"]), "updated": km.when(o["updated"]),
                "sub_status": "Unknown", "sub_status_message": "Unknown"}
    if o.get("_secret_id"):
        out["secret_ref"] = km.href("secrets", o["_secret_id"])
    if o.get("_container_id"):
        out["container_ref"] = km.href("containers", o["_container_id"])
    if o["status"] == "ERROR":
        out.update(error_status_code=o.get("error_status_code"),
                   error_reason=o.get("error_reason"))
    return out


@bp.post("/orders")
def create_order() -> Any:
    data = body()
    kind, meta = data.get("type"), data.get("meta")
    _validate(kind, meta)
    assert isinstance(meta, dict)
    st, now = store(), store().clock()
    order = st.add(ORDERS, {"id": st.new_id(), "type": kind, "meta": dict(meta),
                            "status": "PENDING", "project_id": auth.ctx().project_id,
                            "creator_id": auth.ctx().user_id, "created": now, "updated": now,
                            "_due": now + sb().behaviour.delay("order_generate")})
    ref = km.href("orders", order["id"])
    return reply({"order_ref": ref}, 202, {"Location": ref})


@bp.get("/orders")
def list_orders() -> Any:
    items = store().find(ORDERS, project_id=auth.ctx().project_id)
    return km.page(items, "orders", order_view)


@bp.get("/orders/<order_id>")
def show_order(order_id: str) -> Any:
    return reply(order_view(km.owned(ORDERS, order_id, "Order")))


@bp.delete("/orders/<order_id>")
def delete_order(order_id: str) -> Any:
    km.owned(ORDERS, order_id, "Order")
    store().remove(ORDERS, order_id)
    return no_content()

