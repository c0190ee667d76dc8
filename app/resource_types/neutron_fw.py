"""Neutron FWaaS v1 and VPNaaS resource types: Firewall, FirewallPolicy, FirewallRule,
VPNService, IKEPolicy, IPsecPolicy and IPsecSiteConnection (Heat 27, ``neutron/firewall.py``,
``neutron/vpnservice.py``), on :class:`NeutronExtResource`.

As Heat: a firewall is complete once ``ACTIVE`` (or ``INACTIVE``) after ``PENDING_CREATE``, and
its ``shared`` attribute answers Heat's fixed "unsupported" text; a rule's ``protocol: any`` is
sent as null; a VPN service is complete in ``PENDING_CREATE`` already (it only becomes
``ACTIVE`` once a connection is, which needs the service first); an IPsec site connection is
complete once ``ACTIVE``. Deletes wait until the object is gone.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._neutron_ext import NeutronExtResource
from app.resource_types._schemas import neutron_fw as sch_fw
from app.resource_types._schemas import neutron_vpn as sch_vpn
from app.resource_types.base import Resource

#: Heat's answer for a firewall's ``shared`` attribute.
FIREWALL_SHARED = "This attribute is currently unsupported in neutron firewall resource."


class Firewall(NeutronExtResource):
    """A firewall applying ``firewall_policy_id``."""

    type_name = "OS::Neutron::Firewall"
    support_status = sch_fw.FIREWALL_SUPPORT
    properties_schema = sch_fw.FIREWALL_PROPERTIES
    attributes_schema = sch_fw.FIREWALL_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/fw/firewalls", "firewall", "firewalls", "fwaas"
    built = ("ACTIVE", "INACTIVE")

    def _resolve_attribute(self, name: str) -> Any:
        if name == "shared":
            return FIREWALL_SHARED
        return super()._resolve_attribute(name)


class FirewallPolicy(NeutronExtResource):
    """An ordered list of firewall rules."""

    type_name = "OS::Neutron::FirewallPolicy"
    support_status = sch_fw.FIREWALL_POLICY_SUPPORT
    properties_schema = sch_fw.FIREWALL_POLICY_PROPERTIES
    attributes_schema = sch_fw.FIREWALL_POLICY_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/fw/firewall_policies", "firewall_policy", "firewall_policies", "fwaas"


class FirewallRule(NeutronExtResource):
    """One firewall rule; ``protocol: any`` is sent as null (Heat)."""

    type_name = "OS::Neutron::FirewallRule"
    support_status = sch_fw.FIREWALL_RULE_SUPPORT
    properties_schema = sch_fw.FIREWALL_RULE_PROPERTIES
    attributes_schema = sch_fw.FIREWALL_RULE_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/fw/firewall_rules", "firewall_rule", "firewall_rules", "fwaas"

    def api_body(self, props: Mapping[str, Any], keys: Iterable[str] | None = None) -> dict[str, Any]:
        out = super().api_body(props, keys)
        if out.get("protocol") == "any":
            out["protocol"] = None
        return out


class VPNService(NeutronExtResource):
    """A VPN service on ``router`` for ``subnet`` (``subnet_id`` / ``router_id``: Heat's
    deprecated names)."""

    type_name = "OS::Neutron::VPNService"
    support_status = sch_vpn.VPN_SERVICE_SUPPORT
    properties_schema = sch_vpn.VPN_SERVICE_PROPERTIES
    attributes_schema = sch_vpn.VPN_SERVICE_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    hidden_properties: ClassVar[dict[str, str]] = {"subnet_id": "subnet", "router_id": "router"}
    path, key, plural, extension = "/vpn/vpnservices", "vpnservice", "vpnservices", "vpnaas"
    renames = {"subnet": "subnet_id", "router": "router_id"}
    lookups = {"subnet": "neutron.subnet", "router": "neutron.router"}
    built = ("PENDING_CREATE", "ACTIVE")


class IKEPolicy(NeutronExtResource):
    """An IKE policy of IPsec site connections."""

    type_name = "OS::Neutron::IKEPolicy"
    support_status = sch_vpn.IKE_POLICY_SUPPORT
    properties_schema = sch_vpn.IKE_POLICY_PROPERTIES
    attributes_schema = sch_vpn.IKE_POLICY_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/vpn/ikepolicies", "ikepolicy", "ikepolicies", "vpnaas"


class IPsecPolicy(NeutronExtResource):
    """An IPsec policy of IPsec site connections."""

    type_name = "OS::Neutron::IPsecPolicy"
    support_status = sch_vpn.IPSEC_POLICY_SUPPORT
    properties_schema = sch_vpn.IPSEC_POLICY_PROPERTIES
    attributes_schema = sch_vpn.IPSEC_POLICY_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/vpn/ipsecpolicies", "ipsecpolicy", "ipsecpolicies", "vpnaas"


class IPsecSiteConnection(NeutronExtResource):
    """A site-to-site IPsec connection of a VPN service; complete once ``ACTIVE``."""

    type_name = "OS::Neutron::IPsecSiteConnection"
    support_status = sch_vpn.IPSEC_SITE_CONNECTION_SUPPORT
    properties_schema = sch_vpn.IPSEC_SITE_CONNECTION_PROPERTIES
    attributes_schema = sch_vpn.IPSEC_SITE_CONNECTION_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural = "/vpn/ipsec-site-connections", "ipsec_site_connection", "ipsec_site_connections"
    extension = "vpnaas"
    built = ("ACTIVE",)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (Firewall, FirewallPolicy, FirewallRule, VPNService, IKEPolicy,
                                           IPsecPolicy, IPsecSiteConnection)
    return {cls.type_name: cls for cls in classes}
