"""Heat's resource type policy: which types are admin-only (OS::Neutron::Quota, Segment, the QoS
types, OS::Keystone::* ...)."""
from __future__ import annotations

import pytest

from app.auth import resource_policy


@pytest.mark.parametrize(("type_name", "admin_only"), [
    ("OS::Neutron::Quota", True), ("OS::Neutron::Segment", True), ("OS::Neutron::QoSDscpMarkingRule", True),
    ("OS::Keystone::Project", True), ("OS::Neutron::Trunk", False), ("OS::Neutron::Net", False)])
def test_restricted_types_are_heats(type_name: str, admin_only: bool) -> None:
    assert resource_policy.restricted(type_name) is admin_only
