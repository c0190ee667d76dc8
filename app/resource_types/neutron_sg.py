"""Neutron security groups: SecurityGroup and SecurityGroupRule (Heat 27,
``heat/engine/resources/openstack/neutron/security_group*.py``). Neutron's default allow-all
egress rules are removed when a template gives egress rules, and put back by an update whose
rules have none, as Heat does. Reference ids: the Neutron ids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._schemas import neutron_sg as sch_sg
from app.resource_types.base import Resource
from app.resource_types.neutron import NeutronResource


# ---- security groups ----------------------------------------------------------------------------
def rule_body(rule: dict[str, Any], group_id: str, resolve: Any = None) -> dict[str, Any]:
    """A Neutron rule body from a Heat rule map (Heat's ``_format_rule``): ``remote_mode``
    ``remote_group_id`` with no group means this group; ``remote_ip_prefix`` drops the group."""
    body: dict[str, Any] = {"security_group_id": group_id,
                            "direction": rule.get("direction") or "ingress",
                            "ethertype": rule.get("ethertype") or "IPv4"}
    for key in ("port_range_min", "port_range_max", "protocol"):
        if rule.get(key) is not None:
            body[key] = rule[key]
    mode = rule.get("remote_mode") or "remote_ip_prefix"
    if mode == "remote_group_id":
        group = rule.get("remote_group_id") or group_id
        body["remote_group_id"] = resolve(group) if resolve else group
    elif rule.get("remote_ip_prefix"):
        body["remote_ip_prefix"] = rule["remote_ip_prefix"]
    return body


class SecurityGroup(NeutronResource):
    """A security group and its ``rules``; Neutron's default allow-all egress rules are removed
    when an egress rule is given (Heat's behaviour)."""

    type_name = "OS::Neutron::SecurityGroup"
    support_status = sch_sg.SECURITY_GROUP_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch_sg.SECURITY_GROUP_PROPERTIES
    attributes_schema = sch_sg.SECURITY_GROUP_ATTRIBUTES
    collection = "security_group"

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "description": self.properties.get("description") or ""}
        if self.properties.get("stateful") is not None:
            attrs["stateful"] = self.properties["stateful"]
        group = self._create(attrs)
        self.create_rules(group.id, self.get_property("rules") or [])

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``name`` / ``stateful`` updated; new ``rules`` replace all the group's rules (Neutron's
        default allow-all egress rules come back when no egress rule is given)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        net = self.cloud().network
        body: dict[str, Any] = {}
        if "name" in changed:
            body["name"] = self.name_or_physical()
        if "stateful" in changed:
            body["stateful"] = self.properties.get("stateful")
        if body:
            net.update_security_group(self.resource_id, **body)
        if "rules" in changed:
            self.replace_rules(list(self.get_property("rules") or []))
        self.refresh()

    def replace_rules(self, rules: list[dict[str, Any]]) -> None:
        """Delete every rule of the group and create ``rules`` (Heat rule maps); Neutron's
        default allow-all egress rules are put back when ``rules`` has no egress rule."""
        net = self.cloud().network
        for rule in net.security_group_rules(security_group_id=self.resource_id):
            net.delete_security_group_rule(rule.id, ignore_missing=True)
        if not any((r.get("direction") or "ingress") == "egress" for r in rules):
            rules = rules + [{"direction": "egress", "ethertype": e, "remote_ip_prefix": None}
                             for e in ("IPv4", "IPv6")]
        self.create_rules(str(self.resource_id), rules, keep_default_egress=True)

    def create_rules(self, group_id: str, rules: list[dict[str, Any]],
                     keep_default_egress: bool = False) -> None:
        """Create ``rules``; a rule that already exists (409) is fine, as in Heat."""
        net = self.cloud().network
        if not keep_default_egress and any((r.get("direction") or "ingress") == "egress"
                                           for r in rules):
            for existing in net.security_group_rules(security_group_id=group_id,
                                                     direction="egress"):
                net.delete_security_group_rule(existing.id, ignore_missing=True)
        for rule in rules:
            try:    # sent again after any 5xx: Neutron refuses a second equal rule (409)
                net.create_security_group_rule(find=_refused_if_made, **rule_body(rule, group_id))
            except errors.CloudError as exc:
                if exc.status != 409:
                    raise
        self.refresh()


def _refused_if_made() -> None:
    """The lookup of a rule's create: none is needed, a rule the failed try made makes the
    next try a 409 (``SecurityGroupRuleExists``), which :meth:`create_rules` accepts."""


class SecurityGroupRule(NeutronResource):
    """One rule of ``security_group`` (``remote_group`` resolved by name or id)."""

    type_name = "OS::Neutron::SecurityGroupRule"
    support_status = sch_sg.SECURITY_GROUP_RULE_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = {
        "description": {**UNLISTED_DESCRIPTION["description"], "update_allowed": False}}
    properties_schema = sch_sg.SECURITY_GROUP_RULE_PROPERTIES
    attributes_schema = sch_sg.SECURITY_GROUP_RULE_ATTRIBUTES
    collection = "security_group_rule"

    def handle_create(self) -> None:
        p = self.properties
        group = self.resolve("neutron.security_group", p.get("security_group"))
        body: dict[str, Any] = {"security_group_id": group,
                                "direction": self.get_property("direction"),
                                "ethertype": self.get_property("ethertype")}
        for key in ("port_range_min", "port_range_max", "remote_ip_prefix", "description"):
            if p.get(key) is not None:
                body[key] = p[key]
        protocol = self.get_property("protocol")
        if protocol is not None:
            body["protocol"] = protocol
        if p.get("remote_group"):
            body["remote_group_id"] = self.resolve("neutron.security_group", p["remote_group"])
        self._create(body)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (SecurityGroup, SecurityGroupRule)}
