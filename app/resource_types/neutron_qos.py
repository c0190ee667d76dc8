"""Neutron QoS and metering resource types: QoSPolicy, its four rules (QoSBandwidthLimitRule,
QoSDscpMarkingRule, QoSMinimumBandwidthRule, QoSMinimumPacketRateRule), MeteringLabel and
MeteringRule (Heat 27, ``neutron/qos.py`` and ``neutron/metering.py``), on
:class:`NeutronExtResource`. A rule lives under its policy (``policy`` resolved by name or id:
``/qos/policies/<policy>/<type>_rules``); a policy's ``rules`` attribute lists its rules.
Metering objects cannot be changed: every change replaces them.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._neutron_ext import NeutronExtResource
from app.resource_types._schemas import neutron_net as sch
from app.resource_types._schemas import neutron_qos as sch_qos
from app.resource_types.base import Resource


class QoSPolicy(NeutronExtResource):
    """A QoS policy (admin under Heat's and Neutron's default policies)."""

    type_name = "OS::Neutron::QoSPolicy"
    support_status = sch_qos.QOS_POLICY_SUPPORT
    properties_schema = sch_qos.QOS_POLICY_PROPERTIES
    attributes_schema = sch_qos.QOS_POLICY_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/qos/policies", "policy", "policies", "qos"


class _QoSRule(NeutronExtResource):
    rule: ClassVar[str] = ""
    omit = frozenset({"policy"})
    extension = "qos"

    def parent(self) -> str | None:
        return self.resolve("neutron.qos_policy", self.properties["policy"])

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.rule:
            cls.path, cls.key = f"/qos/policies/{{parent}}/{cls.rule}_rules", f"{cls.rule}_rule"


class QoSBandwidthLimitRule(_QoSRule):
    """A bandwidth limit (``max_kbps``, ``max_burst_kbps``) of ``policy`` in one direction."""

    type_name = "OS::Neutron::QoSBandwidthLimitRule"
    support_status = sch_qos.QOS_BANDWIDTH_LIMIT_RULE_SUPPORT
    properties_schema = sch_qos.QOS_BANDWIDTH_LIMIT_RULE_PROPERTIES
    attributes_schema = sch_qos.QOS_BANDWIDTH_LIMIT_RULE_ATTRIBUTES
    rule = "bandwidth_limit"


class QoSDscpMarkingRule(_QoSRule):
    """The DSCP mark ``policy`` sets."""

    type_name = "OS::Neutron::QoSDscpMarkingRule"
    support_status = sch_qos.QOS_DSCP_MARKING_RULE_SUPPORT
    properties_schema = sch_qos.QOS_DSCP_MARKING_RULE_PROPERTIES
    attributes_schema = sch_qos.QOS_DSCP_MARKING_RULE_ATTRIBUTES
    rule = "dscp_marking"


class QoSMinimumBandwidthRule(_QoSRule):
    """A guaranteed bandwidth (``min_kbps``) of ``policy``."""

    type_name = "OS::Neutron::QoSMinimumBandwidthRule"
    support_status = sch_qos.QOS_MINIMUM_BANDWIDTH_RULE_SUPPORT
    properties_schema = sch_qos.QOS_MINIMUM_BANDWIDTH_RULE_PROPERTIES
    attributes_schema = sch_qos.QOS_MINIMUM_BANDWIDTH_RULE_ATTRIBUTES
    rule, extension = "minimum_bandwidth", "qos-bw-minimum-ingress"


class QoSMinimumPacketRateRule(_QoSRule):
    """A guaranteed packet rate (``min_kpps``) of ``policy``."""

    type_name = "OS::Neutron::QoSMinimumPacketRateRule"
    support_status = sch_qos.QOS_MINIMUM_PACKET_RATE_RULE_SUPPORT
    properties_schema = sch_qos.QOS_MINIMUM_PACKET_RATE_RULE_PROPERTIES
    attributes_schema = sch_qos.QOS_MINIMUM_PACKET_RATE_RULE_ATTRIBUTES
    rule, extension = "minimum_packet_rate", "qos-pps-minimum"


class MeteringLabel(NeutronExtResource):
    """A metering label (admin under Neutron's default policy)."""

    type_name = "OS::Neutron::MeteringLabel"
    support_status = sch.METERING_LABEL_SUPPORT
    properties_schema = sch.METERING_LABEL_PROPERTIES
    attributes_schema = sch.METERING_LABEL_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/metering/metering-labels", "metering_label", "metering_labels", "metering"


class MeteringRule(NeutronExtResource):
    """A rule of ``metering_label_id`` counting traffic to or from ``remote_ip_prefix``."""

    type_name = "OS::Neutron::MeteringRule"
    support_status = sch.METERING_RULE_SUPPORT
    properties_schema = sch.METERING_RULE_PROPERTIES
    attributes_schema = sch.METERING_RULE_ATTRIBUTES
    path, key, extension = "/metering/metering-label-rules", "metering_label_rule", "metering"


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (QoSPolicy, QoSBandwidthLimitRule, QoSDscpMarkingRule,
                                           QoSMinimumBandwidthRule, QoSMinimumPacketRateRule,
                                           MeteringLabel, MeteringRule)
    return {cls.type_name: cls for cls in classes}
