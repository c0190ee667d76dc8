"""The sandbox's service catalog: every endpoint it serves, under path prefixes of one host.

URLs are built from the request's host (``http://127.0.0.1:<port>``), so a sandbox started on any
port hands out a catalog that points back at itself. The identity endpoint is
``<host>/identity/v3`` (the fixed interface); the other services are given unversioned where
their clients discover versions (Neutron, Glance, Octavia, Aodh) and versioned where deployments
usually are (Nova ``/compute/v2.1``, Cinder ``/volume/v3``).
"""
from __future__ import annotations

import hashlib
from typing import Any

REGION = "RegionOne"

# (service type, service name, path under the host)
SERVICES: tuple[tuple[str, str, str], ...] = (
    ("identity", "keystone", "/identity/v3"),
    ("compute", "nova", "/compute/v2.1"),
    ("network", "neutron", "/network"),
    ("block-storage", "cinder", "/volume/v3"),
    ("volumev3", "cinderv3", "/volume/v3"),
    ("image", "glance", "/image"),
    ("load-balancer", "octavia", "/load-balancer"),
    ("alarming", "aodh", "/alarming"),
    ("messaging", "zaqar", "/messaging"),
    ("object-store", "swift", "/v1/AUTH_%(project_id)s"),
    ("key-manager", "barbican", "/key-manager"),
    ("dns", "designate", "/dns"),
    ("workflowv2", "mistral", "/workflow/v2"),
    ("container", "zun", "/container/v1"),
    ("reservation", "blazar", "/reservation/v1"),
    ("baremetal", "ironic", "/baremetal"),
    ("container-infra", "magnum", "/container-infra/v1"),
    ("sharev2", "manilav2", "/share/v2"),
    ("database", "trove", "/database/v1.0/%(project_id)s"),
)


def _stable_id(*parts: str) -> str:
    return hashlib.md5("/".join(parts).encode()).hexdigest()


def catalog(host_url: str, extra: list[dict[str, str]] | None = None,
            project_id: str | None = None) -> list[dict[str, Any]]:
    """Keystone v3 catalog entries for the sandbox at ``host_url`` (``http://127.0.0.1:8090``).

    :param extra: more services, each ``{"type", "name", "url"}`` (e.g. Stoker's own
        orchestration endpoint when the sandbox runs beside it); as in Keystone, ``%(tenant_id)s``
        and ``%(project_id)s`` in a URL become the token's project id.
    """
    base = host_url.rstrip("/")
    entries = [{"type": t, "name": n, "url": base + p} for t, n, p in SERVICES]
    entries += [dict(e) for e in extra or []]
    out = []
    for e in entries:
        for key in ("%(tenant_id)s", "%(project_id)s", "$(tenant_id)s", "$(project_id)s"):
            e["url"] = e["url"].replace(key, project_id or "")
        sid = _stable_id("service", e["type"])
        endpoints = [{"id": _stable_id("endpoint", e["type"], iface), "interface": iface,
                      "region": REGION, "region_id": REGION, "url": e["url"]}
                     for iface in ("public", "internal", "admin")]
        out.append({"id": sid, "type": e["type"], "name": e["name"], "endpoints": endpoints})
    return out
