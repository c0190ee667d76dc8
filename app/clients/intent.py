"""Intent markers: a create's object made findable as its resource's before the POST.

An object with Heat's physical name is found by that name; one with a name the user gave
carries a marker the cloud keeps and lists by (a Nova or Neutron tag, a Cinder volume
metadata key ``stoker-resource-<uuid>`` of the resource row), as AWS CloudFormation tags what it
makes. A cloud without the feature gets no marker, and its user-named objects are not adopted.

More in docs/code/clients.md (app.clients.intent).
"""
from __future__ import annotations

import re
import threading
import time
from typing import Any

from app.clients.retry import Cloud

#: Marker tag prefix (Nova: at most 60 characters, no ``,`` or ``/``; Neutron: 255)
TAG_PREFIX = "stoker-resource-"
#: Cinder metadata key of the marker
METADATA_KEY = "stoker-resource"
#: Nova microversions: tags in the create body; the ``tags`` filter of the list
NOVA_CREATE_TAGS = "2.52"
NOVA_LIST_TAGS = "2.26"
#: Neutron extensions that take ``tags`` in a create's body
NEUTRON_TAG_CREATION = "tag-creation"
NEUTRON_PORT_TAGS = "tag-ports-during-bulk-creation"
#: Seconds a cloud's answer about its features is kept (per connection)
FEATURES_TTL = 60.0

_features: dict[tuple[int, str], tuple[float, Any]] = {}
_lock = threading.Lock()


def tag(uuid: str) -> str:
    """The marker tag of the resource whose row uuid is ``uuid``."""
    return f"{TAG_PREFIX}{uuid}"


def _feature(cloud: Cloud, name: str, ask: Any) -> Any:
    key = (id(cloud.raw), name)
    now = time.monotonic()
    with _lock:
        hit = _features.get(key)
        if hit is not None and now - hit[0] < FEATURES_TTL:
            return hit[1]
    value = ask()
    with _lock:
        _features[key] = (now, value)
    return value


def nova_takes_tags(cloud: Cloud) -> bool:
    """Whether the compute API takes ``tags`` in a server's create body (2.52+)."""
    def ask() -> bool:
        from openstack import utils
        try:
            return bool(utils.supports_microversion(cloud.raw.compute, NOVA_CREATE_TAGS))
        except Exception:  # no endpoint data: no marker, as without the microversion
            return False
    return bool(_feature(cloud, "nova-tags", ask))


def neutron_takes_tags(cloud: Cloud, collection: str) -> bool:
    """Whether Neutron takes ``tags`` in the create body of ``collection`` (``"ports"``...)."""
    def ask() -> frozenset[str]:
        body = cloud.request("network", "GET", "/extensions") or {}
        return frozenset(str(e.get("alias")) for e in body.get("extensions") or ())
    aliases = _feature(cloud, "neutron-extensions", ask)
    return NEUTRON_TAG_CREATION in aliases or (collection == "ports" and NEUTRON_PORT_TAGS in aliases)


def find_server(cloud: Cloud, name: str, uuid: str) -> str | None:
    """The id of the server named ``name`` that carries ``uuid``'s marker, or None."""
    marker = tag(uuid)
    body = cloud.request("compute", "GET", "/servers/detail", microversion=NOVA_LIST_TAGS,
                         params={"name": f"^{re.escape(name)}$", "tags": marker}) or {}
    return _oldest([s for s in body.get("servers") or ()
                    if s.get("name") == name and marker in (s.get("tags") or ())])


def find_neutron(cloud: Cloud, path: str, key: str, name: str | None, uuid: str) -> str | None:
    """The id of the Neutron object listed at ``path`` (``"ports"``, ``"security-groups"``...;
    body key ``key``), named ``name`` (None: any name), that carries ``uuid``'s marker, or
    None."""
    marker = tag(uuid)
    params = {"tags": marker, **({"name": name} if name is not None else {})}
    body = cloud.request("network", "GET", f"/{path}", params=params) or {}
    return _oldest([o for o in body.get(key) or ()
                    if marker in (o.get("tags") or ())
                    and (name is None or o.get("name") == name)])


def find_volume(cloud: Cloud, name: str, uuid: str) -> str | None:
    """The id of the volume named ``name`` whose metadata carries ``uuid``'s marker, or None."""
    body = cloud.request("block_storage", "GET", "/volumes/detail", params={"name": name}) or {}
    return _oldest([v for v in body.get("volumes") or ()
                    if v.get("name") == name
                    and (v.get("metadata") or {}).get(METADATA_KEY) == uuid])


def _oldest(found: list[dict[str, Any]]) -> str | None:
    """The first-made of what carries a marker (two tries that both made one: the first)."""
    if not found:
        return None
    found.sort(key=lambda o: (str(o.get("created") or o.get("created_at") or ""), str(o["id"])))
    return str(found[0]["id"])
