"""OS::Heat::SwiftSignalHandle and OS::Heat::SwiftSignal (Heat 27's
``heat/engine/resources/openstack/heat/swiftsignal.py`` and its Swift client plugin).

More in docs/code/resource_types.md (app.resource_types.swift_signal).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlparse

from app import errors
from app.clients import is_conflict, is_not_found
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import swift as sch
from app.resource_types.base import Resource
from app.resource_types.swift import container_path, objects_of, storage_url, swift

IN_PROGRESS = "in progress"
MAX_EPOCH = 2147483647
KEY_HEADER = "x-account-meta-temp-url-key"
#: seconds between two looks at the container of a waiting signal, at most
LOOK_MAX = 10.0


def temp_url(res: CloudResource, container: str, obj: str, method: str = "PUT") -> str:
    """A TempURL for ``method`` on the object (swiftclient's ``generate_temp_url``, SHA256),
    the account's key made first when it has none (Heat's ``get_temp_url``)."""
    head = swift(res, "HEAD", "")
    key = {k.lower(): v for k, v in head.headers.items()}.get(KEY_HEADER)
    if not key:
        key = secrets.token_hex(16)
        swift(res, "POST", "", headers={"X-Account-Meta-Temp-URL-Key": key})
    storage = urlparse(storage_url(res))
    path = f"{storage.path}/{quote(container)}/{quote(obj)}"
    expires = MAX_EPOCH - 60
    sig = hmac.new(key.encode(), f"{method}\n{expires}\n{path}".encode(),
                   hashlib.sha256).hexdigest()
    return f"{storage.scheme}://{storage.netloc}{path}?temp_url_sig={sig}&temp_url_expires={expires}"


class SwiftSignalHandle(CloudResource):
    """OS::Heat::SwiftSignalHandle: a TempURL to PUT signals to."""

    type_name = "OS::Heat::SwiftSignalHandle"
    support_status = sch.SIGNAL_SUPPORT
    properties_schema = sch.HANDLE_PROPERTIES
    attributes_schema = sch.HANDLE_ATTRIBUTES

    def _container(self) -> str:
        return str(self.stack.stack_id) if self.stack is not None else self.name

    def handle_create(self) -> None:
        """Heat's ``get_signal_url``: the versioned container, the object, the TempURL."""
        container, obj = self._container(), self.physical_resource_name()
        swift(self, "PUT", container_path(container), headers={"X-Versions-Location": container})
        swift(self, "PUT", f"{container_path(container)}/{quote(obj)}", data=IN_PROGRESS)
        self.data["endpoint"] = temp_url(self, container, obj)
        self.resource_id = obj

    def get_reference_id(self) -> str:
        return str(self.data.get("endpoint") or self.name)

    def _resolve_attribute(self, name: str) -> Any:
        if not self.resource_id:
            return None
        if name == "token":
            return ""
        if name == "endpoint":
            return self.data.get("endpoint")
        if name == "curl_cli":
            return f"curl -i -X PUT '{self.data.get('endpoint')}'"
        return None

    def show_resource(self) -> dict[str, Any] | None:
        return None

    def handle_delete(self) -> None:
        """Every version of the object, then the container unless another handle's objects
        are still in it (Heat's ``handle_delete``)."""
        if not self.resource_id:
            return
        container = container_path(self._container())
        for _ in range(10000):
            try:
                swift(self, "DELETE", f"{container}/{quote(str(self.resource_id))}")
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
                break
        try:
            swift(self, "DELETE", container)
        except errors.CloudError as exc:
            if not (is_not_found(exc) or is_conflict(exc)):
                raise
        self.data.pop("endpoint", None)
        return

    def check_delete_complete(self, handle: Any) -> bool:
        return True


class SwiftSignal(CloudResource):
    """OS::Heat::SwiftSignal: waits for ``count`` signals PUT to its handle's TempURL."""

    type_name = "OS::Heat::SwiftSignal"
    support_status = sch.SIGNAL_SUPPORT
    properties_schema = sch.SIGNAL_PROPERTIES
    attributes_schema = sch.SIGNAL_ATTRIBUTES

    def _parts(self) -> list[str]:
        return urlparse(str(self.properties["handle"])).path.split("/", 4)

    def _validate_handle(self) -> None:
        """:raises ValueError: Heat's ``"<path>" is not a valid SwiftSignalHandle.  The
        <part> is invalid``."""
        path = urlparse(str(self.properties["handle"])).path
        parts = path.split("/", 4)
        msg = f'"{path}" is not a valid SwiftSignalHandle.  The %s is invalid'
        account = urlparse(storage_url(self)).path.rstrip("/").rsplit("/", 1)[-1]
        if not (len(parts) == 5 and not parts[0] and parts[1] == "v1"
                and parts[2] == account and parts[3] and parts[4].strip("/")):
            raise ValueError(msg % "Swift TempURL path")
        if self.stack is not None and parts[3] != self.stack.stack_id:
            raise ValueError(msg % "container name")

    def handle_create(self) -> dict[str, Any]:
        self._validate_handle()
        return {"started": self.clock(), "timeout": float(self.properties["timeout"])}

    def signals(self) -> list[dict[str, Any]]:
        """Heat's ``get_signals``: the signals in the order Swift lists them, defaults set.

        :raises errors.StokerError: ``Failed to parse JSON data: <body>``."""
        parts = self._parts()
        if len(parts) < 5:
            return []
        container, obj_name = parts[3], parts[4].split("/")[0]
        listing = objects_of(self, container) or []
        bodies: list[Any] = []
        for entry in listing:
            if obj_name not in entry["name"]:
                continue
            try:
                resp = swift(self, "GET", f"{container_path(container)}/{quote(entry['name'])}")
            except errors.CloudError as exc:
                if is_not_found(exc):
                    continue
                raise
            text = resp.text
            if text == IN_PROGRESS:
                continue
            try:
                bodies.append(json.loads(text) if text != "" else {})
            except ValueError:
                raise errors.StokerError(f"Failed to parse JSON data: {text}",
                                         heat_type="Error") from None
        out: list[dict[str, Any]] = []
        for num, body in enumerate(bodies, start=1):
            signal = dict(body) if isinstance(body, Mapping) else {}
            if "id" in signal:
                out = [s for s in out if s.get("id") != signal["id"]]
            signal.setdefault("data", None)
            unique = signal.setdefault("id", num)
            signal.setdefault("reason", f"Signal {unique} received")
            signal.setdefault("status", "SUCCESS")
            out.append(signal)
        return out

    def check_create_complete(self, handle: Any) -> bool:
        """:raises errors.StokerError: ``SwiftSignalTimeout``, ``SwiftSignalFailure`` or
        Heat's ``Unknown status``, as Heat's ``check_create_complete``."""
        signals = self.signals()
        if self.clock() - float(handle["started"]) > float(handle["timeout"]):
            got = [str(s["reason"]) for s in signals if s["status"] == "SUCCESS"]
            message = f"{len(got)} of {self.properties.get('count') or 1} received"
            if got:
                message += " - " + ";".join(got)
            raise errors.StokerError(message, heat_type="SwiftSignalTimeout")
        for s in signals:
            if s["status"] == "FAILURE":
                reasons = [str(x["reason"]) for x in signals if x["status"] == "FAILURE"]
                raise errors.StokerError(";".join(reasons), heat_type="SwiftSignalFailure")
            if s["status"] != "SUCCESS":
                raise errors.StokerError(f"Unknown status: {s['status']}", heat_type="Error")
        return len(signals) >= int(self.properties.get("count") or 1)

    def waits_for(self, handle: Any) -> tuple[str, float]:
        """``(event, deadline)``: the deadline is the next look at the container (nothing
        wakes the signal: a PUT to Swift tells Stoker nothing), never after the timeout."""
        started, timeout = float(handle["started"]), float(handle["timeout"])
        now = self.clock()
        look = min(LOOK_MAX, max(1.0, (now - started) / 4))
        return (f"swift-signal:{self.properties['handle']}",
                min(started + timeout + 0.5, now + look))

    def _resolve_attribute(self, name: str) -> Any:
        if name != "data":
            return None
        signals = self.signals()
        return json.dumps({s["id"]: s["data"] for s in signals} if signals else None)

    def show_resource(self) -> dict[str, Any] | None:
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (SwiftSignalHandle, SwiftSignal)}
