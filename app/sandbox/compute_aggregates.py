"""Nova v2.1 host aggregates for the sandbox (admin only, as Nova's default policy), over the
sandbox's eight compute hosts (:data:`app.sandbox.compute_hosts.HOSTS`).

    POST /os-aggregates {"aggregate": {"name", "availability_zone"}}        -> 200 {"aggregate"}
    POST /os-aggregates/{id}/action {"add_host": {"host"}} | {"remove_host": {"host"}}
                                    | {"set_metadata": {"metadata": {k: v or null}}}

Ids are integers, as Nova's (with a ``uuid``). Errors as Nova's: a name already taken is a 409
"Aggregate <name> already exists."; an unknown aggregate a 404 "Aggregate <id> could not be
found."; an unknown host a 404 "Compute host <h> could not be found."; a host already in the
aggregate a 409, one not in it a 404; deleting an aggregate that still has hosts a 400.
``availability_zone`` is also the metadata key of that name (set_metadata may change it).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth
from app.sandbox.compute_hosts import HOSTS
from app.sandbox.http import SandboxError, body, iso, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("compute_aggregates", __name__)


def _policy(action: str) -> None:
    auth.require_admin(f"Policy doesn't allow os_compute_api:os-aggregates:{action} to be "
                       "performed.")


def _get(agg_id: str) -> Obj:
    agg = store().get("aggregates", str(agg_id))
    if agg is None:
        raise SandboxError(404, f"Aggregate {agg_id} could not be found.", "NotFound")
    return agg


def view(agg: Obj) -> Obj:
    out = {k: v for k, v in agg.items() if not k.startswith("_")}
    out["id"] = int(agg["id"])
    out["availability_zone"] = agg["metadata"].get("availability_zone")
    return out


def _touch(agg: Obj) -> None:
    agg["updated_at"] = iso(store().clock())
    store().touch()


@bp.get("/os-aggregates")
def list_aggregates() -> Any:
    _policy("index")
    return reply({"aggregates": [view(a) for a in store().all("aggregates")]})


@bp.post("/os-aggregates")
def create_aggregate() -> Any:
    _policy("create")
    data = body("aggregate")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 255:
        raise SandboxError(400, "Invalid input for field/attribute name.", "BadRequest")
    st = store()
    if st.find("aggregates", name=name):
        raise SandboxError(409, f"Aggregate {name} already exists.", "Conflict")
    agg: Obj = {"id": str(st.next_number("aggregates")), "uuid": st.new_id(), "name": name,
                "hosts": [], "metadata": {}, "created_at": iso(st.clock()), "updated_at": None,
                "deleted_at": None, "deleted": False}
    if data.get("availability_zone"):
        agg["metadata"]["availability_zone"] = data["availability_zone"]
    st.add("aggregates", agg)
    return reply({"aggregate": view(agg)})


@bp.get("/os-aggregates/<agg_id>")
def show_aggregate(agg_id: str) -> Any:
    _policy("show")
    return reply({"aggregate": view(_get(agg_id))})


@bp.put("/os-aggregates/<agg_id>")
def update_aggregate(agg_id: str) -> Any:
    _policy("update")
    agg = _get(agg_id)
    data = body("aggregate")
    if "name" in data and data["name"] != agg["name"]:
        if store().find("aggregates", name=data["name"]):
            raise SandboxError(409, f"Aggregate {data['name']} already exists.", "Conflict")
        agg["name"] = data["name"]
    if "availability_zone" in data:
        if data["availability_zone"]:
            agg["metadata"]["availability_zone"] = data["availability_zone"]
        else:
            agg["metadata"].pop("availability_zone", None)
    _touch(agg)
    return reply({"aggregate": view(agg)})


@bp.delete("/os-aggregates/<agg_id>")
def delete_aggregate(agg_id: str) -> Any:
    _policy("delete")
    agg = _get(agg_id)
    if agg["hosts"]:
        raise SandboxError(400, f"Cannot remove aggregate {agg_id}. Reason: Host aggregate is "
                           "not empty.", "BadRequest")
    store().remove("aggregates", agg["id"])
    return reply({}, 200)


@bp.post("/os-aggregates/<agg_id>/action")
def aggregate_action(agg_id: str) -> Any:
    data = body()
    if not data or len(data) != 1 or next(iter(data)) not in ("add_host", "remove_host",
                                                                "set_metadata"):
        raise SandboxError(400, "Invalid input for field/attribute action.", "BadRequest")
    action, args = next(iter(data.items()))
    _policy(action)
    agg = _get(agg_id)
    if action == "set_metadata":
        for key, value in ((args or {}).get("metadata") or {}).items():
            if value is None:
                agg["metadata"].pop(key, None)
            else:
                agg["metadata"][key] = str(value)
    else:
        host = (args or {}).get("host")
        if host not in HOSTS:
            raise SandboxError(404, f"Compute host {host} could not be found.", "NotFound")
        if action == "add_host":
            if host in agg["hosts"]:
                raise SandboxError(409, f"Aggregate {agg_id} already has host {host}.",
                                   "Conflict")
            agg["hosts"].append(host)
        else:
            if host not in agg["hosts"]:
                raise SandboxError(404, f"Cannot remove host {host} in aggregate {agg_id}: "
                                   "not found", "NotFound")
            agg["hosts"].remove(host)
    _touch(agg)
    return reply({"aggregate": view(agg)})
