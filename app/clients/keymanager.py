"""Barbican lookups by reference (``http://.../v1/secrets/<uuid>`` or the uuid alone) for the
``barbican.secret`` / ``barbican.container`` constraints and the Barbican plugins, through the
connection's ``key_manager`` adapter, with Heat's messages (``EntityNotFound``):

    find_secret(cloud, ref)        # -> the uuid, or CloudError 404 "The Secret (ref) could not be found."
    payload(cloud, ref)            # -> the secret's payload as text (binary: base64)
"""
from __future__ import annotations

import base64
from typing import Any

from app import errors
from app.clients.errors import cloud_error, is_not_found
from app.clients.retry import Cloud

SERVICE = "key_manager"


def ref_id(ref: Any) -> str:
    """The uuid at the end of a Barbican href (a bare uuid is returned as it is)."""
    return str(ref or "").rstrip("/").rsplit("/", 1)[-1]


def _find(cloud: Cloud, kind: str, entity: str, ref: Any) -> str:
    ident = ref_id(ref)
    try:
        if not ident:
            raise cloud_error("empty reference", 404)
        cloud.request(SERVICE, "GET", f"/{kind}/{ident}")
    except errors.CloudError as exc:
        if is_not_found(exc) or exc.status == 400:
            raise cloud_error(f"The {entity} ({ref}) could not be found.", 404) from exc
        raise
    return ident


def find_secret(cloud: Cloud, ref: Any) -> str:
    """The uuid of the secret ``ref`` names (Heat's ``get_secret_by_ref``).

    :raises errors.CloudError: 404 "The Secret (<ref>) could not be found."; others as raised."""
    return _find(cloud, "secrets", "Secret", ref)


def find_container(cloud: Cloud, ref: Any) -> str:
    """The uuid of the container ``ref`` names (Heat's ``get_container_by_ref``); raises as
    :func:`find_secret` with "Container"."""
    return _find(cloud, "containers", "Container", ref)


def payload(cloud: Cloud, ref: Any) -> str | None:
    """The secret's payload: text as stored; bytes that are not UTF-8 as base64. ``None`` when
    the secret has no payload. :raises errors.CloudError: the secret cannot be read."""
    adapter = getattr(cloud.raw, SERVICE)

    def go() -> Any:
        return adapter.request(f"/secrets/{ref_id(ref)}/payload", "GET",
                               headers={"Accept": "*/*"}, raise_exc=True)
    try:
        resp = cloud.call(go)
    except errors.CloudError as exc:
        if is_not_found(exc) and "no payload" in exc.message:
            return None
        raise
    try:
        return str(resp.content.decode("utf-8"))
    except UnicodeDecodeError:
        return base64.b64encode(resp.content).decode()
