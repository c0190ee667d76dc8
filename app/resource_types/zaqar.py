"""Zaqar: OS::Zaqar::Queue, OS::Zaqar::SignedQueueURL, OS::Zaqar::Subscription and
OS::Zaqar::MistralTrigger (Heat 27's ``heat/engine/resources/openstack/zaqar/``).

More in docs/code/resource_types.md (app.resource_types.zaqar).
"""
from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

from app import errors
from app.clients import is_conflict
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import zaqar as sch
from app.resource_types.base import Resource

SUBSCRIBER_TYPES = ("http", "https", "mailto", "trust+http", "trust+https")
PATCH_TYPE = "application/openstack-messaging-v2.0-json-patch"


class _Zaqar(CloudResource):
    """The ``message`` endpoint with a client id of this resource."""

    def zaqar(self, method: str, path: str, **kwargs: Any) -> Any:
        headers = {"Client-ID": str(self.data.setdefault("client_id", str(uuid.uuid4()))),
                   **kwargs.pop("headers", {})}
        return self.cloud().request("message", method, path, headers=headers, **kwargs)


class ZaqarQueue(_Zaqar):
    """OS::Zaqar::Queue."""

    type_name = "OS::Zaqar::Queue"
    support_status = sch.QUEUE_SUPPORT
    properties_schema = sch.QUEUE_PROPERTIES
    attributes_schema = sch.QUEUE_ATTRIBUTES
    physical_resource_name_limit = 64

    def queue_name(self) -> str:
        return self.name_or_physical("name")

    def handle_create(self) -> None:
        name = self.resource_id or self.queue_name()
        self.zaqar("PUT", f"/queues/{quote(name)}", json=self.properties.get("metadata") or {})
        self.resource_id = name

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """New metadata keys are added, changed ones replaced (python-zaqarclient's
        ``Queue.metadata(new_meta=...)``)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if "metadata" in changed:
            old = self.zaqar("GET", f"/queues/{quote(str(self.resource_id))}") or {}
            ops = [{"op": "replace" if k in old else "add", "path": f"/metadata/{k}", "value": v}
                   for k, v in (changed["metadata"] or {}).items()]
            if ops:
                self.zaqar("PATCH", f"/queues/{quote(str(self.resource_id))}", json=ops,
                           headers={"Content-Type": PATCH_TYPE})
        self.refresh()

    def _fetch(self) -> Any:
        return {"metadata": self.zaqar("GET", f"/queues/{quote(str(self.resource_id))}") or {}}

    def _delete(self) -> None:
        self.zaqar("DELETE", f"/queues/{quote(str(self.resource_id))}")

    def check_delete_complete(self, handle: Any) -> bool:
        return True

    def _resolve_attribute(self, name: str) -> Any:
        if name == "href":
            endpoint = str(self.cloud().raw.session.get_endpoint(
                service_type="messaging", interface="public")).rstrip("/")
            return f"{endpoint}/v2/queues/{quote(str(self.resource_id or self.queue_name()))}"
        return None


class ZaqarSignedQueueURL(_Zaqar):
    """OS::Zaqar::SignedQueueURL."""

    type_name = "OS::Zaqar::SignedQueueURL"
    support_status = sch.V8
    properties_schema = sch.SIGNED_URL_PROPERTIES
    attributes_schema = sch.SIGNED_URL_ATTRIBUTES

    def handle_create(self) -> None:
        body: dict[str, Any] = {}
        p = self.properties
        if p.get("ttl") is not None:
            when = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=int(p["ttl"]))
            body["expires"] = when.replace(tzinfo=None).isoformat()
        if p.get("methods") is not None:
            body["methods"] = list(p["methods"])
        if p.get("paths") is not None:
            body["paths"] = list(p["paths"])
        signed = self.zaqar("POST", f"/queues/{quote(str(p['queue']))}/share", json=body)
        for key in ("signature", "expires", "project"):
            self.data[key] = signed[key]
        self.data["paths"] = json.dumps(signed["paths"])
        self.data["methods"] = json.dumps(signed["methods"])
        self.resource_id = self.physical_resource_name()

    def handle_delete(self) -> None:
        """A signed URL cannot be revoked: nothing to do (Heat's)."""
        return

    def show_resource(self) -> dict[str, Any] | None:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if not self.resource_id:
            return None
        if name in ("signature", "expires", "project"):
            return self.data.get(name)
        if name in ("paths", "methods"):
            return json.loads(self.data.get(name) or "[]")
        if name == "query_str":
            d = self.data
            return urlencode({"signature": d["signature"], "expires": d["expires"],
                              "paths": ",".join(json.loads(d["paths"])),
                              "methods": ",".join(json.loads(d["methods"])),
                              "project_id": d["project"], "queue_name": self.properties["queue"]})
        return None


class ZaqarSubscription(_Zaqar):
    """OS::Zaqar::Subscription."""

    type_name = "OS::Zaqar::Subscription"
    support_status = sch.V8
    properties_schema = sch.SUBSCRIPTION_PROPERTIES
    attributes_schema = sch.SUBSCRIPTION_ATTRIBUTES
    check_subscriber: ClassVar[bool] = True

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's message for an unknown subscriber type."""
        super().validate()
        sub = self.properties.get("subscriber")
        if self.check_subscriber and isinstance(sub, str) \
                and sub.split(":", 1)[0] not in SUBSCRIBER_TYPES:
            raise errors.ValidationError(
                f"The subscriber type of must be one of: {', '.join(SUBSCRIBER_TYPES)}.")

    def subscriber(self) -> str:
        return str(self.properties["subscriber"])

    def options(self) -> dict[str, Any]:
        return dict(self.properties.get("options") or {})

    def body(self) -> dict[str, Any]:
        return {"subscriber": self.subscriber(), "ttl": self.get_property("ttl"),
                "options": self.options()}

    def _path(self) -> str:
        return f"/queues/{quote(str(self.properties['queue_name']))}/subscriptions"

    def handle_create(self) -> None:
        if self.resource_id:
            return
        body = self.body()
        try:
            made = self.zaqar("POST", self._path(), json=body)
        except errors.CloudError as exc:
            if not is_conflict(exc):
                raise
            listed = self.zaqar("GET", self._path()) or {}
            found = [s for s in listed.get("subscriptions", [])
                     if s.get("subscriber") == body["subscriber"]]
            if not found:
                raise
            self.resource_id = str(found[0]["id"])
            return
        self.resource_id = str(made["subscription_id"])

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """The subscriber, ttl and options are PATCHed in place (Heat's ``handle_update``)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.zaqar("PATCH", f"{self._path()}/{self.resource_id}", json=self.body())
        self.refresh()

    def _fetch(self) -> Any:
        return self.zaqar("GET", f"{self._path()}/{self.resource_id}")

    def _delete(self) -> None:
        self.zaqar("DELETE", f"{self._path()}/{self.resource_id}")

    def check_delete_complete(self, handle: Any) -> bool:
        return True


class MistralTrigger(ZaqarSubscription):
    """OS::Zaqar::MistralTrigger: a subscription that starts a Mistral workflow execution."""

    type_name = "OS::Zaqar::MistralTrigger"
    properties_schema = sch.TRIGGER_PROPERTIES
    attributes_schema = sch.TRIGGER_ATTRIBUTES
    check_subscriber = False

    def subscriber(self) -> str:
        """``trust+<Mistral endpoint>/executions``.

        :raises errors.CloudError: the catalog has no ``workflowv2`` endpoint."""
        sess = self.cloud().raw.session
        try:
            endpoint = sess.get_endpoint(service_type="workflowv2", interface="public")
        except Exception as exc:
            raise errors.CloudError(f"No workflowv2 endpoint: {exc}", transient=False) from exc
        if not endpoint:
            raise errors.CloudError("The catalog has no workflowv2 (Mistral) endpoint",
                                    transient=False)
        return f"trust+{str(endpoint).rstrip('/')}/executions"

    def options(self) -> dict[str, Any]:
        params = dict(self.get_property("params") or {})
        params["env"] = {**dict(params.get("env") or {}), "notification": "$zaqar_message$"}
        post_data = {"workflow_id": self.properties["workflow_id"], "params": params,
                     "input": self.get_property("input") or {}}
        return {"post_data": json.dumps(post_data)}


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (ZaqarQueue, ZaqarSignedQueueURL, ZaqarSubscription,
                                            MistralTrigger)}
