"""Per-project quotas for the sandbox's Nova, Neutron, Cinder and Octavia, with each service's
defaults and its own "quota exceeded" error.

Stored in the ``quotas`` collection as ``{"id": project_id, "compute": {...}, "network": {...},
"volume": {...}, "loadbalancer": {...}}`` holding only overrides; ``-1`` means unlimited.
"""
from __future__ import annotations

from typing import Any

from app.sandbox.http import SandboxError
from app.sandbox.store import Store

DEFAULTS: dict[str, dict[str, int]] = {
    # Nova's defaults (nova.conf [quota]).
    "compute": {"instances": 10, "cores": 20, "ram": 51200, "key_pairs": 100,
                "server_groups": 10, "server_group_members": 10, "metadata_items": 128,
                "injected_files": 5, "injected_file_content_bytes": 10240,
                "injected_file_path_bytes": 255},
    # Neutron's defaults (neutron.conf [quotas]).
    "network": {"network": 100, "subnet": 100, "port": 500, "router": 10, "floatingip": 50,
                "security_group": 10, "security_group_rule": 100, "subnetpool": -1, "rbac_policy": 10},
    # Cinder's defaults.
    "volume": {"volumes": 10, "gigabytes": 1000, "snapshots": 10, "backups": 10,
               "backup_gigabytes": 1000, "per_volume_gigabytes": -1, "groups": 10},
    # Octavia's defaults are unlimited.
    "loadbalancer": {"load_balancer": -1, "listener": -1, "pool": -1, "member": -1,
                     "health_monitor": -1, "l7policy": -1, "l7rule": -1},
}


def limits(store: Store, project_id: str | None, service: str) -> dict[str, int]:
    """The effective quota of ``project_id`` for ``service`` (defaults plus overrides)."""
    out = dict(DEFAULTS[service])
    record = store.get("quotas", project_id or "") if project_id else None
    if record:
        out.update(record.get(service, {}))
    return out


def update(store: Store, project_id: str, service: str, values: dict[str, Any]) -> dict[str, int]:
    """Override quota values; unknown keys are ignored. Returns the effective quota."""
    record = store.get("quotas", project_id)
    if record is None:
        record = store.add("quotas", {"id": project_id})
    known = {k: int(v) for k, v in values.items() if k in DEFAULTS[service]}
    record.setdefault(service, {}).update(known)
    store.touch()
    return limits(store, project_id, service)


def reset(store: Store, project_id: str, service: str) -> None:
    record = store.get("quotas", project_id)
    if record:
        record.pop(service, None)
        store.touch()


def exceeded_error(service: str, resource: str, limit: int = 0, used: int = 0,
                   requested: int = 1) -> SandboxError:
    """The error each service returns when a quota would be exceeded."""
    if service == "compute":
        return SandboxError(403, f"Quota exceeded for {resource}: Requested {requested}, but already "
                            f"used {used} of {limit} {resource}", "OverQuota")
    if service == "network":
        return SandboxError(409, f"Quota exceeded for resources: ['{resource}'].", "OverQuota")
    if service == "volume":
        names = {"volumes": "VolumeLimitExceeded", "gigabytes": "VolumeSizeExceedsAvailableQuota",
                 "snapshots": "SnapshotLimitExceeded", "backups": "BackupLimitExceeded"}
        return SandboxError(413, f"{names.get(resource, 'OverQuota')}: Maximum number of {resource} "
                            f"allowed ({limit}) exceeded for quota '{resource}'.", "OverQuota")
    if service == "loadbalancer":
        return SandboxError(403, f"Quota has been met for resources: {resource}", "QuotaException")
    if service == "image":
        return SandboxError(413, "Image storage quota exceeded", "OverQuota")
    return SandboxError(403, f"Quota exceeded for {resource}", "OverQuota")


def check(store: Store, project_id: str | None, service: str, resource: str, used: int,
          requested: int = 1) -> None:
    """:raises SandboxError: the service's quota error when ``used + requested`` exceeds the quota."""
    limit = limits(store, project_id, service).get(resource, -1)
    if limit >= 0 and used + requested > limit:
        raise exceeded_error(service, resource, limit, used, requested)
