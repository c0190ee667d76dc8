"""Cinder v3 QoS specs for the sandbox, with their volume-type associations.

More in docs/code/sandbox.md (app.sandbox.volume_qos).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("volume_qos", __name__)
CONSUMERS = ("front-end", "back-end", "both")


def _policy(action: str) -> None:
    auth.require_admin(f"Policy doesn't allow volume_extension:qos_specs_manage:{action} to be "
                       "performed.")


def _get(spec_id: str) -> Obj:
    spec = store().get("qos_specs", spec_id)
    if spec is None:
        raise SandboxError(404, f"QoS Specs {spec_id} could not be found.", "itemNotFound")
    return spec


def view(spec: Obj) -> Obj:
    return {"id": spec["id"], "name": spec["name"], "consumer": spec["consumer"],
            "specs": dict(spec["specs"])}


def _types_of(spec_id: str) -> list[Obj]:
    return store().find("volume_types", qos_specs_id=spec_id)


@bp.get("/qos-specs")
def list_specs() -> Any:
    _policy("get_all")
    return reply({"qos_specs": [view(s) for s in store().all("qos_specs")]})


@bp.post("/qos-specs")
def create_spec() -> Any:
    _policy("create")
    data = dict(body("qos_specs"))
    name = data.pop("name", None)
    if not isinstance(name, str) or not name.strip():
        raise SandboxError(400, "Please specify a name for QoS specs.", "badRequest")
    consumer = data.pop("consumer", "back-end")
    if consumer not in CONSUMERS:
        raise SandboxError(400, f"Invalid consumer {consumer}: must be one of "
                           f"{', '.join(CONSUMERS)}.", "badRequest")
    st = store()
    if st.find("qos_specs", name=name):
        raise SandboxError(409, f"QoS Specs {name} already exists.", "conflictingRequest")
    spec = {"id": st.new_id(), "name": name, "consumer": consumer,
            "specs": {str(k): str(v) for k, v in data.items()}}
    st.add("qos_specs", spec)
    return reply({"qos_specs": view(spec), "links": []})


@bp.get("/qos-specs/<spec_id>")
def show_spec(spec_id: str) -> Any:
    _policy("get")
    return reply({"qos_specs": view(_get(spec_id)), "links": []})


@bp.put("/qos-specs/<spec_id>")
def set_keys(spec_id: str) -> Any:
    _policy("update")
    spec = _get(spec_id)
    data = body("qos_specs")
    for key, value in data.items():
        if key == "consumer":
            if value not in CONSUMERS:
                raise SandboxError(400, f"Invalid consumer {value}.", "badRequest")
            spec["consumer"] = value
        else:
            spec["specs"][str(key)] = str(value)
    store().touch()
    return reply({"qos_specs": dict(data)})


@bp.put("/qos-specs/<spec_id>/delete_keys")
def delete_keys(spec_id: str) -> Any:
    _policy("delete_keys")
    spec = _get(spec_id)
    keys = body().get("keys")
    if not isinstance(keys, list):
        raise SandboxError(400, "Missing required element 'keys' in request body.", "badRequest")
    for key in keys:
        if key not in spec["specs"]:
            raise SandboxError(404, f"No such QoS spec {spec_id} contains key {key}.",
                               "itemNotFound")
    for key in keys:
        spec["specs"].pop(key)
    store().touch()
    return no_content(202)


@bp.delete("/qos-specs/<spec_id>")
def delete_spec(spec_id: str) -> Any:
    _policy("delete")
    spec = _get(spec_id)
    force = request.args.get("force", "false").lower() in ("true", "1", "yes")
    if _types_of(spec_id):
        if not force:
            raise SandboxError(400, f"QoS Specs {spec_id} is still associated with entities.",
                               "badRequest")
        for vtype in _types_of(spec_id):
            vtype["qos_specs_id"] = None
    store().remove("qos_specs", spec["id"])
    return no_content(202)


@bp.get("/qos-specs/<spec_id>/associations")
def associations(spec_id: str) -> Any:
    _policy("get")
    _get(spec_id)
    return reply({"qos_associations": [{"association_type": "volume_type", "name": t["name"],
                                        "id": t["id"]} for t in _types_of(spec_id)]})


def _vtype() -> Obj:
    type_id = request.args.get("vol_type_id")
    if not type_id:
        raise SandboxError(400, "Volume Type id must not be None.", "badRequest")
    vtype = store().get("volume_types", type_id)
    if vtype is None:
        raise SandboxError(404, f"Volume type {type_id} could not be found.", "itemNotFound")
    return vtype


@bp.get("/qos-specs/<spec_id>/associate")
def associate(spec_id: str) -> Any:
    _policy("associate")
    _get(spec_id)
    vtype = _vtype()
    bound = vtype.get("qos_specs_id")
    if bound and bound != spec_id:
        raise SandboxError(400, f"Type {vtype['id']} is already associated with another qos "
                           f"specs: {bound}", "badRequest")
    vtype["qos_specs_id"] = spec_id
    store().touch()
    return no_content(202)


@bp.get("/qos-specs/<spec_id>/disassociate")
def disassociate(spec_id: str) -> Any:
    _policy("disassociate")
    _get(spec_id)
    vtype = _vtype()
    if vtype.get("qos_specs_id") == spec_id:
        vtype["qos_specs_id"] = None
        store().touch()
    return no_content(202)


@bp.get("/qos-specs/<spec_id>/disassociate_all")
def disassociate_all(spec_id: str) -> Any:
    _policy("disassociate_all")
    _get(spec_id)
    for vtype in _types_of(spec_id):
        vtype["qos_specs_id"] = None
    store().touch()
    return no_content(202)
