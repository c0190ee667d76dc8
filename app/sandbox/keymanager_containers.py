"""Barbican v1 containers for the sandbox (generic, rsa, certificate) with their secret refs and
consumers.

More in docs/code/sandbox.md (app.sandbox.keymanager).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.keymanager import (
    CONTAINERS,
    SECRETS,
    href,
    invalid,
    owned,
    owner_of,
    page,
    ref_id,
    settle_due,
    when,
)
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("keymanager_containers", __name__)
bp.before_request(settle_due)
CONTAINER_NAMES = {"rsa": ({"public_key", "private_key"}, {"private_key_passphrase"}),
                   "certificate": ({"certificate"},
                                   {"private_key", "private_key_passphrase", "intermediates"})}


def new_container(kind: str, name: str | None, refs: list[Obj],
                  owner: tuple[str, str] | None = None) -> Obj:
    """Validate and store a container. :raises SandboxError: 400 (names), 404 (a secret)."""
    if kind not in ("generic", "rsa", "certificate"):
        raise invalid("Container", f"'{kind}' is not one of ['generic', 'rsa', 'certificate']",
                      "type")
    names = [str(r.get("name")) for r in refs]
    if kind in CONTAINER_NAMES:
        required, optional = CONTAINER_NAMES[kind]
        allowed = sorted(required | optional)
        if set(names) - required - optional:
            raise invalid("Container", f"only {', '.join(repr(n) for n in allowed)} reference "
                                       f"names are allowed for {kind.upper()} type", "secret_refs")
        if not required <= set(names):
            raise invalid("Container", f"The minimum required reference names are "
                                       f"{' and '.join(repr(n) for n in sorted(required))} for "
                                       f"{kind.upper()} type", "secret_refs")
    if len(names) != len(set(names)):
        raise invalid("Container", "Duplicate reference names are not allowed", "secret_refs")
    stored, (project, user) = [], owner_of(owner)
    for r in refs:
        secret_id = ref_id(r.get("secret_ref"), "secrets")
        secret = store().get(SECRETS, secret_id)
        if secret is None or secret.get("project_id") != project:
            raise SandboxError(404, f"Secret provided for '{r.get('name')}' doesn't exist.")
        stored.append({"name": r.get("name"), "secret_id": secret_id})
    st, now = store(), store().clock()
    return st.add(CONTAINERS, {"id": st.new_id(), "name": name, "type": kind, "status": "ACTIVE",
                               "project_id": project, "creator_id": user, "created": now, "updated": now,
                               "consumers": [], "_refs": stored})


def container_view(c: Obj) -> Obj:
    return {"status": c["status"], "name": c.get("name"), "type": c["type"],
            "created": when(c["created"]), "updated": when(c["updated"]),
            "creator_id": c.get("creator_id"), "container_ref": href("containers", c["id"]),
            "consumers": [dict(x) for x in c.get("consumers", [])],
            "secret_refs": [{"name": r["name"], "secret_ref": href("secrets", r["secret_id"])}
                            for r in c["_refs"]]}


@bp.post("/containers")
def create_container() -> Any:
    data = body()
    refs = data.get("secret_refs") or []
    if not isinstance(refs, list) or not all(isinstance(r, dict) for r in refs):
        raise invalid("Container", "secret_refs must be a list of objects", "secret_refs")
    container = new_container(str(data.get("type") or ""), data.get("name"), refs)
    ref = href("containers", container["id"])
    return reply({"container_ref": ref}, 201, {"Location": ref})


@bp.get("/containers")
def list_containers() -> Any:
    items = store().find(CONTAINERS, project_id=auth.ctx().project_id)
    if request.args.get("name"):
        items = [c for c in items if c.get("name") == request.args["name"]]
    if request.args.get("type"):
        items = [c for c in items if c.get("type") == request.args["type"]]
    return page(items, "containers", container_view)


@bp.get("/containers/<container_id>")
def show_container(container_id: str) -> Any:
    return reply(container_view(owned(CONTAINERS, container_id, "Container")))


@bp.delete("/containers/<container_id>")
def delete_container(container_id: str) -> Any:
    owned(CONTAINERS, container_id, "Container")
    store().remove(CONTAINERS, container_id)
    return no_content()


def _consumer() -> Obj:
    data = body()
    if not data.get("name") or not data.get("URL"):
        raise invalid("Consumer", "'name' and 'URL' are required")
    return {"name": str(data["name"]), "URL": str(data["URL"])}


@bp.post("/containers/<container_id>/consumers")
def add_consumer(container_id: str) -> Any:
    container = owned(CONTAINERS, container_id, "Container")
    consumer = _consumer()
    if consumer not in container["consumers"]:
        container["consumers"].append(consumer)
        container["updated"] = store().clock()
        store().touch()
    return reply(container_view(container))


@bp.get("/containers/<container_id>/consumers")
def list_consumers(container_id: str) -> Any:
    consumers = owned(CONTAINERS, container_id, "Container")["consumers"]
    return reply({"consumers": [dict(c) for c in consumers], "total": len(consumers)})


@bp.delete("/containers/<container_id>/consumers")
def remove_consumer(container_id: str) -> Any:
    container = owned(CONTAINERS, container_id, "Container")
    consumer = _consumer()
    if consumer not in container["consumers"]:
        raise SandboxError(404, "Consumer not found.")
    container["consumers"].remove(consumer)
    store().touch()
    return reply(container_view(container))
