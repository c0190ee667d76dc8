"""Cinder's admin resource types: VolumeType and EncryptedVolumeType (Heat 27's schemas,
``heat/engine/resources/openstack/cinder/volume_type.py`` and ``vt_encryption.py``).

More in docs/code/resource_types.md (app.resource_types.cinder).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource
from app.resource_types._schemas import cinder as sch
from app.resource_types.base import Resource


class VolumeType(CloudResource):
    """A volume type (admin); ``metadata`` are its extra specs, ``projects`` get access to a
    private type."""

    type_name = "OS::Cinder::VolumeType"
    support_status = sch.VOLUME_TYPE_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.VOLUME_TYPE_PROPERTIES
    attributes_schema = sch.VOLUME_TYPE_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        attrs: dict[str, Any] = {"name": p["name"], "is_public": self.get_property("is_public")}
        if p.get("description"):
            attrs["description"] = p["description"]
        if p.get("metadata"):
            attrs["extra_specs"] = {k: str(v) for k, v in p["metadata"].items()}
        storage = self.cloud().block_storage
        vtype = storage.create_type(**attrs)
        self.resource_id = vtype.id
        if not attrs["is_public"]:
            for project in p.get("projects") or []:
                storage.add_type_access(vtype, project)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``name`` / ``is_public`` updated, ``metadata`` (extra specs) replaced, ``projects``
        access added / removed."""
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        p = self.properties
        storage = self.cloud().block_storage
        attrs = {k: p.get(k) for k in ("name", "is_public") if k in changed}
        if attrs:
            storage.update_type(self.resource_id, **attrs)
        if "metadata" in changed:
            new = {k: str(v) for k, v in (p.get("metadata") or {}).items()}
            removed = [k for k in old.get("metadata") or {} if k not in new]
            if removed:
                storage.delete_type_extra_specs(self.resource_id, removed)
            if new:
                storage.update_type_extra_specs(self.resource_id, **new)
        if "projects" in changed:
            new_p, old_p = set(p.get("projects") or []), set(old.get("projects") or [])
            for project in sorted(old_p - new_p):
                storage.remove_type_access(self.resource_id, project)
            for project in sorted(new_p - old_p):
                storage.add_type_access(self.resource_id, project)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().block_storage.get_type(self.resource_id)

    def _delete(self) -> None:
        self.cloud().block_storage.delete_type(self.resource_id)


class EncryptedVolumeType(CloudResource):
    """Encryption of ``volume_type`` (admin). Reference id: the volume type's id."""

    type_name = "OS::Cinder::EncryptedVolumeType"
    support_status = sch.ENCRYPTED_VOLUME_TYPE_SUPPORT
    properties_schema = sch.ENCRYPTED_VOLUME_TYPE_PROPERTIES
    attributes_schema = sch.ENCRYPTED_VOLUME_TYPE_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        vtype = self.resolve("cinder.vtype", p.get("volume_type"))
        attrs: dict[str, Any] = {"provider": p["provider"],
                                 "control_location": self.get_property("control_location")}
        for key in ("cipher", "key_size"):
            if p.get(key) is not None:
                attrs[key] = p[key]
        self.cloud().block_storage.create_type_encryption(vtype, **attrs)
        self.resource_id = vtype

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """The encryption's ``provider`` / ``cipher`` / ``key_size`` / ``control_location``."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        attrs = {k: self.get_property(k) for k in changed}
        if attrs:
            storage = self.cloud().block_storage
            encryption = storage.get_type_encryption(self.resource_id)
            storage.update_type_encryption(encryption=encryption, volume_type=self.resource_id,
                                           **attrs)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().block_storage.get_type_encryption(self.resource_id)

    def _delete(self) -> None:
        storage = self.cloud().block_storage
        encryption = storage.get_type_encryption(self.resource_id)
        if not getattr(encryption, "encryption_id", None):
            return
        storage.delete_type_encryption(encryption=encryption, volume_type=self.resource_id)

    def _gone(self) -> bool:
        try:
            found = self._fetch()
        except errors.CloudError as exc:
            if is_not_found(exc):
                return True
            raise
        return not getattr(found, "encryption_id", None)

def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (VolumeType, EncryptedVolumeType)}
