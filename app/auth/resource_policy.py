"""Heat's resource type policy (``heat/policies/resource_types.py``, enforced by its
``ResourceEnforcer`` on stack create and update): the types below are ``rule:project_admin``
(the ``admin`` role); a template using one is refused for anyone else with Heat's ``Forbidden``
(403) ``You are not authorized to use <type>.``. ``OS::Keystone::*`` covers every Keystone type,
as Heat checks the wildcard of a type's namespace too. Other types are open.
"""
from __future__ import annotations

from collections.abc import Iterable

from app import errors

ADMIN_TYPES = frozenset({
    "OS::Nova::Flavor", "OS::Cinder::EncryptedVolumeType", "OS::Cinder::VolumeType", "OS::Cinder::Quota",
    "OS::Neutron::Quota", "OS::Nova::Quota", "OS::Octavia::Quota", "OS::Manila::ShareType",
    "OS::Neutron::ProviderNet", "OS::Neutron::QoSPolicy", "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule", "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::QoSMinimumPacketRateRule", "OS::Neutron::Segment", "OS::Nova::HostAggregate",
    "OS::Cinder::QoSSpecs", "OS::Cinder::QoSAssociation", "OS::Keystone::*", "OS::Blazar::Host",
    "OS::Octavia::Flavor", "OS::Octavia::FlavorProfile", "OS::Octavia::AvailabilityZone",
    "OS::Octavia::AvailabilityZoneProfile"})


def restricted(type_name: str) -> bool:
    """Whether ``type_name`` (or its namespace's wildcard) is admin-only."""
    wildcard = "::".join([*type_name.split("::")[:-1], "*"])
    return type_name in ADMIN_TYPES or wildcard in ADMIN_TYPES


def enforce(is_admin: bool, types: Iterable[str]) -> None:
    """Heat's ``ResourceEnforcer.enforce_stack`` for a caller: nothing for an admin (Heat's
    ``rule:project_admin``); otherwise the first admin-only type of ``types`` (sorted, as
    Heat checks a set of type names and names one) is refused.

    :raises errors.Forbidden: 403 "You are not authorized to use <type>." """
    if is_admin:
        return
    for type_name in sorted(set(types)):
        if restricted(type_name):
            raise errors.Forbidden(f"You are not authorized to use {type_name}.")
