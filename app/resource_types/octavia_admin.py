"""Octavia's L7 policies and rules, flavors and flavor profiles, availability zones and their
profiles, and quotas (Heat 27, ``heat/engine/resources/openstack/octavia/``).

L7Policy and L7Rule change a load balancer, so they are made as the other Octavia children
(:class:`app.resource_types.octavia.OctaviaResource`: the request is sent from the first check,
retried while the load balancer is ``PENDING_*``, then the object is polled until ``ACTIVE``).
The operator objects (flavors, zones, their profiles) are created at once; an availability
zone's reference id is its name, as Heat's. OS::Octavia::Quota sets the given limits of
``project`` and resets them to the defaults when deleted (reference id: the physical name).
Validation as Heat's: a policy's action decides which of ``redirect_pool`` / ``redirect_url``
it needs; HEADER and COOKIE rules need a ``key``; a quota needs at least one limit.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource
from app.resource_types._schemas import octavia_admin as sch
from app.resource_types.base import Resource
from app.resource_types.octavia import OctaviaResource


def _given(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if v is not None}


class L7Policy(OctaviaResource):
    """An L7 policy of ``listener``: REJECT, REDIRECT_TO_POOL or REDIRECT_TO_URL."""

    type_name = "OS::Octavia::L7Policy"
    support_status = sch.L7POLICY_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.L7POLICY_PROPERTIES
    attributes_schema = sch.L7POLICY_ATTRIBUTES
    noun = "l7_policy"

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's checks of ``action`` against the redirects."""
        p = self.properties
        action, pool, url = p.get("action"), p.get("redirect_pool"), p.get("redirect_url")
        if action == "REJECT" and (pool is not None or url is not None):
            raise errors.ValidationError("Properties redirect_pool and redirect_url are not "
                                         "required when action type is set to REJECT.")
        for wanted, other, other_action in (("redirect_pool", "redirect_url", "REDIRECT_TO_URL"),
                                            ("redirect_url", "redirect_pool", "REDIRECT_TO_POOL")):
            mine = "REDIRECT_TO_POOL" if wanted == "redirect_pool" else "REDIRECT_TO_URL"
            if action != mine:
                continue
            if p.get(other) is not None:
                raise errors.ValidationError(f"{other} property should only be specified for "
                                             f"action with value {other_action}.")
            if p.get(wanted) is None:
                raise errors.ValidationError(f"Property {wanted} is required when action type "
                                             f"is set to {mine}.")
        super().validate()

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {
            "name": self.name_or_physical(), "action": p["action"],
            "listener_id": self.resolve("octavia.listener", p["listener"])}
        if p.get("redirect_pool"):
            attrs["redirect_pool_id"] = self.resolve("octavia.pool", p["redirect_pool"])
        if p.get("redirect_url"):
            attrs["redirect_url"] = p["redirect_url"]
        if p.get("position") is not None:
            attrs["position"] = int(p["position"])
        return self._common(attrs)

    def _update(self, diff: dict[str, Any]) -> None:
        diff.pop("listener_id", None)
        self.cloud().load_balancer.update_l7_policy(self.resource_id, **diff)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "rules":
            return self._ids("rules")
        return (self.show_resource() or {}).get(name)


class L7Rule(OctaviaResource):
    """A rule of ``l7policy`` (the policy id is kept in ``data``)."""

    type_name = "OS::Octavia::L7Rule"
    support_status = sch.L7RULE_SUPPORT
    properties_schema = sch.L7RULE_PROPERTIES
    attributes_schema = sch.L7RULE_ATTRIBUTES
    noun = "l7_rule"

    def validate(self) -> None:
        """:raises errors.ValidationError: a HEADER or COOKIE rule without ``key`` (Heat)."""
        if self.properties.get("type") in ("HEADER", "COOKIE") and \
                self.properties.get("key") is None:
            raise errors.ValidationError("Property key is missing. This property should be "
                                         "specified for rules of HEADER and COOKIE types.")
        super().validate()

    def attrs(self) -> dict[str, Any]:
        p = self.properties
        policy = self.resolve("octavia.l7policy", p["l7policy"])
        self.data["l7policy"] = policy
        attrs: dict[str, Any] = {"l7_policy": policy, "type": p["type"],
                                 "compare_type": p["compare_type"], "value": p["value"],
                                 "invert": bool(self.get_property("invert")),
                                 "admin_state_up": self.get_property("admin_state_up")}
        if p.get("key") is not None:
            attrs["key"] = p["key"]
        return attrs

    def _policy(self) -> str:
        return str(self.data.get("l7policy") or self.properties.get("l7policy"))

    def _fetch(self) -> Any:
        return self.cloud().load_balancer.get_l7_rule(self.resource_id, self._policy())

    def _delete(self) -> None:
        self.cloud().load_balancer.delete_l7_rule(self.resource_id, self._policy())

    def _update(self, diff: dict[str, Any]) -> None:
        diff.pop("l7_policy", None)
        if "value" in diff:   # the SDK's update takes the rule's value as ``rule_value``
            diff["rule_value"] = diff.pop("value")
        self.cloud().load_balancer.update_l7_rule(self.resource_id, self._policy(), **diff)


class _OperatorObject(CloudResource):
    """Shared create / update / fetch / delete of Octavia's synchronous operator objects;
    subclasses name the SDK ``noun`` and map properties to fields (``fields``)."""

    noun: ClassVar[str] = ""
    #: property name -> request field (a value resolved through ``lookup`` when given)
    fields: ClassVar[dict[str, str]] = {}
    lookup: ClassVar[tuple[str, str] | None] = None   # (property, constraint)
    id_field: ClassVar[str] = "id"

    def request(self, props: Mapping[str, Any]) -> dict[str, Any]:
        out = {self.fields.get(k, k): v for k, v in _given(props).items()}
        out["name"] = props.get("name") or self.physical_resource_name()
        if self.lookup is not None and props.get(self.lookup[0]):
            out[self.fields[self.lookup[0]]] = self.resolve(self.lookup[1], props[self.lookup[0]])
        return out

    def handle_create(self) -> None:
        obj = getattr(self.cloud().load_balancer, f"create_{self.noun}")(
            **self.request(self.properties))
        self.resource_id = str(getattr(obj, self.id_field))

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """The changed (updatable) fields are sent; a removed name becomes the physical name."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if not changed:
            return
        full = self.request(self.properties)
        diff = {self.fields.get(k, k): full.get(self.fields.get(k, k)) for k in changed}
        getattr(self.cloud().load_balancer, f"update_{self.noun}")(self.resource_id, **diff)
        self.refresh()

    def _fetch(self) -> Any:
        return getattr(self.cloud().load_balancer, f"get_{self.noun}")(self.resource_id)

    def _delete(self) -> None:
        getattr(self.cloud().load_balancer, f"delete_{self.noun}")(self.resource_id)


class FlavorProfile(_OperatorObject):
    """A flavor profile: a provider's flavor data (a JSON string)."""

    type_name = "OS::Octavia::FlavorProfile"
    support_status = sch.FLAVOR_PROFILE_SUPPORT
    properties_schema = sch.FLAVOR_PROFILE_PROPERTIES
    attributes_schema = sch.FLAVOR_PROFILE_ATTRIBUTES
    noun = "flavor_profile"


class Flavor(_OperatorObject):
    """A load-balancer flavor of ``flavor_profile``."""

    type_name = "OS::Octavia::Flavor"
    support_status = sch.FLAVOR_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.FLAVOR_PROPERTIES
    attributes_schema = sch.FLAVOR_ATTRIBUTES
    noun = "flavor"
    fields: ClassVar[dict[str, str]] = {"flavor_profile": "flavor_profile_id",
                                        "enabled": "is_enabled"}
    lookup = ("flavor_profile", "octavia.flavorprofile")


class AvailabilityZoneProfile(_OperatorObject):
    """An availability zone profile: a provider's zone data (a JSON string)."""

    type_name = "OS::Octavia::AvailabilityZoneProfile"
    support_status = sch.AVAILABILITY_ZONE_PROFILE_SUPPORT
    properties_schema = sch.AVAILABILITY_ZONE_PROFILE_PROPERTIES
    attributes_schema = sch.AVAILABILITY_ZONE_PROFILE_ATTRIBUTES
    noun = "availability_zone_profile"


class AvailabilityZone(_OperatorObject):
    """A load-balancer availability zone of ``availability_zone_profile``; reference id: its
    name."""

    type_name = "OS::Octavia::AvailabilityZone"
    support_status = sch.AVAILABILITY_ZONE_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.AVAILABILITY_ZONE_PROPERTIES
    attributes_schema = sch.AVAILABILITY_ZONE_ATTRIBUTES
    noun = "availability_zone"
    fields: ClassVar[dict[str, str]] = {
        "availability_zone_profile": "availability_zone_profile_id", "enabled": "is_enabled"}
    lookup = ("availability_zone_profile", "octavia.availabilityzoneprofile")
    id_field = "name"


class Quota(CloudResource):
    """The load-balancer quota of ``project`` (admin)."""

    type_name = "OS::Octavia::Quota"
    support_status = sch.QUOTA_SUPPORT
    properties_schema = sch.QUOTA_PROPERTIES
    attributes_schema = sch.QUOTA_ATTRIBUTES
    #: Heat's property -> the SDK Quota's attribute
    LIMITS: ClassVar[dict[str, str]] = {"healthmonitor": "health_monitors",
                                        "listener": "listeners", "loadbalancer": "load_balancers",
                                        "pool": "pools", "member": "members"}

    def validate(self) -> None:
        """:raises errors.ValidationError: no limit given (Heat's PropertyUnspecifiedError)."""
        if not any(self.properties.get(k) is not None for k in self.LIMITS):
            raise errors.ValidationError(
                "At least one of the following properties must be specified: "
                f"{', '.join(sorted(self.LIMITS))}.")
        super().validate()

    def _project(self) -> str:
        return project_id(self, str(self.properties["project"]))

    def _set(self) -> None:
        limits = {self.LIMITS[k]: v for k, v in _given(self.properties).items() if k in self.LIMITS}
        self.cloud().load_balancer.update_quota(self._project(), **limits)

    def handle_create(self) -> None:
        self._set()
        self.resource_id = self.physical_resource_name()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self._set()

    def handle_delete(self) -> None:
        if self.resource_id:
            self.cloud().load_balancer.delete_quota(self._project())

    def _fetch(self) -> Any:
        return self.cloud().load_balancer.get_quota(self._project())


def project_id(resource: CloudResource, value: str) -> str:
    """The id of project ``value`` (a name or an id), as Heat's ``keystone.project`` lookup.

    :raises errors.CloudError: 404 "The Project (x) could not be found." """
    found = resource.cloud().identity.find_project(value, ignore_missing=True)
    if found is None:
        raise errors.CloudError(f"The Project ({value}) could not be found.", status=404,
                                transient=False)
    return str(found.id)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (L7Policy, L7Rule, Flavor, FlavorProfile,
                                           AvailabilityZone, AvailabilityZoneProfile, Quota)}
