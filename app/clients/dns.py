"""Designate zone lookups for the ``designate.zone`` constraint and the Designate plugins,
through the connection's ``dns`` adapter, as Heat's ``get_zone_id``: by id first, then the one
zone of that name; Heat's message otherwise::

    find_zone(cloud, "example.org.")   # -> the zone id
    # CloudError 404 "The Designate Zone (example.org.) could not be found."
"""
from __future__ import annotations

import re
from typing import Any

from app import errors
from app.clients.errors import cloud_error
from app.clients.retry import Cloud

SERVICE = "dns"
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                   r"[0-9a-fA-F]{12}$")


def find_zone(cloud: Cloud, value: Any) -> str:
    """The id of the zone ``value`` (id or name) designates.

    :raises errors.CloudError: 404 with Heat's message when there is none (or several); other
        cloud errors as raised."""
    text = str(value)
    if _UUID.match(text):
        try:
            return str(cloud.request(SERVICE, "GET", f"/zones/{text}")["id"])
        except errors.CloudError as exc:
            if exc.status not in (400, 404):
                raise
    zones = (cloud.request(SERVICE, "GET", "/zones", params={"name": text}) or {}).get("zones") or []
    if len(zones) == 1:
        return str(zones[0]["id"])
    raise cloud_error(f"The Designate Zone ({text}) could not be found.", 404)
