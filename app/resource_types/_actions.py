"""Suspend, resume, check and snapshot of resource plugins (Heat's ``handle_suspend`` /
``check_suspend_complete``, ``handle_resume`` / ``check_resume_complete``, ``handle_check``).

A type without ``handle_<action>`` still goes through the action: SUSPEND and RESUME complete
doing nothing, CHECK completes with "CHECK not supported for <type>" (``heat/engine/resource.py``
``suspend`` / ``resume`` / ``check``). The helpers here are shared by the plugins that have them;
:class:`ServerActions` is the Nova server's (``heat/engine/resources/openstack/nova/server.py``).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import in_error, plain

#: Nova statuses a server passes through without having failed (Heat's nova client plugin
#: ``deferred_server_statuses``)
DEFERRED_SERVER_STATUSES = frozenset({"BUILD", "HARD_REBOOT", "PASSWORD", "REBOOT", "RESCUE",
                                      "RESIZE", "REVERT_RESIZE", "SHUTOFF", "SUSPENDED",
                                      "VERIFY_RESIZE"})


class ActionError(errors.StokerError):
    """Heat's generic ``exception.Error``: a failure reason reads ``Error: resources.x: ...``."""
    heat_type = "Error"


def unknown_status(result: str, status: str, reason: str = "Unknown") -> errors.StokerError:
    """Heat's ``ResourceUnknownStatus``: ``<result> - Unknown status <status> due to "<why>"``."""
    return errors.StokerError(f'{result} - Unknown status {status} due to "{reason}"',
                              heat_type="ResourceUnknownStatus")


def verify_check_conditions(checks: Iterable[Mapping[str, Any]]) -> None:
    """Heat's ``Resource._verify_check_conditions``: each ``{"attr", "expected", "current"}``
    (``expected`` a value or a list of allowed values).

    :raises ActionError: ``'<attr>': expected '<expected>', got '<current>'`` for every check
        that does not hold, joined by ``"; "``."""
    def valid(c: Mapping[str, Any]) -> bool:
        exp = c["expected"]
        return c["current"] in exp if isinstance(exp, list) else c["current"] == exp

    bad = [f"'{c['attr']}': expected '{c['expected']}', got '{c['current']}'"
           for c in checks if not valid(c)]
    if bad:
        raise ActionError("; ".join(bad))


class ServerActions:
    """Suspend, resume and check of ``OS::Nova::Server`` through Nova's server actions, as
    Heat's Server: the handle is the server id; an already suspended (or active) server is not
    asked again; the polls fail on a status Heat does not expect."""

    name: str
    resource_id: str | None
    data: dict[str, Any]
    cloud: Any  # CloudResource.cloud: listed after it in the bases, this mixin adds methods only
    physical_resource_name: Any

    def _server_status(self, server_id: str | None = None) -> tuple[str, dict[str, Any]]:
        shown = plain(self.cloud().compute.get_server(server_id or self.resource_id)) or {}
        return str(shown.get("status", "")).upper(), shown

    def _server_for(self, action: str) -> str:
        if self.resource_id is None:
            raise ActionError(f"Cannot {action} {self.name}, resource_id not set")
        try:
            status, _ = self._server_status()
        except errors.CloudError as exc:
            if is_not_found(exc):
                raise errors.StokerError(f"Failed to find server {self.resource_id}",
                                         heat_type="NotFound") from exc
            raise
        return status

    def handle_suspend(self) -> str:
        """Ask Nova to suspend the server unless it is SUSPENDED already. :returns: its id.
        :raises ActionError: no physical id; ``NotFound``: the server is gone."""
        if self._server_for("suspend") != "SUSPENDED":
            self.cloud().compute.suspend_server(self.resource_id)
        return str(self.resource_id)

    def check_suspend_complete(self, server_id: str) -> bool:
        """SUSPENDED: done; ACTIVE or a deferred status: not yet; anything else fails
        (``ResourceUnknownStatus``: "Suspend of server <name> failed")."""
        status, shown = self._server_status(server_id)
        if status in DEFERRED_SERVER_STATUSES | {"ACTIVE"}:
            return status == "SUSPENDED"
        raise unknown_status(f"Suspend of server {shown.get('name', server_id)} failed", status)

    def handle_resume(self) -> str:
        """Ask Nova to resume the server unless it is ACTIVE already. :returns: its id."""
        if self._server_for("resume") != "ACTIVE":
            self.cloud().compute.resume_server(self.resource_id)
        return str(self.resource_id)

    def check_resume_complete(self, server_id: str) -> bool:
        """ACTIVE: done; a deferred status: not yet; ERROR: ``ResourceInError``; anything
        else: ``ResourceUnknownStatus`` (Heat's nova ``_check_active``)."""
        status, shown = self._server_status(server_id)
        if status == "ACTIVE":
            return True
        if status in DEFERRED_SERVER_STATUSES:
            return False
        if status == "ERROR":
            fault = shown.get("fault") or {}
            raise in_error(status, str(fault.get("message", "Unknown")))
        raise unknown_status("Server is not active", status)

    def handle_snapshot(self) -> str:
        """An image of the server (Heat's Server.handle_snapshot), its id kept in the resource
        data (``snapshot_image_id``). :returns: the image id."""
        image = self.cloud().compute.create_server_image(self.resource_id,
                                                         name=self.physical_resource_name())
        image_id = str(image if isinstance(image, str) else image.id)
        self.data["snapshot_image_id"] = image_id
        return image_id

    def check_snapshot_complete(self, image_id: str) -> bool:
        """The image ``active``: done; ``killed``/``deleted``: ``Error: <status>``."""
        image = plain(self.cloud().image.get_image(image_id)) or {}
        status = str(image.get("status", "")).lower()
        if status == "active":
            return True
        if status in ("killed", "deleted", "error"):
            raise ActionError(status)
        return False

    def handle_delete_snapshot(self, snapshot: Mapping[str, Any]) -> str | None:
        """Delete the image a stack snapshot holds; one already gone is fine."""
        image_id = (snapshot.get("resource_data") or {}).get("snapshot_image_id")
        if not image_id:
            return None
        try:
            self.cloud().image.delete_image(image_id)
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise
            return None
        return str(image_id)

    @staticmethod
    def restore_properties(properties: Mapping[str, Any],
                           snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """The server's template properties for a restore (Heat's Server.handle_restore): the
        snapshot's image."""
        props = {k: v for k, v in properties.items() if v is not None}
        image_id = (snapshot.get("resource_data") or {}).get("snapshot_image_id")
        if image_id:
            props["image"] = image_id
        return props

    def handle_check(self) -> None:
        """The server must exist and be ACTIVE (Heat's Server.handle_check).
        :raises errors.CloudError: ``NotFound`` when it is gone; ActionError otherwise."""
        status, _ = self._server_status()
        verify_check_conditions([{"attr": "status", "expected": "ACTIVE", "current": status}])


class VolumeActions:
    """Snapshot of ``OS::Cinder::Volume`` as Heat's CinderVolume: a Cinder backup, its id kept
    in the resource data (``backup_id``) for the stack snapshot; restoring sets the volume's
    ``backup_id`` property to it (an attached volume is detached for the restore and attached
    again after it); deleting the stack snapshot deletes the backup."""

    resource_id: str | None
    data: dict[str, Any]
    cloud: Any  # CloudResource.cloud: listed after it in the bases, this mixin adds methods only

    def handle_snapshot(self) -> str:
        """Back the volume up (``force``: an attached volume too). :returns: the backup id."""
        backup = self.cloud().block_storage.create_backup(volume_id=self.resource_id,
                                                          force=True)
        self.data["backup_id"] = backup.id
        return str(backup.id)

    def check_snapshot_complete(self, backup_id: str) -> bool:
        """``creating``: not yet; ``available``: done; anything else fails with the backup's
        ``fail_reason`` (Heat's ``exception.Error``)."""
        backup = plain(self.cloud().block_storage.get_backup(backup_id)) or {}
        status = str(backup.get("status", "")).lower()
        if status == "creating":
            return False
        if status == "available":
            return True
        raise ActionError(str(backup.get("fail_reason") or f"backup {status}"))

    def handle_delete_snapshot(self, snapshot: Mapping[str, Any]) -> str | None:
        """Delete the backup a stack snapshot holds (``snapshot["resource_data"]["backup_id"]``);
        one already gone is fine. :returns: its id, or None when there was none."""
        backup_id = (snapshot.get("resource_data") or {}).get("backup_id")
        if not backup_id:
            return None
        try:
            self.cloud().block_storage.delete_backup(backup_id)
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise
            return None
        return str(backup_id)

    def detach_attach_steps(self, shown: Mapping[str, Any]) -> tuple[list[dict[str, Any]],
                                                                     list[dict[str, Any]]]:
        """Heat's ``CinderVolume._detach_attach_progress``: for a volume attached to a server
        (``shown``: Cinder's volume JSON; its first attachment, as Heat), the update step that
        detaches it and the one that attaches it again to the same server at the same device;
        ``([], [])`` for a volume attached nowhere."""
        attachments = list(shown.get("attachments") or [])
        if not attachments:
            return [], []
        server, device = str(attachments[0].get("server_id")), attachments[0].get("device")
        return ([{"action": "detach", "server": server}],
                [{"action": "attach", "server": server, "device": device}])

    def start_attach_step(self, step: Mapping[str, Any], shown: Mapping[str, Any]) -> bool:
        """Start a ``detach`` / ``attach`` step (``shown``: the volume's JSON) once the volume is
        ready for it (``in-use`` / ``available``), through Nova's ``os-volume_attachments`` as
        Heat's nova client plugin's ``detach_volume`` / ``attach_volume``; a step the volume
        already shows done counts as started. :returns: whether it was started (False: not
        ready yet, or Nova answered 409 while the server is busy, e.g. rebuilding).
        :raises errors.CloudError: Nova refused otherwise."""
        state = str(shown.get("status", "")).lower()
        if self.attach_step_done(step, state, shown):
            return True
        path = f"/servers/{step['server']}/os-volume_attachments"
        try:
            if step["action"] == "detach":
                if state != "in-use":
                    return False
                self.cloud().request("compute", "DELETE", f"{path}/{self.resource_id}")
            else:
                if state != "available":
                    return False
                attach: dict[str, Any] = {"volumeId": self.resource_id}
                if step.get("device"):
                    attach["device"] = step["device"]
                self.cloud().request("compute", "POST", path, json={"volumeAttachment": attach})
        except errors.CloudError as exc:
            if exc.status == 409:
                return False
            if step["action"] == "detach" and is_not_found(exc):
                return True
            raise
        return True

    @staticmethod
    def attach_step_done(step: Mapping[str, Any], state: str, shown: Mapping[str, Any]) -> bool:
        """Heat's ``check_detach_volume_complete`` / ``check_attach_volume_complete``: detached
        once ``available`` with no attachment to the server, attached once ``in-use`` with
        one."""
        attached = any(str(a.get("server_id")) == step["server"]
                       for a in shown.get("attachments") or [])
        if step["action"] == "detach":
            return state == "available" and not attached
        return state == "in-use" and attached

    @staticmethod
    def restore_properties(properties: Mapping[str, Any],
                           snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """The volume's template properties for a restore (Heat's CinderVolume.handle_restore):
        its image and source volume dropped, ``backup_id`` the snapshot's backup."""
        props = {k: v for k, v in properties.items()
                 if k not in ("image", "imageRef", "source_volid") and v is not None}
        backup_id = (snapshot.get("resource_data") or {}).get("backup_id")
        if backup_id:
            props["backup_id"] = backup_id
        return props


class AlarmActions:
    """Suspend, resume and check of the Aodh alarms as Heat's ``BaseAlarm``
    (``heat/engine/resources/alarm_base.py``): suspend disables the alarm, resume enables it,
    check reads it (a 404 fails the check)."""

    resource_id: str | None
    cloud: Any  # CloudResource.cloud: listed after it in the bases, this mixin adds methods only
    body: Any   # BaseAlarm.body: the alarm's body for its properties

    def _set_enabled(self, enabled: bool) -> None:
        if self.resource_id is None:
            return
        body = dict(self.body(), enabled=enabled)
        self.cloud().request("alarming", "PUT", f"/alarms/{self.resource_id}", json=body)

    def handle_suspend(self) -> None:
        """Disable the alarm (nothing without a physical id)."""
        self._set_enabled(False)

    def handle_resume(self) -> None:
        """Enable the alarm (nothing without a physical id)."""
        self._set_enabled(True)

    def handle_check(self) -> None:
        """The alarm must still exist. :raises errors.CloudError: ``NotFound``."""
        self.cloud().request("alarming", "GET", f"/alarms/{self.resource_id}")
