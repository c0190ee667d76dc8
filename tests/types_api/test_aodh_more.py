"""The Gnocchi, composite, event and Prometheus alarms through the API with real workers, and
the corpus's ``test_aodh_alarm.yaml`` end to end: an OS::Heat::AutoScalingGroup grows when the
sandbox's Aodh fires its OS::Aodh::GnocchiAggregationByMetricsAlarm (a value of its metric set
through ``PUT /sandbox/metrics``), whose action is the scaling policy's signal URL."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
AODH_ALARM = CORPUS / "heat-tempest-plugin/heat_tempest_plugin/tests/scenario/templates/" \
    "test_aodh_alarm.yaml"

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  threshold: {type: number, default: 80}
  start: {type: string, default: "08:00"}
resources:
  by_resource:
    type: OS::Aodh::GnocchiResourcesAlarm
    properties:
      metric: cpu_util
      resource_type: instance
      resource_id: srv-1
      threshold: {get_param: threshold}
      comparison_operator: gt
  composite:
    type: OS::Aodh::CompositeAlarm
    properties:
      composite_rule:
        operator: or
        rules:
          - {type: threshold, meter_name: cpu_util, threshold: 1}
          - {type: threshold, meter_name: memory, threshold: 1}
  event:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: compute.instance.update
      query: [{field: traits.state, op: eq, value: error, type: string}]
  prometheus:
    type: OS::Aodh::PrometheusAlarm
    properties:
      query: up
      threshold: 1
      comparison_operator: lt
      time_constraints: [{name: day, start: {list_join: [' ', ['0', {get_param: start}, '*', '*', '*']]},
                          duration: 3600}]
"""


def test_alarm_types_created_updated_and_replaced(api: Any) -> None:
    aodh = api.cloud("alarming")
    stack = api.create(TEMPLATE)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    alarms = {n: aodh.get(f"/v2/alarms/{i}").json() for n, i in res.items()}
    assert alarms["by_resource"]["type"] == "gnocchi_resources_threshold"
    assert alarms["by_resource"]["gnocchi_resources_threshold_rule"]["resource_id"] == "srv-1"
    assert alarms["composite"]["composite_rule"] == {"or": [
        {"type": "threshold", "meter_name": "cpu_util", "threshold": 1},
        {"type": "threshold", "meter_name": "memory", "threshold": 1}]}
    assert alarms["event"]["event_rule"]["event_type"] == "compute.instance.update"
    assert alarms["prometheus"]["prometheus_rule"] == {"query": "up", "threshold": 1,
                                                       "comparison_operator": "lt"}
    fired = api.sandbox("PUT", "metrics", json={"metric": "cpu_util", "value": 95,
                                                "resource_id": "srv-1"})
    assert {"alarm_id": res["by_resource"], "state": "alarm"} in fired["alarms"]

    stack = api.update(stack, TEMPLATE, {"threshold": 99, "start": "09:00"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert {n for n in res if after[n] != res[n]} == {"prometheus"}   # time_constraints
    rule = aodh.get(f"/v2/alarms/{res['by_resource']}").json()["gnocchi_resources_threshold_rule"]
    assert rule["threshold"] == 99
    assert aodh.get(f"/v2/alarms/{res['prometheus']}", raise_exc=False).status_code == 404
    api.delete(stack)


def test_a_gnocchi_alarm_scales_an_autoscaling_group(api: Any) -> None:
    stack = api.create(AODH_ALARM.read_text(), {"metric_id": "metric-e2e"})
    assert api.output(stack, "asg_size") == 1
    alarm_id = api.resources(stack)["alarm"]["physical_resource_id"]
    rule = api.cloud("alarming").get(f"/v2/alarms/{alarm_id}").json()[
        "gnocchi_aggregation_by_metrics_threshold_rule"]
    assert (rule["metrics"], rule["threshold"]) == (["metric-e2e"], 10)
    fired = api.sandbox("PUT", "metrics", json={"metric": "metric-e2e", "value": 20})
    assert fired["alarms"] == [{"alarm_id": alarm_id, "state": "alarm"}]
    deadline = time.monotonic() + 60
    while api.output(api.heat.stacks.get(stack["id"]).to_dict(), "asg_size") != 2:
        assert time.monotonic() < deadline, api.sandbox("GET", "notifications")
        time.sleep(0.3)
    api.delete(stack)


PROMETHEUS = """
heat_template_version: 2018-08-31
parameters:
  query: {type: string}
  threshold: {type: number, default: 50}
resources:
  busy:
    type: OS::Aodh::PrometheusAlarm
    properties: {query: {get_param: query}, threshold: {get_param: threshold}, comparison_operator: gt}
"""


def test_a_prometheus_alarm_is_evaluated_on_the_sandboxs_series(api: Any) -> None:
    aodh = api.cloud("alarming")

    def state(alarm_id: str) -> str:
        return str(aodh.get(f"/v2/alarms/{alarm_id}").json()["state"])

    stack = api.create(PROMETHEUS, {"query": 'avg(t_load{resource_id=~"web-.*"})'})
    alarm_id = api.resources(stack)["busy"]["physical_resource_id"]
    api.sandbox("PUT", "metrics", json={"metric": "t_load", "value": 40, "resource_id": "web-1"})
    assert state(alarm_id) == "ok"
    api.sandbox("PUT", "metrics", json={"metric": "t_load", "value": 99, "resource_id": "db-1"})
    assert state(alarm_id) == "ok"                                 # not selected
    fired = api.sandbox("PUT", "metrics", json={"metric": "t_load", "value": 80, "resource_id": "web-2"})
    assert {"alarm_id": alarm_id, "state": "alarm"} in fired["alarms"]      # avg 60 > 50

    stack = api.update(stack, PROMETHEUS, {"query": 'min(t_load{resource_id=~"web-.*"})'})
    assert api.resources(stack)["busy"]["physical_resource_id"] == alarm_id  # in place
    api.sandbox("PUT", "metrics", json={"metric": "t_load", "value": 45, "resource_id": "web-1"})
    assert state(alarm_id) == "ok"                                 # min 45

    stack = api.update(stack, PROMETHEUS, {"query": 't_load{resource_id!="db-1"}', "threshold": 40})
    api.sandbox("PUT", "metrics", json={"metric": "t_load", "value": 46, "resource_id": "web-1"})
    assert state(alarm_id) == "alarm"                              # 46 and 80, both above 40
    api.delete(stack)


def test_a_prometheus_query_outside_the_subset_is_left_unevaluated(api: Any) -> None:
    stack = api.create(PROMETHEUS, {"query": "rate(t_requests[5m]) * 100"})
    alarm_id = api.resources(stack)["busy"]["physical_resource_id"]
    fired = api.sandbox("PUT", "metrics", json={"metric": "t_requests", "value": 1000})
    assert alarm_id not in {a["alarm_id"] for a in fired["alarms"]}
    alarm = api.cloud("alarming").get(f"/v2/alarms/{alarm_id}").json()
    assert (alarm["state"], alarm["state_reason"]) == ("insufficient data", "Not evaluated yet")
    api.delete(stack)


ACTIONS = """
heat_template_version: 2018-08-31
resources:
  by_resource:
    type: OS::Aodh::GnocchiResourcesAlarm
    properties: {metric: cpu_util, resource_type: instance, resource_id: srv-9, threshold: 80}
  by_metrics:
    type: OS::Aodh::GnocchiAggregationByMetricsAlarm
    properties: {metrics: [m-9], threshold: 10}
  composite:
    type: OS::Aodh::CompositeAlarm
    properties: {composite_rule: {operator: or, rules: [{type: threshold, meter_name: m, threshold: 1},
                                                        {type: threshold, meter_name: n, threshold: 1}]}}
  event:
    type: OS::Aodh::EventAlarm
    properties: {event_type: compute.instance.update}
  prometheus:
    type: OS::Aodh::PrometheusAlarm
    properties: {query: up, threshold: 1}
"""


def test_alarm_types_suspend_resume_and_check_as_heat(api: Any) -> None:
    aodh = api.cloud("alarming")

    def act(stack: dict[str, Any], action: str) -> None:
        getattr(api.heat.actions, action)(stack["id"])
        want = f"{action.upper()}_COMPLETE"
        deadline = time.monotonic() + 60
        while (got := api.heat.stacks.get(stack["id"])).stack_status != want:
            assert not got.stack_status.endswith("FAILED") and time.monotonic() < deadline, \
                (got.stack_status, got.stack_status_reason)
            time.sleep(0.25)

    stack = api.create(ACTIONS)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}

    def enabled() -> set[bool]:
        return {aodh.get(f"/v2/alarms/{alarm_id}").json()["enabled"] for alarm_id in res.values()}

    act(stack, "suspend")
    assert enabled() == {False}                     # Heat's BaseAlarm.handle_suspend disables
    assert {r["resource_status"] for r in api.resources(stack).values()} == {"SUSPEND_COMPLETE"}
    act(stack, "resume")
    assert enabled() == {True}
    act(stack, "check")
    assert {r["resource_status"] for r in api.resources(stack).values()} == {"CHECK_COMPLETE"}
    aodh.delete(f"/v2/alarms/{res['event']}")       # gone behind the stack's back
    api.heat.actions.check(stack["id"])
    deadline = time.monotonic() + 60
    while (got := api.heat.stacks.get(stack["id"])).stack_status != "CHECK_FAILED":
        assert time.monotonic() < deadline, got.stack_status
        time.sleep(0.25)
    assert api.resources(stack)["event"]["resource_status"] == "CHECK_FAILED"
    api.delete(stack)


COMPOSITE = """
heat_template_version: 2018-08-31
resources:
  either:
    type: OS::Aodh::CompositeAlarm
    properties:
      composite_rule:
        operator: and
        rules:
          - {type: threshold, meter_name: t_cpu, threshold: 80, comparison_operator: gt}
          - or:   # a nested rule is in Aodh's own form: Heat converts the top level only
              - {type: threshold, meter_name: t_mem, threshold: 90, comparison_operator: gt}
              - {type: gnocchi_resources_threshold, metric: t_disk, resource_type: instance,
                 resource_id: vm-1, threshold: 95, comparison_operator: gt}
"""


def test_a_composite_alarm_is_evaluated_from_its_threshold_rules(api: Any) -> None:
    aodh = api.cloud("alarming")
    stack = api.create(COMPOSITE)
    alarm_id = api.resources(stack)["either"]["physical_resource_id"]

    def put(metric: str, value: float, resource_id: str | None = None) -> str:
        api.sandbox("PUT", "metrics", json={"metric": metric, "value": value, "resource_id": resource_id})
        return str(aodh.get(f"/v2/alarms/{alarm_id}").json()["state"])

    assert put("t_cpu", 85) == "insufficient data"     # t_mem and t_disk unknown yet
    assert put("t_mem", 50) == "insufficient data"     # the or still undecided
    assert put("t_disk", 99, "vm-2") == "insufficient data"   # another server's disk
    assert put("t_disk", 99, "vm-1") == "alarm"        # cpu > 80 and disk > 95
    assert put("t_cpu", 10) == "ok"                    # the and is false
    api.delete(stack)
