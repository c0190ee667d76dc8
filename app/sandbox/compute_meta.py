"""Nova v2.1 server metadata, tags (2.26) and ips for the sandbox."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox.compute_servers import addresses, check_unlocked, get_server
from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.runtime import store

bp = Blueprint("compute_meta", __name__)


# ---- metadata and ips -----------------------------------------------------------------------
@bp.get("/servers/<server_id>/metadata")
def get_metadata(server_id: str) -> Any:
    return reply({"metadata": get_server(server_id)["metadata"]})


@bp.route("/servers/<server_id>/metadata", methods=["PUT", "POST"])
def set_metadata(server_id: str) -> Any:
    server = get_server(server_id)
    check_unlocked(server)
    data = body().get("metadata")
    if not isinstance(data, dict):
        raise SandboxError(400, "Malformed request body")
    new = {str(k): str(v) for k, v in data.items()}
    server["metadata"] = new if request.method == "PUT" else {**server["metadata"], **new}
    store().touch()
    return reply({"metadata": server["metadata"]})


@bp.get("/servers/<server_id>/metadata/<key>")
def get_meta_item(server_id: str, key: str) -> Any:
    meta = get_server(server_id)["metadata"]
    if key not in meta:
        raise SandboxError(404, "Metadata item was not found")
    return reply({"meta": {key: meta[key]}})


@bp.put("/servers/<server_id>/metadata/<key>")
def set_meta_item(server_id: str, key: str) -> Any:
    server = get_server(server_id)
    item = body().get("meta") or {}
    if key not in item or len(item) != 1:
        raise SandboxError(400, "Request body and URI mismatch")
    server["metadata"][key] = str(item[key])
    store().touch()
    return reply({"meta": {key: server["metadata"][key]}})


@bp.delete("/servers/<server_id>/metadata/<key>")
def delete_meta_item(server_id: str, key: str) -> Any:
    server = get_server(server_id)
    if key not in server["metadata"]:
        raise SandboxError(404, "Metadata item was not found")
    del server["metadata"][key]
    store().touch()
    return no_content()


CONSOLES = {"novnc": ("vnc", 6080, "/vnc_auto.html"), "xvpvnc": ("vnc", 6081, "/console"),
            "spice-html5": ("spice", 6082, "/spice_auto.html"), "serial": ("serial", 6083, "/"),
            "webmks": ("mks", 6090, "/")}


def console_url(server_id: str, kind: str) -> tuple[str, str]:
    """(protocol, url) of a remote console of ``kind``; nothing listens there (a sandbox).

    :raises SandboxError: 400 for an unknown console type, 409 when the server is not running.
    """
    import secrets
    server = get_server(server_id)
    if kind not in CONSOLES:
        raise SandboxError(400, f"Invalid input for field/attribute type. Value: {kind}.")
    if server["status"] != "ACTIVE":
        raise SandboxError(409, f"Instance {server_id} is not ready: console unavailable.")
    protocol, port, path = CONSOLES[kind]
    return protocol, f"http://127.0.0.1:{port}{path}?path=%3Ftoken%3D{secrets.token_hex(16)}"


@bp.post("/servers/<server_id>/remote-consoles")
def remote_console(server_id: str) -> Any:
    data = body("remote_console")
    protocol, url = console_url(server_id, str(data.get("type")))
    return reply({"remote_console": {"protocol": protocol, "type": data.get("type"), "url": url}})


@bp.get("/servers/<server_id>/ips")
def server_ips(server_id: str) -> Any:
    return reply({"addresses": addresses(get_server(server_id))})


# ---- tags (2.26) ----------------------------------------------------------------------------
@bp.get("/servers/<server_id>/tags")
def get_tags(server_id: str) -> Any:
    return reply({"tags": get_server(server_id).get("tags", [])})


@bp.put("/servers/<server_id>/tags")
def set_tags(server_id: str) -> Any:
    server = get_server(server_id)
    tags = body().get("tags")
    if not isinstance(tags, list) or len(tags) > 50:
        raise SandboxError(400, "Invalid input for field/attribute tags.")
    server["tags"] = [str(t) for t in dict.fromkeys(tags)]
    store().touch()
    return reply({"tags": server["tags"]})


@bp.route("/servers/<server_id>/tags/<tag>", methods=["GET", "PUT", "DELETE"])
def one_tag(server_id: str, tag: str) -> Any:
    server = get_server(server_id)
    tags = server.setdefault("tags", [])
    if request.method == "PUT":
        created = tag not in tags
        if created:
            tags.append(tag)
        store().touch()
        return no_content(201 if created else 204)
    if tag not in tags:
        raise SandboxError(404, f"Tag {tag} could not be found.")
    if request.method == "DELETE":
        tags.remove(tag)
        store().touch()
    return no_content()


@bp.delete("/servers/<server_id>/tags")
def clear_tags(server_id: str) -> Any:
    get_server(server_id)["tags"] = []
    store().touch()
    return no_content()
