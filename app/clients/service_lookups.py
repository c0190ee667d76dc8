"""Custom constraints of the services reached by raw REST calls (Magnum, Manila, Trove), looked up
as Heat's client plugins look them up, with their messages:

* ``magnum.cluster_template``: ``GET /clustertemplates/{name or id}`` (Magnum finds either);
  missing: ``The ClusterTemplate (x) could not be found.``
* ``manila.share_type`` / ``manila.share_network`` / ``manila.share_snapshot``: the list, an id
  match first, then a name (two of that name: ``Ambiguous share type name 'x'. Found more than
  one share type for this name in Manila.``); missing: ``The share type (x) could not be found.``
* ``trove.flavor``: ``GET /flavors/{id}``, then the flavor of that name; missing:
  ``No Flavor matching {'name': 'x'}. (HTTP 404)`` (troveclient's ``find``).

:func:`find` returns a :class:`Found` (``.id`` and the API's fields) or raises
:class:`app.errors.CloudError` (404 with the message above).
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.clients.errors import cloud_error

MAGNUM, MANILA, TROVE = "container_infrastructure_management", "shared_file_system", "database"
#: Manila lists: constraint -> (path, list key, the noun Heat's messages use)
MANILA_LISTS = {"manila.share_type": ("/types", "share_types", "share type"),
                "manila.share_network": ("/share-networks/detail", "share_networks", "share network"),
                "manila.share_snapshot": ("/snapshots/detail", "snapshots", "share snapshot"),
                "manila.security_service": ("/security-services/detail", "security_services",
                                            "security service")}
NAMES = frozenset({"magnum.cluster_template", "trove.flavor", *MANILA_LISTS})
#: the microversion the Manila requests of the plugins ask for
MANILA_HEADERS = {"X-OpenStack-Manila-API-Version": "2.45"}


class Found(dict[str, Any]):
    """An object the cloud showed: its JSON, and ``.id``."""

    @property
    def id(self) -> str:
        return str(self.get("id") or self.get("uuid"))


def find(cloud: Any, name: str, value: Any) -> Found:
    """The object custom constraint ``name`` designates by ``value`` (id or name).

    :raises errors.CloudError: 404 with Heat's message when there is none; 409 for an
        ambiguous Manila name; the cloud's error otherwise.
    :raises KeyError: ``name`` is not one of :data:`NAMES`."""
    text = str(value)
    if name == "magnum.cluster_template":
        try:
            return Found(cloud.request(MAGNUM, "GET", f"/clustertemplates/{text}"))
        except errors.CloudError as exc:
            if exc.status == 404:
                raise cloud_error(f"The ClusterTemplate ({text}) could not be found.", 404) from exc
            raise
    if name == "trove.flavor":
        try:
            return Found(cloud.request(TROVE, "GET", f"/flavors/{text}")["flavor"])
        except errors.CloudError as exc:
            if exc.status != 404:
                raise
        flavors = cloud.request(TROVE, "GET", "/flavors")["flavors"]
        for flavor in flavors:
            if flavor.get("name") == text:
                return Found(flavor)
        raise cloud_error(f"No Flavor matching {{'name': '{text}'}}. (HTTP 404)", 404)
    path, key, noun = MANILA_LISTS[name]
    items = cloud.request(MANILA, "GET", path, headers=dict(MANILA_HEADERS))[key]
    by_id = [o for o in items if o.get("id") == text]
    if by_id:
        return Found(by_id[0])
    named = [o for o in items if o.get("name") == text]
    if len(named) > 1:
        raise cloud_error(f"Ambiguous {noun} name '{text}'. Found more than one {noun} for this "
                          f"name in Manila.", 409)
    if not named:
        raise cloud_error(f"The {noun} ({text}) could not be found.", 404)
    return Found(named[0])
