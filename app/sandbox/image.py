"""Glance v2 images for the sandbox: list/show (with the default images seeded), create of
metadata (``queued``), upload (``PUT .../file``) or interoperable import (stage + import) making the
image ``active``, JSON-patch update, tags, download and delete (``protected`` images refuse).

Image records are flat as Glance renders them (custom properties are top-level keys); uploaded
data up to 1 MiB is kept so downloads return it.
"""
from __future__ import annotations

import base64
import hashlib
from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, iso, no_content, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("image", __name__)

READ_ONLY = {"id", "status", "size", "virtual_size", "checksum", "os_hash_algo", "os_hash_value", "created_at",
             "updated_at", "self", "file", "schema", "direct_url", "locations"}
BASE_FIELDS: dict[str, Any] = {"name": None, "visibility": "shared", "protected": False, "container_format": None,
               "disk_format": None, "min_disk": 0, "min_ram": 0, "tags": [], "os_hidden": False}
KEEP_BYTES = 1024 * 1024
#: Glance's image schema types for the properties a client may set (no string numbers: the schema
#: says ``integer``, and Glance validates before it converts anything).
SCHEMA_TYPES: dict[str, tuple[type, ...]] = {"min_disk": (int,), "min_ram": (int,), "protected": (bool,),
                                            "os_hidden": (bool,), "tags": (list,)}


def check_schema(field: str, value: Any) -> None:
    """Glance's JSON-schema check of one property.

    :raises SandboxError: 400 ``Provided object does not match schema 'image': '1' is not of type
        'integer'`` (jsonschema's wording, as Glance reports it).
    """
    kinds = SCHEMA_TYPES.get(field)
    if kinds is None:
        return
    wrong = not isinstance(value, kinds) or (kinds == (int,) and isinstance(value, bool))
    if wrong:
        name = {int: "integer", bool: "boolean", list: "array"}[kinds[0]]
        raise SandboxError(400, f"Provided object does not match schema 'image': {value!r} is not of type "
                           f"'{name}'")
    if kinds == (int,) and value < 0:
        raise SandboxError(400, f"Provided object does not match schema 'image': {value!r} is less than the "
                           "minimum of 0")


def image_view(img: Obj) -> Obj:
    out = {k: v for k, v in img.items() if not k.startswith("_")}
    out.update({"self": f"/v2/images/{img['id']}", "file": f"/v2/images/{img['id']}/file",
                "schema": "/v2/schemas/image"})
    return out


def visible(img: Obj) -> bool:
    c = auth.ctx()
    return (c.is_admin or img.get("owner") == c.project_id or img.get("visibility") in ("public", "community")
            or c.project_id in img.get("_members", []))


def get_image(image_id: str) -> Obj:
    img = store().get("images", image_id)
    if img is None or not visible(img):
        raise SandboxError(404, f"No image found with ID {image_id}")
    return img


@bp.get("/images")
def list_images() -> Any:
    c = auth.ctx()
    items = [i for i in store().all("images") if visible(i)]
    if not c.is_admin or "visibility" not in request.args:
        items = [i for i in items if i.get("visibility") != "community" or i.get("owner") == c.project_id]
    for key in ("name", "status", "visibility", "owner", "container_format", "disk_format", "os_hidden"):
        if key in request.args:
            value = request.args[key]
            if key == "visibility" and value == "all":
                continue
            items = [i for i in items if str(i.get(key)).lower() == value.lower()]
    if "tag" in request.args:
        items = [i for i in items if set(request.args.getlist("tag")) <= set(i.get("tags", []))]
    items.sort(key=lambda i: i["created_at"], reverse=True)
    marker = request.args.get("marker")
    if marker:
        ids = [i["id"] for i in items]
        if marker not in ids:
            raise SandboxError(400, f"marker {marker} could not be found.")
        items = items[ids.index(marker) + 1:]
    limit = int(request.args.get("limit", 25))
    page, more = items[:limit], len(items) > limit
    out: Obj = {"images": [image_view(i) for i in page], "first": "/v2/images", "schema": "/v2/schemas/images"}
    if more and page:
        out["next"] = f"/v2/images?marker={page[-1]['id']}&limit={limit}"
    return reply(out)


@bp.post("/images")
def create_image() -> Any:
    c = auth.ctx()
    data = request.get_json(silent=True, force=True) or {}
    if not isinstance(data, dict):
        raise SandboxError(400, "Malformed request body")
    bad = READ_ONLY & set(data) - {"id"}
    if bad:
        raise SandboxError(403, f"Attribute '{min(bad)}' is read-only.")
    for field, value in data.items():
        check_schema(field, value)
    st = store()
    image_id = str(data.get("id") or st.new_id())
    if st.get("images", image_id):
        raise SandboxError(409, f"Image with identifier {image_id} already exists!")
    if data.get("visibility", "shared") not in ("public", "private", "shared", "community"):
        raise SandboxError(400, f"Invalid visibility value: {data.get('visibility')}")
    if data.get("visibility") == "public" and not c.is_admin:
        raise SandboxError(403, "You are not authorized to complete publicize_image action.")
    now = iso(st.clock())
    img: Obj = {k: data.get(k, v) for k, v in BASE_FIELDS.items()}
    img.update({k: v for k, v in data.items() if k not in BASE_FIELDS and k != "id"})
    img.update({"id": image_id, "status": "queued", "owner": data.get("owner") or c.project_id, "size": None,
                "virtual_size": None, "checksum": None, "os_hash_algo": None, "os_hash_value": None,
                "created_at": now, "updated_at": now, "_members": []})
    st.add("images", img)
    return reply(image_view(img), 201, {"Location": f"{request.host_url.rstrip('/')}/image/v2/images/{image_id}"})


@bp.get("/images/<image_id>")
def show_image(image_id: str) -> Any:
    return reply(image_view(get_image(image_id)))


def _owned(image_id: str) -> Obj:
    img = get_image(image_id)
    c = auth.ctx()
    if not c.is_admin and img.get("owner") != c.project_id:
        raise SandboxError(403, f"You are not permitted to modify image {image_id}.")
    return img


@bp.patch("/images/<image_id>")
def update_image(image_id: str) -> Any:
    img = _owned(image_id)
    ops = request.get_json(silent=True, force=True)
    if not isinstance(ops, list):
        raise SandboxError(400, "Unable to find 'op' in JSON Schema change")
    for op in ops:
        path = str(op.get("path", "")).lstrip("/")
        if path in READ_ONLY:
            raise SandboxError(403, f"Attribute '{path}' is read-only.")
        if op.get("op") in ("add", "replace"):
            check_schema(path, op.get("value"))
        if op.get("op") in ("add", "replace"):
            if op["op"] == "replace" and path not in img and path not in BASE_FIELDS:
                raise SandboxError(409, f"Property {path} does not exist.")
            img[path] = op.get("value")
        elif op.get("op") == "remove":
            if path in BASE_FIELDS:
                raise SandboxError(403, f"Attribute '{path}' is reserved.")
            if path not in img:
                raise SandboxError(409, f"Property {path} does not exist.")
            img.pop(path)
        else:
            raise SandboxError(400, f"Invalid operation: `{op.get('op')}`")
    img["updated_at"] = iso(store().clock())
    return reply(image_view(img))


@bp.delete("/images/<image_id>")
def delete_image(image_id: str) -> Any:
    img = _owned(image_id)
    if img.get("protected"):
        raise SandboxError(403, f"Image {image_id} is protected and cannot be deleted.")
    store().remove("images", image_id)
    return no_content()


def _store_data(img: Obj, data: bytes) -> None:
    img.update(size=len(data), virtual_size=len(data), checksum=hashlib.md5(data).hexdigest(),
               os_hash_algo="sha512", os_hash_value=hashlib.sha512(data).hexdigest(),
               updated_at=iso(store().clock()))
    if len(data) <= KEEP_BYTES:
        img["_data"] = base64.b64encode(data).decode()


@bp.put("/images/<image_id>/file")
def upload(image_id: str) -> Any:
    img = _owned(image_id)
    if img["status"] not in ("queued", "uploading"):
        raise SandboxError(409, f"Image status transition from {img['status']} to saving is not allowed")
    if not img.get("disk_format") or not img.get("container_format"):
        raise SandboxError(400, "Properties disk_format, container_format must be set prior to saving data.")
    _store_data(img, request.get_data())
    img["status"] = "active"
    return no_content()


@bp.put("/images/<image_id>/stage")
def stage(image_id: str) -> Any:
    img = _owned(image_id)
    if img["status"] != "queued":
        raise SandboxError(409, f"Image status transition from {img['status']} to uploading is not allowed")
    _store_data(img, request.get_data())
    img["status"] = "uploading"
    return no_content()


@bp.post("/images/<image_id>/import")
def import_image(image_id: str) -> Any:
    img = _owned(image_id)
    method = ((request.get_json(silent=True, force=True) or {}).get("method") or {}).get("name")
    if method not in ("glance-direct", "web-download", "copy-image"):
        raise SandboxError(400, f"Import method {method} is not supported.")
    if method == "glance-direct" and img["status"] != "uploading":
        raise SandboxError(409, "Image needs to be staged before 'glance-direct' method can be used")
    if method == "web-download" and img["size"] is None:
        _store_data(img, b"")
    img["status"] = "importing"
    store().schedule(img, sb().behaviour.delay("image_import"), {"status": "active"})
    return no_content(202)


@bp.get("/images/<image_id>/file")
def download(image_id: str) -> Any:
    img = get_image(image_id)
    if img["status"] != "active":
        raise SandboxError(403 if img["status"] == "deactivated" else 204, "The requested image has no data.")
    data = base64.b64decode(img.get("_data", "")) if img.get("_data") else b""
    resp = Response(data, mimetype="application/octet-stream")
    if img.get("checksum"):
        resp.headers["Content-MD5"] = img["checksum"]
    return resp


@bp.put("/images/<image_id>/tags/<tag>")
def add_tag(image_id: str, tag: str) -> Any:
    img = _owned(image_id)
    if tag not in img["tags"]:
        img["tags"].append(tag)
    store().touch()
    return no_content()


@bp.delete("/images/<image_id>/tags/<tag>")
def delete_tag(image_id: str, tag: str) -> Any:
    img = _owned(image_id)
    if tag not in img["tags"]:
        raise SandboxError(404, f"Tag {tag} not found.")
    img["tags"].remove(tag)
    store().touch()
    return no_content()


@bp.get("/info/import")
def import_info() -> Any:
    return reply({"import-methods": {"description": "Import methods available.", "type": "array",
                                     "value": ["glance-direct", "web-download", "copy-image"]}})


@bp.get("/info/stores")
def stores_info() -> Any:
    return reply({"stores": [{"id": "file", "description": "sandbox store", "default": True}]})


@bp.get("/schemas/<name>")
def schema(name: str) -> Any:
    return reply({"name": name, "properties": {}, "additionalProperties": {"type": "string"}, "links": []})
