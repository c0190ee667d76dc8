"""Octavia resource types: LoadBalancer, Listener, Pool, PoolMember, HealthMonitor (Heat 27,
``heat/engine/resources/openstack/octavia/``).

Octavia refuses changes to a load balancer (and its children) while it is ``PENDING_*`` with a
409 "... is immutable ...". As Heat's octavia plugins do, the create request is made from
``check_create_complete`` and a 409 of that kind is simply tried again at the next poll; then
the object's ``provisioning_status`` is polled until ``ACTIVE`` (``ERROR`` fails with
ResourceInError). Deletes retry the same 409 and wait until the object is gone. Reference ids:
the Octavia ids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types._cloud import CONFLICT_POLLS, UNLISTED_DESCRIPTION, CloudResource, in_error
from app.resource_types._schemas import octavia as sch
from app.resource_types.base import Resource


def _immutable(exc: errors.CloudError) -> bool:
    text = exc.message.lower()
    return exc.status == 409 and ("immutable" in text or "pending" in text)


class OctaviaResource(CloudResource):
    """Shared create/poll/delete; subclasses give ``noun`` and :meth:`attrs`."""

    noun: ClassVar[str] = ""

    def attrs(self) -> dict[str, Any]:
        """The create request (names resolved)."""
        raise NotImplementedError

    def _common(self, attrs: dict[str, Any]) -> dict[str, Any]:
        p = self.properties
        if "admin_state_up" in self.properties_schema:
            attrs["admin_state_up"] = self.get_property("admin_state_up")
        if p.get("tenant_id"):
            attrs["project_id"] = p["tenant_id"]
        if p.get("description"):
            attrs["description"] = p["description"]
        return attrs

    def handle_create(self) -> dict[str, Any]:
        """Resolve the request now (a bad name fails here); it is sent by the first check."""
        return {"attrs": self.attrs(), "conflicts": 0}

    def check_create_complete(self, handle: Any) -> bool:
        finder = getattr(self.cloud().load_balancer, f"find_{self.noun}", None)
        if self.resource_id is None and "name" in handle["attrs"] and finder is not None:
            self.adopt(finder)
        if self.resource_id is None:
            try:
                obj = getattr(self.cloud().load_balancer, f"create_{self.noun}")(
                    **handle["attrs"])
            except errors.CloudError as exc:
                handle["conflicts"] = int(handle.get("conflicts", 0)) + 1
                if _immutable(exc) and handle["conflicts"] <= CONFLICT_POLLS:
                    return False
                raise
            self.resource_id = obj.id
            self.created(obj)
        self.refresh()
        shown = self.show_resource() or {}
        status = str(shown.get("provisioning_status", "")).upper()
        if status == "ERROR":
            raise in_error(status, "Unknown")
        return status == "ACTIVE"

    def handle_update(self, new_properties: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> dict[str, Any]:
        """What differs between the requests for the old and the new properties is sent by the
        first ``check_update_complete`` (retried while the load balancer is immutable)."""
        self.check_replace(changed, new_properties)
        before = self.attrs()
        self.properties = dict(new_properties)
        after = self.attrs()
        diff = {k: v for k, v in after.items() if before.get(k) != v}
        return {"diff": diff, "conflicts": 0, "sent": not diff}

    def check_update_complete(self, handle: Any) -> bool:
        if not handle.get("sent"):
            try:
                self._update(dict(handle["diff"]))
            except errors.CloudError as exc:
                handle["conflicts"] = int(handle.get("conflicts", 0)) + 1
                if _immutable(exc) and handle["conflicts"] <= CONFLICT_POLLS:
                    return False
                raise
            handle["sent"] = True
        self.refresh()
        status = str((self.show_resource() or {}).get("provisioning_status", "")).upper()
        if status == "ERROR":
            raise in_error(status, "Unknown")
        return status == "ACTIVE"

    def _update(self, diff: dict[str, Any]) -> None:
        getattr(self.cloud().load_balancer, f"update_{self.noun}")(self.resource_id, **diff)

    def created(self, obj: Any) -> None:
        """Hook after the create request succeeded (e.g. remember a parent id)."""

    def _fetch(self) -> Any:
        return getattr(self.cloud().load_balancer, f"get_{self.noun}")(self.resource_id)

    def _delete(self) -> None:
        try:
            getattr(self.cloud().load_balancer, f"delete_{self.noun}")(self.resource_id)
        except errors.CloudError as exc:
            if exc.status == 409 and not _immutable(exc):
                raise errors.CloudError(exc.message, status=400, heat_type="Conflict") from exc
            raise

    def _ids(self, key: str) -> list[str]:
        return [str(o.get("id")) for o in (self.show_resource() or {}).get(key) or []]


class LoadBalancer(OctaviaResource):
    """A load balancer with its VIP on ``vip_subnet``."""

    type_name = "OS::Octavia::LoadBalancer"
    support_status = sch.LOAD_BALANCER_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.LOAD_BALANCER_PROPERTIES
    attributes_schema = sch.LOAD_BALANCER_ATTRIBUTES
    noun = "load_balancer"

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "vip_subnet_id": self.resolve("neutron.subnet", p["vip_subnet"])}
        for key in ("vip_address", "provider", "availability_zone"):
            if p.get(key):
                attrs[key] = p[key]
        if p.get("flavor"):
            attrs["flavor_id"] = self.resolve("octavia.flavor", p["flavor"])
        return self._common(attrs)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "pools":
            return self._ids("pools")
        return (self.show_resource() or {}).get(name)


class Listener(OctaviaResource):
    """A listener of ``loadbalancer`` on ``protocol`` / ``protocol_port``."""

    type_name = "OS::Octavia::Listener"
    support_status = sch.LISTENER_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.LISTENER_PROPERTIES
    attributes_schema = sch.LISTENER_ATTRIBUTES
    noun = "listener"

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {
            "name": self.name_or_physical(),
            "loadbalancer_id": self.resolve("octavia.loadbalancer", p["loadbalancer"]),
            "protocol": p["protocol"], "protocol_port": p["protocol_port"],
            "connection_limit": self.get_property("connection_limit")}
        if p.get("default_pool"):
            attrs["default_pool_id"] = self.resolve("octavia.pool", p["default_pool"])
        for key in ("default_tls_container_ref", "sni_container_refs", "allowed_cidrs"):
            if p.get(key):
                attrs[key] = p[key]
        return self._common(attrs)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "loadbalancers":
            return self._ids("loadbalancers")
        return (self.show_resource() or {}).get(name)


class Pool(OctaviaResource):
    """A pool of ``listener`` (or of ``loadbalancer``)."""

    type_name = "OS::Octavia::Pool"
    support_status = sch.POOL_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.POOL_PROPERTIES
    attributes_schema = sch.POOL_ATTRIBUTES
    noun = "pool"

    def validate(self) -> None:
        """:raises errors.ValidationError: neither ``listener`` nor ``loadbalancer`` (Heat)."""
        if not self.properties.get("listener") and not self.properties.get("loadbalancer"):
            raise errors.ValidationError(
                'At least one of the following properties must be specified: listener, '
                f'loadbalancer (resources.{self.name}).')
        super().validate()

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "lb_algorithm": p["lb_algorithm"], "protocol": p["protocol"]}
        if p.get("listener"):
            attrs["listener_id"] = self.resolve("octavia.listener", p["listener"])
        if p.get("loadbalancer"):
            attrs["loadbalancer_id"] = self.resolve("octavia.loadbalancer", p["loadbalancer"])
        if p.get("session_persistence"):
            attrs["session_persistence"] = {k: v for k, v in p["session_persistence"].items()
                                            if v is not None}
        if p.get("tls_enabled"):
            attrs["tls_enabled"] = True
        return self._common(attrs)

    def _resolve_attribute(self, name: str) -> Any:
        if name in ("listeners", "members"):
            return self._ids(name)
        return (self.show_resource() or {}).get(name)


class PoolMember(OctaviaResource):
    """A member ``address:protocol_port`` of ``pool`` (the pool id is kept in ``data``)."""

    type_name = "OS::Octavia::PoolMember"
    support_status = sch.POOL_MEMBER_SUPPORT
    properties_schema = sch.POOL_MEMBER_PROPERTIES
    attributes_schema = sch.POOL_MEMBER_ATTRIBUTES
    noun = "member"

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        pool = self.resolve("octavia.pool", p["pool"])
        self.data["pool"] = pool
        attrs: dict[str, Any] = {"pool": pool, "address": p["address"],
                                 "protocol_port": p["protocol_port"],
                                 "weight": self.get_property("weight")}
        if p.get("subnet"):
            attrs["subnet_id"] = self.resolve("neutron.subnet", p["subnet"])
        for key in ("monitor_address", "monitor_port", "tags"):
            if p.get(key):
                attrs[key] = p[key]
        return self._common(attrs)

    def _pool(self) -> str:
        return str(self.data.get("pool") or self.properties.get("pool"))

    def _fetch(self) -> Any:
        return self.cloud().load_balancer.get_member(self.resource_id, self._pool())

    def _delete(self) -> None:
        self.cloud().load_balancer.delete_member(self.resource_id, self._pool())

    def _update(self, diff: dict[str, Any]) -> None:
        diff.pop("pool", None)
        self.cloud().load_balancer.update_member(self.resource_id, self._pool(), **diff)


class HealthMonitor(OctaviaResource):
    """A health monitor of ``pool``."""

    type_name = "OS::Octavia::HealthMonitor"
    support_status = sch.HEALTH_MONITOR_SUPPORT
    properties_schema = sch.HEALTH_MONITOR_PROPERTIES
    attributes_schema = sch.HEALTH_MONITOR_ATTRIBUTES
    noun = "health_monitor"

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"pool_id": self.resolve("octavia.pool", p["pool"]),
                                 "type": p["type"], "delay": p["delay"], "timeout": p["timeout"],
                                 "max_retries": p["max_retries"]}
        for key in ("http_method", "expected_codes", "url_path"):
            if p.get(key):
                attrs[key] = p[key]
        return self._common(attrs)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "pools":
            return self._ids("pools")
        return (self.show_resource() or {}).get(name)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (LoadBalancer, Listener, Pool, PoolMember,
                                           HealthMonitor)}
