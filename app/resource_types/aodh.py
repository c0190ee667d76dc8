"""Aodh alarms: OS::Aodh::Alarm (threshold, deprecated in Heat) and
OS::Aodh::GnocchiAggregationByResourcesAlarm (Heat 27, ``heat/engine/resources/openstack/aodh/``).

openstacksdk has no Aodh proxy, so requests go through ``Cloud.request("alarming", ...)`` (the
same retry and error translation). The alarm body is Heat's: the common fields (actions,
``repeat_actions``, ``severity``, ``time_constraints``, ``enabled``) plus the type's rule;
``*_queues`` become ``trust+zaqar://?queue_name=<q>`` actions and ``matching_metadata`` becomes
``metadata.user_metadata.<key> == value`` query entries, as Heat builds them. Created and deleted
synchronously; reference id: the alarm id.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.resource_types._actions import AlarmActions
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource
from app.resource_types._schemas import aodh as sch
from app.resource_types.base import Resource

_ACTIONS = (("alarm_actions", "alarm_queues"), ("ok_actions", "ok_queues"),
            ("insufficient_data_actions", "insufficient_data_queues"))


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return bool(value)


class BaseAlarm(CloudResource, AlarmActions):
    """Shared body, fetch and delete; subclasses give ``alarm_type`` and :meth:`rule`."""

    alarm_type: ClassVar[str] = ""

    def rule(self) -> dict[str, Any]:
        raise NotImplementedError

    def body(self) -> dict[str, Any]:
        """Heat's alarm body for these properties."""
        p = self.properties
        body: dict[str, Any] = {"name": self.physical_resource_name(), "type": self.alarm_type,
                                "enabled": _truthy(self.get_property("enabled")),
                                "repeat_actions": _truthy(self.get_property("repeat_actions")),
                                "severity": self.get_property("severity"),
                                f"{self.alarm_type}_rule": self.rule()}
        if p.get("description"):
            body["description"] = p["description"]
        for actions, queues in _ACTIONS:
            urls = [str(a) for a in p.get(actions) or []]
            urls += [f"trust+zaqar://?queue_name={q}" for q in p.get(queues) or []]
            if urls or p.get(actions) is not None:
                body[actions] = urls
        if p.get("time_constraints"):
            body["time_constraints"] = [{k: v for k, v in tc.items() if v is not None}
                                        for tc in p["time_constraints"]]
        return body

    def handle_create(self) -> None:
        alarm = self.cloud().request("alarming", "POST", "/alarms", json=self.body())
        self.resource_id = alarm["alarm_id"]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """The whole alarm is replaced (``PUT``) with the body for the new properties."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.cloud().request("alarming", "PUT", f"/alarms/{self.resource_id}", json=self.body())
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().request("alarming", "GET", f"/alarms/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request("alarming", "DELETE", f"/alarms/{self.resource_id}")


class Alarm(BaseAlarm):
    """A threshold alarm on ``meter_name`` (Heat keeps it, deprecated, for old templates)."""

    type_name = "OS::Aodh::Alarm"
    support_status = sch.ALARM_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.ALARM_PROPERTIES
    attributes_schema = sch.ALARM_ATTRIBUTES
    alarm_type = "threshold"

    def rule(self) -> dict[str, Any]:
        p = self.properties
        rule: dict[str, Any] = {"meter_name": p["meter_name"], "threshold": p["threshold"]}
        for key in ("comparison_operator", "period", "evaluation_periods", "statistic"):
            if p.get(key) is not None:
                rule[key] = p[key]
        query = [{k: v for k, v in q.items() if v is not None} for q in p.get("query") or []]
        for key, value in (p.get("matching_metadata") or {}).items():
            field = key if key.startswith("metadata.") else f"metadata.user_metadata.{key}"
            query.append({"field": field, "op": "eq", "value": str(value)})
        if query:
            rule["query"] = query
        return rule


class GnocchiAggregationByResourcesAlarm(BaseAlarm):
    """An alarm on ``metric`` aggregated over the Gnocchi resources ``query`` selects."""

    type_name = "OS::Aodh::GnocchiAggregationByResourcesAlarm"
    support_status = sch.GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_PROPERTIES
    attributes_schema = sch.GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_ATTRIBUTES
    alarm_type = "gnocchi_aggregation_by_resources_threshold"

    def rule(self) -> dict[str, Any]:
        p = self.properties
        rule: dict[str, Any] = {"metric": p["metric"], "resource_type": p["resource_type"],
                                "query": p["query"], "threshold": p["threshold"]}
        for key in ("aggregation_method", "granularity", "comparison_operator",
                    "evaluation_periods"):
            if p.get(key) is not None:
                rule[key] = p[key]
        return rule


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Alarm, GnocchiAggregationByResourcesAlarm)}
