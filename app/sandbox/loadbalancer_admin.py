"""Octavia v2 operator objects for the sandbox: flavors and flavor profiles, availability
zones and their profiles, and the quota reset.

More in docs/code/sandbox.md (app.sandbox.loadbalancer_admin).
"""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, quotas
from app.sandbox.http import SandboxError, body, filter_by_args, no_content, public, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("loadbalancer_admin", __name__)
DENIED = "Policy does not allow this request to be performed."
PROVIDERS = ("amphora", "octavia")

# collection -> (body key, display name, profile collection, profile key, data key)
KINDS: dict[str, tuple[str, str, str | None, str | None, str | None]] = {
    "flavorprofiles": ("flavorprofile", "Flavor profile", None, None, "flavor_data"),
    "flavors": ("flavor", "Flavor", "flavorprofiles", "flavor_profile_id", None),
    "availabilityzoneprofiles": ("availability_zone_profile", "Availability Zone Profile", None,
                                 None, "availability_zone_data"),
    "availabilityzones": ("availability_zone", "Availability Zone", "availabilityzoneprofiles",
                          "availability_zone_profile_id", None),
}
USERS = {"flavorprofiles": "flavor_profile_id", "flavors": "flavor_id",
         "availabilityzoneprofiles": "availability_zone_profile_id",
         "availabilityzones": "availability_zone"}


def _admin() -> None:
    if not auth.ctx().is_admin:
        raise SandboxError(403, DENIED)


def _get(collection: str, key: str) -> Obj:
    obj = store().get(collection, key)
    if obj is None:
        raise SandboxError(404, f"{KINDS[collection][1]} {key} not found.")
    return obj


def _in_use(collection: str, obj: Obj) -> bool:
    field = USERS[collection]
    if collection in ("flavorprofiles", "availabilityzoneprofiles"):
        users = "flavors" if collection == "flavorprofiles" else "availabilityzones"
        return bool(store().find(users, **{field: obj["id"]}))
    return bool(store().find("loadbalancers", **{field: obj["id"]}))


def _check(collection: str, data: Obj, current: Obj | None = None) -> None:
    _, name, profiles, profile_key, data_key = KINDS[collection]
    if data_key is not None:
        if "provider_name" in data and data["provider_name"] not in PROVIDERS:
            raise SandboxError(400, f"Provider '{data['provider_name']}' is not enabled.")
        if data_key in data or current is None:
            try:
                parsed = json.loads(str(data.get(data_key)))
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise SandboxError(400, f"Invalid input for field/attribute {data_key}. "
                                   f"Value: '{data.get(data_key)}'. Must be a JSON object.")
    if profile_key is not None and current is None and (
            not data.get(profile_key) or store().get(str(profiles), str(data[profile_key])) is None):
        raise SandboxError(400, f"Validation failure: {KINDS[profiles or ''][1]} "
                           f"{data.get(profile_key)} not found.")
    new_name = data.get("name")
    if new_name and (current is None or new_name != current.get("name")) and \
            store().find(collection, name=new_name):
        raise SandboxError(409, f"A {name.lower()} of {new_name} already exists.")


def _view(collection: str, obj: Obj) -> Obj:
    out = public(obj)
    if collection == "availabilityzones":
        out.pop("id", None)
    return out


def _make_routes(collection: str) -> None:
    key, _, _, profile_key, data_key = KINDS[collection]
    profile = collection.endswith("profiles")
    fields = ("name", "description", "enabled", "provider_name", data_key or "")

    def list_all() -> Any:
        if profile:
            _admin()
        items = filter_by_args(store().all(collection), ("id", "name", "enabled",
                                                        "provider_name", profile_key or "id"))
        plural = f"{key}s"
        return reply({plural: [_view(collection, o) for o in items], f"{plural}_links": []})

    def create() -> Any:
        _admin()
        data = body(key)
        if collection == "availabilityzones" and not data.get("name"):
            raise SandboxError(400, "Invalid input for field/attribute name. Value: 'None'.")
        _check(collection, data)
        st = store()
        obj: Obj = {"id": data["name"] if collection == "availabilityzones" else st.new_id(),
                    "name": data.get("name", ""), "description": data.get("description", "")}
        if data_key is not None:
            obj.update(provider_name=data.get("provider_name", "amphora"),
                       **{data_key: data[data_key]})
        else:
            obj.update(enabled=bool(data.get("enabled", True)),
                       **{str(profile_key): data[str(profile_key)]})
        st.add(collection, obj)
        return reply({key: _view(collection, obj)}, 201)

    def show(obj_id: str) -> Any:
        if profile:
            _admin()
        return reply({key: _view(collection, _get(collection, obj_id))})

    def update(obj_id: str) -> Any:
        _admin()
        obj = _get(collection, obj_id)
        data = body(key)
        if collection == "availabilityzones":
            data.pop("name", None)
        _check(collection, data, obj)
        for field in fields:
            if field and field in data:
                obj[field] = data[field]
        store().touch()
        return reply({key: _view(collection, obj)})

    def delete(obj_id: str) -> Any:
        _admin()
        obj = _get(collection, obj_id)
        if _in_use(collection, obj):
            raise SandboxError(409, f"{KINDS[collection][1]} {obj_id} is in use and cannot be "
                               f"modified.")
        store().remove(collection, obj["id"])
        return no_content()

    bp.add_url_rule(f"/{collection}", f"list_{collection}", list_all)
    bp.add_url_rule(f"/{collection}", f"create_{collection}", create, methods=["POST"])
    bp.add_url_rule(f"/{collection}/<obj_id>", f"show_{collection}", show)
    bp.add_url_rule(f"/{collection}/<obj_id>", f"update_{collection}", update, methods=["PUT"])
    bp.add_url_rule(f"/{collection}/<obj_id>", f"delete_{collection}", delete,
                    methods=["DELETE"])


for _collection in KINDS:
    _make_routes(_collection)


def check_lb_options(data: Obj) -> None:
    """A load balancer's ``flavor_id`` / ``availability_zone`` must exist and be enabled
    (Octavia's 400 "Validation failure: ...")."""
    for collection, field in (("flavors", "flavor_id"), ("availabilityzones", "availability_zone")):
        value = data.get(field)
        if not value:
            continue
        obj = store().get(collection, str(value))
        if obj is None:
            raise SandboxError(400, f"Validation failure: Invalid {field}. {KINDS[collection][1]} "
                               f"{value} not found.")
        if not obj.get("enabled", True):
            raise SandboxError(400, f"Validation failure: The selected {KINDS[collection][1].lower()}"
                               f" is not allowed in this deployment: {value}")


@bp.get("/quotas")
def list_quotas() -> Any:
    _admin()
    ids = [q["id"] for q in store().all("quotas") if q.get("loadbalancer")]
    if request.args.get("project_id"):
        ids = [i for i in ids if i == request.args["project_id"]]
    return reply({"quotas": [dict(quotas.limits(store(), i, "loadbalancer"), project_id=i)
                             for i in ids], "quotas_links": []})


@bp.delete("/quotas/<project_id>")
def reset_quota(project_id: str) -> Any:
    _admin()
    quotas.reset(store(), project_id, "loadbalancer")
    return no_content(202)
