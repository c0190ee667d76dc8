"""Keystone names and ids resolved as Heat's ``KeystoneClientPlugin`` resolves them
(``heat/engine/clients/os/keystone/__init__.py``), over the Keystone v3 REST API:

    find(cloud, "project", "demo")            # -> {"id": ..., "name": "demo", ...}
    find(cloud, "role", "member{Default}")    # a name in a domain, Heat's ``name{domain}`` form

A value is first read as an id (``GET /<collection>/<value>``); on a 404 it is looked up by
name (``GET /<collection>?name=<value>`` (``&domain_id=`` from the ``{domain}`` suffix)), the
first exact match winning, as Heat's. A service name matching several services is Heat's
``KeystoneServiceNameConflict``; a region is looked up by id only. Nothing found: a 404
``CloudError`` worded as Heat's ``EntityNotFound`` (``The KeystoneProject (x) could not be
found.``). Other cloud errors (403 for a non-admin...) are raised as they come.
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from app import errors
from app.clients.errors import cloud_error, is_not_found

#: kind -> (collection, Heat's entity name, looked up by name too, name may carry {domain})
KINDS: dict[str, tuple[str, str, bool, bool]] = {
    "domain": ("domains", "KeystoneDomain", True, False),
    "project": ("projects", "KeystoneProject", True, True),
    "user": ("users", "KeystoneUser", True, True),
    "group": ("groups", "KeystoneGroup", True, True),
    "role": ("roles", "KeystoneRole", True, True),
    "service": ("services", "KeystoneService", True, False),
    "region": ("regions", "KeystoneRegion", False, False),
}
_WITH_DOMAIN = re.compile(r"\{(.*?)\}$")


def not_found(kind: str, value: str) -> errors.CloudError:
    """Heat's ``EntityNotFound`` for a Keystone entity, as a permanent 404."""
    return cloud_error(f"The {KINDS[kind][1]} ({value}) could not be found.", 404)


def _get(cloud: Any, path: str, params: dict[str, str] | None = None) -> Any:
    return cloud.request("identity", "GET", path, **({"params": params} if params else {}))


def find(cloud: Any, kind: str, value: str) -> dict[str, Any]:
    """The Keystone object of ``kind`` (a key of :data:`KINDS`) that ``value`` designates.

    :raises errors.CloudError: 404 (Heat's wording) when none; Heat's service-name conflict
        (permanent, status ``None``); other cloud errors unchanged.
    """
    collection, _entity, by_name, domain_suffix = KINDS[kind]
    name, domain = value, None
    if domain_suffix:
        match = _WITH_DOMAIN.search(value)
        if match:
            name = value[:match.start()]
            try:
                domain = str(find(cloud, "domain", match.group(1))["id"])
            except errors.CloudError as exc:
                if is_not_found(exc):
                    raise not_found(kind, value) from None
                raise
    single = collection[:-1]
    try:
        return dict(_get(cloud, f"/{collection}/{quote(name, safe='')}")[single])
    except errors.CloudError as exc:
        if not is_not_found(exc):
            raise
    if not by_name:
        raise not_found(kind, value)
    params = {"name": name}
    if domain:
        params["domain_id"] = domain
    listed = [o for o in _get(cloud, f"/{collection}", params)[collection] if o.get("name") == name]
    if kind == "service" and len(listed) > 1:
        raise cloud_error(f"Keystone has more than one service with same name {name}. Please use "
                          "service id instead of name", None, transient=False)
    if kind == "user" and len(listed) > 1:
        raise cloud_error(f"Multiple users matching {name}", None, transient=False)
    if not listed:
        raise not_found(kind, value)
    return dict(listed[0])


def find_id(cloud: Any, kind: str, value: str) -> str:
    """The id of :func:`find`'s answer; raises as it."""
    return str(find(cloud, kind, value)["id"])
