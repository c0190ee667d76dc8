"""Version discovery documents of the sandbox's services, as keystoneauth reads them: an
unversioned root listing versions (``{"versions": [...]}``) and a versioned root
(``{"version": {...}}``) with ``min_version``/``version`` for microversioned APIs.

Maximum microversions advertised: Nova 2.100, Cinder 3.71, Octavia 2.27; the sandbox answers
every microversion with a superset of the fields of all versions.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox.http import reply

bp = Blueprint("discovery", __name__)

UPDATED = "2024-04-01T00:00:00Z"

# prefix -> (version id, path under prefix, max microversion, min microversion, media type)
SERVICES: dict[str, tuple[str, str, str, str, str]] = {
    "compute": ("v2.1", "v2.1", "2.100", "2.1", "application/vnd.openstack.compute+json;version=2.1"),
    "volume": ("v3.0", "v3", "3.71", "3.0", "application/vnd.openstack.volume+json;version=3"),
    "network": ("v2.0", "v2.0", "", "", "application/json"),
    "image": ("v2.17", "v2", "", "", "application/json"),
    "load-balancer": ("v2.27", "v2", "", "", "application/json"),
    "alarming": ("v2", "v2", "", "", "application/json"),
}


def doc(prefix: str, status: str = "CURRENT") -> dict[str, Any]:
    vid, path, max_mv, min_mv, media = SERVICES[prefix]
    out: dict[str, Any] = {"id": vid, "status": status, "updated": UPDATED,
                           "links": [{"rel": "self", "href": f"{request.host_url.rstrip('/')}/{prefix}/{path}/"}],
                           "media-types": [{"base": "application/json", "type": media}]}
    if max_mv:
        out.update(version=max_mv, min_version=min_mv)
    else:
        out.update(version="", min_version="")
    return out


def _root(prefix: str) -> Any:
    return reply({"versions": [doc(prefix)]}, 300 if prefix in ("compute", "volume", "image") else 200)


def _versioned(prefix: str) -> Any:
    if prefix == "network":
        return reply({"resources": [{"name": n, "collection": n + "s", "links": []}
                                    for n in ("network", "subnet", "port", "router", "floatingip")]})
    return reply({"version": doc(prefix)})


for _prefix, (_vid, _path, *_rest) in SERVICES.items():
    _ep = _prefix.replace("-", "_")
    bp.add_url_rule(f"/{_prefix}", f"root_{_ep}", lambda p=_prefix: _root(p))
    bp.add_url_rule(f"/{_prefix}/", f"root_slash_{_ep}", lambda p=_prefix: _root(p))
    bp.add_url_rule(f"/{_prefix}/{_path}", f"ver_{_ep}", lambda p=_prefix: _versioned(p))
    bp.add_url_rule(f"/{_prefix}/{_path}/", f"ver_slash_{_ep}", lambda p=_prefix: _versioned(p))


@bp.get("/")
def index() -> Any:
    """The sandbox's own front page: where everything is."""
    base = request.host_url.rstrip("/")
    return reply({"sandbox": "stoker", "auth_url": f"{base}/identity/v3",
                  "services": {p: f"{base}/{p}" for p in SERVICES} | {"identity": f"{base}/identity"}})
