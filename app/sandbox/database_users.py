"""Trove v1.0 databases and users of a sandbox instance: create and delete databases, create,
show, update and delete users, grant and revoke a user's access to databases, with Trove's
errors in Nova's fault shape.

More in docs/code/sandbox.md (app.sandbox.database).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox.database import db_entries, get_instance, require_active, trove_error, user_entries
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("database_users", __name__)
bp.register_error_handler(SandboxError, trove_error)


@bp.get("/instances/<ident>/databases")
def list_databases(ident: str) -> Any:
    return reply({"databases": get_instance(ident)["_databases"]})


@bp.post("/instances/<ident>/databases")
def create_databases(ident: str) -> Any:
    inst = get_instance(ident)
    require_active(inst)
    new = db_entries(body().get("databases"))
    for d in new:
        if any(x["name"] == d["name"] for x in inst["_databases"]):
            raise SandboxError(400, f"A database with the name {d['name']} already exists.")
    inst["_databases"].extend(new)
    store().touch()
    return no_content(202)


@bp.delete("/instances/<ident>/databases/<name>")
def delete_database(ident: str, name: str) -> Any:
    inst = get_instance(ident)
    if not any(d["name"] == name for d in inst["_databases"]):
        raise SandboxError(404, f"Database {name} could not be found.")
    inst["_databases"] = [d for d in inst["_databases"] if d["name"] != name]
    for u in inst["_users"]:
        u["databases"] = [d for d in u["databases"] if d != name]
    store().touch()
    return no_content(202)


def _user_view(u: Obj) -> Obj:
    return {"name": u["name"], "host": u["host"], "databases": [{"name": d} for d in u["databases"]]}


def _user(inst: Obj, name: str) -> Obj:
    base = name.split("@")[0]
    for u in inst["_users"]:
        if u["name"] == base:
            return u
    raise SandboxError(404, f"User {base} could not be found.")


@bp.get("/instances/<ident>/users")
def list_users(ident: str) -> Any:
    return reply({"users": [_user_view(u) for u in get_instance(ident)["_users"]]})


@bp.post("/instances/<ident>/users")
def create_users(ident: str) -> Any:
    inst = get_instance(ident)
    require_active(inst)
    new = user_entries(body().get("users"), [d["name"] for d in inst["_databases"]])
    for u in new:
        if any(x["name"] == u["name"] for x in inst["_users"]):
            raise SandboxError(400, f"A user with the name {u['name']} already exists.")
    inst["_users"].extend(new)
    store().touch()
    return no_content(202)


@bp.get("/instances/<ident>/users/<name>")
def show_user(ident: str, name: str) -> Any:
    return reply({"user": _user_view(_user(get_instance(ident), name))})


@bp.put("/instances/<ident>/users/<name>")
def update_user(ident: str, name: str) -> Any:
    u = _user(get_instance(ident), name)
    data = body("user")
    for key, field in (("name", "name"), ("host", "host"), ("password", "_password")):
        if data.get(key):
            u[field] = data[key]
    store().touch()
    return no_content(202)


@bp.delete("/instances/<ident>/users/<name>")
def delete_user(ident: str, name: str) -> Any:
    inst = get_instance(ident)
    u = _user(inst, name)
    inst["_users"].remove(u)
    store().touch()
    return no_content(202)


@bp.put("/instances/<ident>/users/<name>/databases")
def grant(ident: str, name: str) -> Any:
    inst = get_instance(ident)
    u = _user(inst, name)
    for d in body().get("databases") or []:
        db = d.get("name") if isinstance(d, dict) else str(d)
        if not any(x["name"] == db for x in inst["_databases"]):
            raise SandboxError(404, f"Database {db} could not be found.")
        if db not in u["databases"]:
            u["databases"].append(db)
    store().touch()
    return no_content(202)


@bp.delete("/instances/<ident>/users/<name>/databases/<db>")
def revoke(ident: str, name: str, db: str) -> Any:
    u = _user(get_instance(ident), name)
    u["databases"] = [d for d in u["databases"] if d != db]
    store().touch()
    return no_content(202)
