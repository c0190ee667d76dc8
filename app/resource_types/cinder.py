"""Cinder resource types: Volume and VolumeAttachment (Heat 27's schemas,
``heat/engine/resources/openstack/cinder/``). The admin's volume types are in
:mod:`app.resource_types.cinder_types`.

More in docs/code/resource_types.md (app.resource_types.cinder).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import intent, is_not_found
from app.clients.status import VOLUME
from app.clients.status import volume as read_volume
from app.resource_types._actions import VolumeActions
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource, in_error, plain
from app.resource_types._schemas import cinder as sch
from app.resource_types.base import NotSupported, Resource


class Volume(CloudResource, VolumeActions):
    """A Cinder volume."""

    #: Heat's CinderVolume.needs_replace_failed
    broken_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR", "DELETING"})

    type_name = "OS::Cinder::Volume"
    support_status = sch.VOLUME_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.VOLUME_PROPERTIES
    attributes_schema = sch.VOLUME_ATTRIBUTES
    attribute_keys: ClassVar[dict[str, str]] = {"display_name": "name",
                                                "display_description": "description",
                                                "multiattach": "multiattach"}

    status_kind = VOLUME

    def validate(self) -> None:
        """:meth:`check_create_sources`, then the cloud-backed constraints.
        :raises errors.ValidationError: Heat's StackValidationFailed messages."""
        self.check_create_sources()
        super().validate()

    def check_create_sources(self) -> None:
        """Heat's ``CinderVolume._validate_create_sources``: unless made from a backup, a volume
        needs a ``size`` or exactly one source that gives it one (``snapshot_id`` or
        ``source_volid``), and with a ``size`` at most one source (those two, or ``image``)."""
        p = self.properties
        if not p.get("backup_id"):
            sized = [k for k in ("snapshot_id", "source_volid") if p.get(k)]
            sources = sized + (["image"] if p.get("image") else [])
            if p.get("size") is None and (len(sized) != 1 or len(sources) != 1):
                raise errors.ValidationError(
                    'If neither "backup_id" nor "size" is provided, one and only one of '
                    '"source_volid", "snapshot_id" must be specified, but currently specified '
                    f"options: {sources}.")
            if p.get("size") and len(sources) > 1:
                raise errors.ValidationError(
                    'If "size" is provided, only one of "image", "imageRef", "source_volid", '
                    f'"snapshot_id" can be specified, but currently specified options: {sources}.')

    def _fetch(self) -> Any:
        return self.cloud().block_storage.get_volume(self.resource_id)

    def handle_create(self) -> None:
        p = self.properties
        storage = self.cloud().block_storage
        if self.adopt(VOLUME):
            return
        name = self.name_or_physical()
        if p.get("backup_id"):
            restored = storage.restore_backup(self.resolve("cinder.backup", p["backup_id"]),
                                              name=name)
            self.resource_id = restored.volume_id if hasattr(restored, "volume_id") \
                else restored["volume_id"]
            return
        attrs: dict[str, Any] = {"name": name, "size": p.get("size"),
                                 "description": p.get("description")}
        if p.get("image"):
            attrs["image_id"] = self.resolve("glance.image", p["image"])
        if p.get("snapshot_id"):
            attrs["snapshot_id"] = self.resolve("cinder.snapshot", p["snapshot_id"])
        if p.get("source_volid"):
            attrs["source_volume_id"] = self.resolve("cinder.volume", p["source_volid"])
        if p.get("volume_type"):
            attrs["volume_type"] = p["volume_type"]
        if p.get("availability_zone"):
            attrs["availability_zone"] = p["availability_zone"]
        if p.get("metadata"):
            attrs["metadata"] = {k: str(v) for k, v in p["metadata"].items()}
        if self.marked():
            attrs["metadata"] = {**(attrs.get("metadata") or {}), intent.METADATA_KEY: self.uuid}
        if p.get("scheduler_hints"):
            attrs["scheduler_hints"] = dict(p["scheduler_hints"])
        volume = storage.create_volume(
            find=self.lookup(VOLUME, storage.get_volume),
            **{k: v for k, v in attrs.items() if v is not None})
        self.resource_id = volume.id

    def marked(self) -> bool:
        """Whether this volume carries the intent marker in its metadata (a user-given name:
        :mod:`app.clients.intent`)."""
        return bool(self.properties.get("name") and self.uuid and self.stack is not None)

    def find_marked(self) -> str | None:
        if not self.marked():
            return None
        return intent.find_volume(self.cloud(), str(self.properties["name"]), str(self.uuid))

    def check_create_complete(self, handle: Any) -> bool:
        shown = self.polled()
        state = str((shown or {}).get("status", "")).lower()
        if state == "available":
            if self.properties.get("read_only") is not None:
                self.cloud().block_storage.set_volume_readonly(self.resource_id,
                                                               bool(self.properties["read_only"]))
            return True
        if state in ("error", "error_restoring", "error_extending") or shown is None:
            raise in_error(state or "DELETED", "Unknown")
        return False

    def _delete(self) -> None:
        try:
            self.delete_by_id()
        except errors.CloudError as exc:
            if exc.status == 400 and "status" in exc.message.lower():
                raise errors.CloudError(exc.message, status=409, heat_type="Conflict") from exc
            raise

    def handle_update(self, new_properties: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> dict[str, Any]:
        """As Heat: ``name`` and ``metadata`` (replaced) at once; ``read_only``; a bigger
        ``size`` extends, a new ``volume_type`` retypes and a ``backup_id`` restores, each
        polled until the volume is ``available`` again (shrinking is refused, as in Heat). An
        attached volume is detached before a restore and attached again after the other
        actions (Heat's ``_detach_attach_progress``): Cinder restores only onto an
        ``available`` volume.

        :raises NotSupported: ``size`` smaller than the current one.
        """
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        storage = self.cloud().block_storage
        volume = self.resource_id
        if "name" in changed:
            storage.update_volume(volume, name=self.name_or_physical())
        if "metadata" in changed:
            new = {k: str(v) for k, v in (self.properties.get("metadata") or {}).items()}
            held = read_volume(self.cloud(), str(volume)).get("metadata") or {}
            removed = [k for k in held if k not in new      # the intent marker goes too
                       and (k in (old.get("metadata") or {}) or k == intent.METADATA_KEY)]
            if removed:
                storage.delete_volume_metadata(volume, removed)
            if new:
                storage.set_volume_metadata(volume, **new)
        if "read_only" in changed and self.properties.get("read_only") is not None:
            storage.set_volume_readonly(volume, bool(self.properties["read_only"]))
        todo: list[dict[str, Any]] = []
        if "backup_id" in changed and self.properties.get("backup_id"):
            detach, attach = self.detach_attach_steps(read_volume(self.cloud(), str(volume)))
            todo += [*detach, {"action": "restore", "backup": self.resolve(
                "cinder.backup", self.properties["backup_id"])}]
        else:
            attach = []
        if "size" in changed and self.properties.get("size"):
            if int(self.properties["size"]) < int(old.get("size") or 0):
                raise NotSupported(f"Shrinking volume {self.name}")
            todo.append({"action": "extend", "size": int(self.properties["size"])})
        if "volume_type" in changed and self.properties.get("volume_type"):
            todo.append({"action": "retype", "type": self.properties["volume_type"]})
        return {"todo": todo + attach}

    def check_update_complete(self, handle: Any) -> bool:
        """One queued action at a time, each started once the volume is ready for it and done
        once it is ``available`` / ``in-use`` again (a detach or attach: once the volume's
        attachments say so)."""
        todo = (handle or {}).get("todo") or []
        storage = self.cloud().block_storage
        while todo:
            step = todo[0]
            shown = self.polled() or {}
            state = str(shown.get("status", "")).lower()
            if state.startswith("error"):
                raise in_error(state, "Unknown")
            if step["action"] in ("detach", "attach"):
                if not step.get("started"):
                    step["started"] = self.start_attach_step(step, shown)
                    return False
                if not self.attach_step_done(step, state, shown):
                    return False
                todo.pop(0)
                continue
            if state not in ("available", "in-use"):
                return False
            if not step.get("started"):
                if step["action"] == "extend":
                    storage.extend_volume(self.resource_id, step["size"])
                elif step["action"] == "retype":
                    storage.retype_volume(self.resource_id, step["type"],
                                          migration_policy="on-demand")
                else:
                    storage.restore_backup(step["backup"], volume_id=self.resource_id)
                step["started"] = True
                return False
            todo.pop(0)
        return True

    def handle_snapshot_delete(self) -> dict[str, Any] | None:
        """``deletion_policy: Snapshot``: back the volume up (Heat's Cinder snapshot is a
        backup), then delete it; a volume in ``error`` is just deleted. The backup stays."""
        shown = self.show_resource()
        if shown is None:
            return None
        if str(shown.get("status", "")).lower().startswith("error"):
            return self.handle_delete()
        backup = self.cloud().block_storage.create_backup(
            volume_id=self.resource_id, name=f"{self.physical_resource_name()}-backup", force=True)
        self.data["backup_id"] = backup.id
        return {"phase": "backup", "backup": backup.id}

    def check_delete_complete(self, handle: Any) -> bool:
        if isinstance(handle, dict) and handle.get("phase") == "backup":
            backup = plain(self.cloud().block_storage.get_backup(handle["backup"])) or {}
            status = str(backup.get("status", "")).lower()
            if status == "error":
                raise in_error(status, backup.get("fail_reason") or "Unknown")
            if status != "available":
                return False
            started = self.handle_delete()
            if started is None:
                return True
            handle.clear()
            handle.update(started)
            return False
        done = super().check_delete_complete(handle)
        if not done:
            shown = self.last_polled or self.polled()
            if str((shown or {}).get("status", "")).lower() == "error_deleting":
                raise in_error("error_deleting", "Unknown")
        return done

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        if shown is None:
            return None
        if name == "metadata":
            return json.dumps(shown.get("metadata") or {})
        if name == "metadata_values":
            return shown.get("metadata") or {}
        if name == "attachments":
            return json.dumps(shown.get("attachments") or [])
        if name == "attachments_list":
            return shown.get("attachments") or []
        value = shown.get(self.attribute_keys.get(name, name))
        if name in ("display_name", "display_description"):
            return value
        # Heat's CinderVolume._resolve_attribute: str(getattr(vol, name)) for the others
        # (size "1", encrypted "False", a missing value "None")
        return str(value)


class VolumeAttachment(CloudResource):
    """Attaches ``volume_id`` to server ``instance_uuid`` (at ``mountpoint``) through Nova."""

    type_name = "OS::Cinder::VolumeAttachment"
    support_status = sch.VOLUME_ATTACHMENT_SUPPORT
    properties_schema = sch.VOLUME_ATTACHMENT_PROPERTIES
    attributes_schema = sch.VOLUME_ATTACHMENT_ATTRIBUTES
    server_prop: ClassVar[str] = "instance_uuid"
    volume_prop: ClassVar[str] = "volume_id"
    device_prop: ClassVar[str] = "mountpoint"

    def _ids(self) -> tuple[str, str]:
        return (str(self.data.get("server") or self.properties.get(self.server_prop)),
                str(self.data.get("volume") or self.properties.get(self.volume_prop)))

    def handle_create(self) -> None:
        server = self.resolve("nova.server", self.properties.get(self.server_prop))
        volume = self.resolve("cinder.volume", self.properties.get(self.volume_prop))
        self.data.update(server=server, volume=volume)
        attrs: dict[str, Any] = {"volumeId": volume}
        if self.properties.get(self.device_prop):
            attrs["device"] = self.properties[self.device_prop]
        # Nova's REST call as the SDK's create_volume_attachment makes it, without the SDK's
        # extra GET and server object to check the order of the server and volume arguments
        try:
            body = self.cloud().request("compute", "POST",
                                        f"/servers/{server}/os-volume_attachments",
                                        json={"volumeAttachment": attrs}) or {}
        except errors.CloudError as exc:
            if exc.status != 400 or not self._attached(server, volume):
                raise
            body = {}  # an earlier attempt of this step attached it (its result was not saved)
        self.resource_id = (body.get("volumeAttachment") or {}).get("id") or volume

    def _attached(self, server: str, volume: str) -> bool:
        """Whether ``volume`` is attached to ``server`` already (Cinder's ``attachments``): a
        redelivered or retried create adopts it (DESIGN invariant 1) instead of failing with
        Nova's 400 "status must be 'available'"."""
        found = read_volume(self.cloud(), volume)
        return any(str(a.get("server_id")) == server for a in found.get("attachments") or [])

    def check_create_complete(self, handle: Any) -> bool:
        """Heat's ``check_attach_volume_complete``: the volume ``in-use``."""
        volume = read_volume(self.cloud(), self._ids()[1])
        state = str(volume.get("status", "")).lower()
        if state == "in-use":
            return True
        if state.startswith("error"):
            raise in_error(state, "Unknown")
        return False

    def handle_update(self, new_properties: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's way: detach, wait until detached, then attach as the new properties say."""
        self.check_replace(changed, new_properties)
        try:
            self._delete()
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise
        self.properties = dict(new_properties)
        return {"phase": "detaching"}

    def check_update_complete(self, handle: Any) -> bool:
        if handle.get("phase") == "detaching":
            if not self._gone():
                return False
            self.data.pop("server", None)
            self.data.pop("volume", None)
            self.handle_create()
            handle["phase"] = "attaching"
            return False
        return self.check_create_complete(handle)

    def _fetch(self) -> Any:
        server, volume = self._ids()
        return self.cloud().compute.get_volume_attachment(server, volume)

    def _delete(self) -> None:
        server, volume = self._ids()
        try:    # the SDK's delete_volume_attachment (a 404 ignored), without its extra GET
            self.cloud().request("compute", "DELETE",
                                 f"/servers/{server}/os-volume_attachments/{volume}")
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise

    def _gone(self) -> bool:
        """Detached once the volume no longer lists the server (or either is gone)."""
        server, volume = self._ids()
        try:
            shown = read_volume(self.cloud(), volume)
        except errors.CloudError as exc:
            if is_not_found(exc):
                return True
            raise
        attached = {a.get("server_id") for a in shown.get("attachments") or []}
        return server not in attached and str(shown.get("status", "")).lower() != "detaching"


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Volume, VolumeAttachment)}
