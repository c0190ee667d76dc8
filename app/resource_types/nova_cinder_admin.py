"""Nova's and Cinder's operator types (Heat 27): OS::Nova::HostAggregate, OS::Nova::Quota,
OS::Cinder::Quota, OS::Cinder::QoSSpecs and OS::Cinder::QoSAssociation
(``heat/engine/resources/openstack/{nova,cinder}/``). All of them are admin-only by Heat's
default policy (:data:`app.auth.resource_policy.ADMIN_TYPES`).

More in docs/code/resource_types.md (app.resource_types.nova_cinder_admin).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import admin as sch
from app.resource_types.base import Resource
from app.resource_types.octavia_admin import project_id


def _unspecified(names: list[str]) -> errors.ValidationError:
    return errors.ValidationError("At least one of the following properties must be specified: "
                                  f"{', '.join(names)}.")


class HostAggregate(CloudResource):
    """A Nova host aggregate; reference id: its (integer) id."""

    type_name = "OS::Nova::HostAggregate"
    support_status = sch.HOST_AGGREGATE_SUPPORT
    properties_schema = sch.HOST_AGGREGATE_PROPERTIES
    attributes_schema = sch.HOST_AGGREGATE_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        compute = self.cloud().compute
        attrs: dict[str, Any] = {"name": p["name"]}
        if p.get("availability_zone"):
            attrs["availability_zone"] = p["availability_zone"]
        agg = compute.create_aggregate(**attrs)
        self.resource_id = str(agg.id)
        if p.get("metadata"):
            compute.set_aggregate_metadata(self.resource_id, dict(p["metadata"]))
        for host in p.get("hosts") or []:
            compute.add_host_to_aggregate(self.resource_id, host)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Hosts by diff against the live aggregate, metadata set, name / zone in place."""
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        if not changed:
            return
        compute = self.cloud().compute
        if "hosts" in changed:
            live = set(compute.get_aggregate(self.resource_id).hosts or [])
            wanted = list(self.properties.get("hosts") or [])
            for host in [h for h in wanted if h not in live]:
                compute.add_host_to_aggregate(self.resource_id, host)
            for host in sorted(live - set(wanted)):
                compute.remove_host_from_aggregate(self.resource_id, host)
        if "metadata" in changed:
            new = dict(self.properties.get("metadata") or {})
            gone = {k: None for k in (old.get("metadata") or {}) if k not in new}
            if new or gone:
                compute.set_aggregate_metadata(self.resource_id, {**gone, **new})
        rest = {k: self.properties.get(k) for k in ("name", "availability_zone") if k in changed}
        if rest:
            compute.update_aggregate(self.resource_id, **rest)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().compute.get_aggregate(self.resource_id)

    def _delete(self) -> None:
        compute = self.cloud().compute
        for host in list(compute.get_aggregate(self.resource_id).hosts or []):
            compute.remove_host_from_aggregate(self.resource_id, host)
        compute.delete_aggregate(self.resource_id)


class _Quota(CloudResource):
    """A project's quota of one service: ``service`` (the SDK proxy) and ``limits``."""

    service: ClassVar[str] = ""
    limits: ClassVar[tuple[str, ...]] = ()

    def validate(self) -> None:
        """:raises errors.ValidationError: no limit given (Heat's PropertyUnspecifiedError)."""
        if not any(self.properties.get(k) is not None for k in self.limits):
            raise _unspecified(list(self.limits))
        super().validate()

    def _project(self) -> str:
        return project_id(self, str(self.properties["project"]))

    def given(self) -> dict[str, int]:
        return {k: int(v) for k, v in self.properties.items()
                if k in self.limits and v is not None}

    def check_usage(self, project: str, limits: dict[str, int]) -> None:
        """Hook: refuse limits below the project's usage."""

    def _set(self) -> None:
        project, limits = self._project(), self.given()
        self.check_usage(project, limits)
        getattr(self.cloud(), self.service).update_quota_set(project, **limits)

    def handle_create(self) -> None:
        self._set()
        self.resource_id = self.physical_resource_name()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self._set()

    def handle_delete(self) -> None:
        if self.resource_id:
            getattr(self.cloud(), self.service).revert_quota_set(self._project())

    def _fetch(self) -> Any:
        return getattr(self.cloud(), self.service).get_quota_set(self._project())


class NovaQuota(_Quota):
    """The compute quota of ``project``."""

    type_name = "OS::Nova::Quota"
    support_status = sch.NOVA_QUOTA_SUPPORT
    properties_schema = sch.NOVA_QUOTA_PROPERTIES
    attributes_schema = sch.NOVA_QUOTA_ATTRIBUTES
    service = "compute"
    limits = tuple(sorted(set(sch.NOVA_QUOTA_PROPERTIES) - {"project"}))


class CinderQuota(_Quota):
    """The block-storage quota of ``project``."""

    type_name = "OS::Cinder::Quota"
    support_status = sch.CINDER_QUOTA_SUPPORT
    properties_schema = sch.CINDER_QUOTA_PROPERTIES
    attributes_schema = sch.CINDER_QUOTA_ATTRIBUTES
    service = "block_storage"
    limits = ("gigabytes", "snapshots", "volumes", "backups", "backup_gigabytes")

    def check_usage(self, project: str, limits: dict[str, int]) -> None:
        """Heat's ``validate_quotas``: a limit (other than -1) below the usage is refused.

        :raises errors.StokerError: "Invalid quota <p> value(s): <v>. Can not be less than
            the current usage value(s): <u>." """
        wanted = {k: v for k, v in limits.items() if v != -1}
        if not wanted:
            return
        bs = self.cloud().block_storage
        query = {"all_projects": True, "project_id": project}
        volumes = list(bs.volumes(**query))
        snapshots = list(bs.snapshots(**query))
        backups = list(bs.backups(**query)) if {"backups", "backup_gigabytes"} & set(wanted) \
            else []
        usage = {"gigabytes": sum(int(o.size or 0) for o in volumes + snapshots),
                 "volumes": len(volumes), "snapshots": len(snapshots), "backups": len(backups),
                 "backup_gigabytes": sum(int(o.size or 0) for o in backups)}
        for key in ("gigabytes", "volumes", "backups", "backup_gigabytes", "snapshots"):
            if key in wanted and wanted[key] < usage[key]:
                raise errors.StokerError(
                    f"Invalid quota {key} value(s): {wanted[key]}. Can not be less than the "
                    f"current usage value(s): {usage[key]}.")


class QoSSpecs(CloudResource):
    """Cinder QoS specs (``name``, ``specs``)."""

    type_name = "OS::Cinder::QoSSpecs"
    support_status = sch.QOS_SPECS_SUPPORT
    properties_schema = sch.QOS_SPECS_PROPERTIES
    attributes_schema = sch.QOS_SPECS_ATTRIBUTES

    def handle_create(self) -> None:
        specs = {str(k): str(v) for k, v in (self.properties.get("specs") or {}).items()}
        spec = self.cloud().block_storage.create_qos_spec(name=self.name_or_physical(), **specs)
        self.resource_id = str(spec.id)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Keys added or changed are set, keys no longer given are deleted."""
        self.check_replace(changed, new_properties)
        old = dict(self.properties.get("specs") or {})
        self.properties = dict(new_properties)
        new = dict(self.properties.get("specs") or {})
        bs = self.cloud().block_storage
        added = {str(k): str(v) for k, v in new.items() if old.get(k) != v}
        if added:
            bs.update_qos_spec(self.resource_id, **added)
        removed = [k for k in old if k not in new]
        if removed:
            bs.delete_qos_spec_metadata(self.resource_id, removed)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().block_storage.get_qos_spec(self.resource_id)

    def _delete(self) -> None:
        bs = self.cloud().block_storage
        bs.disassociate_all_qos_spec(self.resource_id)
        bs.delete_qos_spec(self.resource_id, ignore_missing=False)


class QoSAssociation(CloudResource):
    """``qos_specs`` bound to each of ``volume_types``; reference id: a generated id."""

    type_name = "OS::Cinder::QoSAssociation"
    support_status = sch.QOS_ASSOCIATION_SUPPORT
    properties_schema = sch.QOS_ASSOCIATION_PROPERTIES
    attributes_schema = sch.QOS_ASSOCIATION_ATTRIBUTES

    def _spec(self) -> str:
        return str(self.resolve("cinder.qos_specs", self.properties["qos_specs"]))

    def _types(self, names: Any) -> list[str]:
        return [str(self.resolve("cinder.vtype", t)) for t in names or []]

    def handle_create(self) -> None:
        spec = self._spec()
        for vtype in self._types(self.properties["volume_types"]):
            self.cloud().block_storage.associate_qos_spec(spec, vtype)
        self.resource_id = self.physical_resource_name()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Volume types bound or unbound by diff."""
        self.check_replace(changed, new_properties)
        old = set(self._types(self.properties.get("volume_types")))
        self.properties = dict(new_properties)
        new = self._types(self.properties.get("volume_types"))
        spec, bs = self._spec(), self.cloud().block_storage
        for vtype in [t for t in new if t not in old]:
            bs.associate_qos_spec(spec, vtype)
        for vtype in sorted(old - set(new)):
            bs.disassociate_qos_spec(spec, vtype)

    def handle_delete(self) -> None:
        if not self.resource_id:
            return
        try:
            spec, bs = self._spec(), self.cloud().block_storage
            for vtype in self._types(self.properties.get("volume_types")):
                bs.disassociate_qos_spec(spec, vtype)
        except errors.CloudError as exc:
            if exc.status != 404:
                raise

    def show_resource(self) -> dict[str, Any] | None:
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (HostAggregate, NovaQuota, CinderQuota, QoSSpecs,
                                           QoSAssociation)}
