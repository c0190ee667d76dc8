"""Aodh alarms against the sandbox (raw REST through the guarded connection)."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_threshold_alarm(driver: Any) -> None:
    alarm = driver.create("OS::Aodh::Alarm", "alarm", {
        "meter_name": "cpu_util", "threshold": 50, "comparison_operator": "gt",
        "statistic": "avg", "period": 60, "evaluation_periods": 1,
        "alarm_actions": ["http://127.0.0.1:8000/signal"], "alarm_queues": ["q1"],
        "matching_metadata": {"metering.server_group": "g1"}})
    shown = alarm.resolve_attribute("show")
    assert shown["type"] == "threshold" and shown["enabled"] is True
    assert shown["alarm_actions"] == ["http://127.0.0.1:8000/signal",
                                      "trust+zaqar://?queue_name=q1"]
    assert shown["threshold_rule"]["query"] == [
        {"field": "metadata.user_metadata.metering.server_group", "op": "eq", "value": "g1"}]
    driver.delete(alarm)
    driver.delete(alarm)


def test_queues_become_zaqar_actions(driver: Any) -> None:
    res = driver.make("OS::Aodh::Alarm", "alarm", {"meter_name": "m", "threshold": 1,
                                                   "ok_queues": ["q1"]})
    assert res.body()["ok_actions"] == ["trust+zaqar://?queue_name=q1"]


def test_gnocchi_alarm(driver: Any) -> None:
    alarm = driver.create("OS::Aodh::GnocchiAggregationByResourcesAlarm", "alarm", {
        "metric": "cpu", "aggregation_method": "mean", "granularity": 300,
        "resource_type": "instance", "query": '{"=": {"server_group": "g1"}}', "threshold": 80,
        "comparison_operator": "gt", "evaluation_periods": 1, "enabled": "false"})
    shown = alarm.resolve_attribute("show")
    assert shown["type"] == "gnocchi_aggregation_by_resources_threshold"
    assert shown["enabled"] is False
    assert shown["gnocchi_aggregation_by_resources_threshold_rule"]["metric"] == "cpu"
    driver.delete(alarm)
