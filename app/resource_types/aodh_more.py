"""More Aodh alarms (Heat 27, ``heat/engine/resources/openstack/aodh/``): the Gnocchi
threshold alarms on a resource's metric (OS::Aodh::GnocchiResourcesAlarm) and on a list of
metrics (OS::Aodh::GnocchiAggregationByMetricsAlarm), OS::Aodh::CompositeAlarm,
OS::Aodh::EventAlarm, OS::Aodh::LBMemberHealthAlarm and OS::Aodh::PrometheusAlarm.

The body is :class:`app.resource_types.aodh.BaseAlarm`'s (actions, queues as
``trust+zaqar://`` actions, enabled, repeat_actions, severity, time_constraints) with the type's
own properties as its ``<type>_rule``, as Heat's ``_reformat_properties`` builds it; a composite
rule ``{operator: o, rules: [...]}`` is sent as ``{o: [...]}``; a member-health rule names the
pool (resolved to its id), the stack and the autoscaling group. Updates PUT the whole alarm.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._schemas import aodh_gnocchi as sch_gnocchi
from app.resource_types._schemas import aodh_more as sch
from app.resource_types.aodh import BaseAlarm
from app.resource_types.base import Resource

_GNOCCHI = ("threshold", "comparison_operator", "evaluation_periods", "aggregation_method",
            "granularity")


class _RuleAlarm(BaseAlarm):
    """An alarm whose rule is its ``rule_properties`` that are given."""

    rule_properties: ClassVar[tuple[str, ...]] = ()
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION

    def rule(self) -> dict[str, Any]:
        return {k: self.properties[k] for k in self.rule_properties
                if self.properties.get(k) is not None}


class GnocchiResourcesAlarm(_RuleAlarm):
    """A threshold on ``metric`` of the Gnocchi resource ``resource_id``."""

    type_name = "OS::Aodh::GnocchiResourcesAlarm"
    support_status = sch_gnocchi.GNOCCHI_RESOURCES_ALARM_SUPPORT
    properties_schema = sch_gnocchi.GNOCCHI_RESOURCES_ALARM_PROPERTIES
    attributes_schema = sch_gnocchi.GNOCCHI_RESOURCES_ALARM_ATTRIBUTES
    alarm_type = "gnocchi_resources_threshold"
    rule_properties = ("metric", "resource_id", "resource_type", *_GNOCCHI)


class GnocchiAggregationByMetricsAlarm(_RuleAlarm):
    """A threshold on the aggregation of the Gnocchi metrics ``metrics`` (their ids)."""

    type_name = "OS::Aodh::GnocchiAggregationByMetricsAlarm"
    support_status = sch_gnocchi.GNOCCHI_AGGREGATION_BY_METRICS_ALARM_SUPPORT
    properties_schema = sch_gnocchi.GNOCCHI_AGGREGATION_BY_METRICS_ALARM_PROPERTIES
    attributes_schema = sch_gnocchi.GNOCCHI_AGGREGATION_BY_METRICS_ALARM_ATTRIBUTES
    alarm_type = "gnocchi_aggregation_by_metrics_threshold"
    rule_properties = ("metrics", *_GNOCCHI)


class CompositeAlarm(_RuleAlarm):
    """An ``and`` / ``or`` of alarm rules."""

    type_name = "OS::Aodh::CompositeAlarm"
    support_status = sch.COMPOSITE_ALARM_SUPPORT
    properties_schema = sch.COMPOSITE_ALARM_PROPERTIES
    attributes_schema = sch.COMPOSITE_ALARM_ATTRIBUTES
    alarm_type = "composite"

    def rule(self) -> dict[str, Any]:
        composite = self.properties["composite_rule"]
        return {composite["operator"]: list(composite["rules"])}


class EventAlarm(_RuleAlarm):
    """An alarm on events of ``event_type`` matching ``query``."""

    type_name = "OS::Aodh::EventAlarm"
    support_status = sch.EVENT_ALARM_SUPPORT
    properties_schema = sch.EVENT_ALARM_PROPERTIES
    attributes_schema = sch.EVENT_ALARM_ATTRIBUTES
    alarm_type = "event"
    rule_properties = ("event_type", "query")


class LBMemberHealthAlarm(_RuleAlarm):
    """An alarm on the health of the members of an Octavia ``pool``."""

    type_name = "OS::Aodh::LBMemberHealthAlarm"
    support_status = sch.LB_MEMBER_HEALTH_ALARM_SUPPORT
    properties_schema = sch.LB_MEMBER_HEALTH_ALARM_PROPERTIES
    attributes_schema = sch.LB_MEMBER_HEALTH_ALARM_ATTRIBUTES
    alarm_type = "loadbalancer_member_health"

    def rule(self) -> dict[str, Any]:
        p = self.properties
        return {"pool_id": self.resolve("octavia.pool", p["pool"]), "stack_id": p["stack"],
                "autoscaling_group_id": p["autoscaling_group_id"]}


class PrometheusAlarm(_RuleAlarm):
    """A threshold on the value of the PromQL ``query``."""

    type_name = "OS::Aodh::PrometheusAlarm"
    support_status = sch.PROMETHEUS_ALARM_SUPPORT
    properties_schema = sch.PROMETHEUS_ALARM_PROPERTIES
    attributes_schema = sch.PROMETHEUS_ALARM_ATTRIBUTES
    alarm_type = "prometheus"
    rule_properties = ("query", "threshold", "comparison_operator")


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (GnocchiResourcesAlarm, GnocchiAggregationByMetricsAlarm,
                                           CompositeAlarm, EventAlarm, LBMemberHealthAlarm,
                                           PrometheusAlarm)}
