"""A property check that fails on a value only known at update, through the Orchestration API.

Heat's ``Resource.update`` runs ``after_props.validate()`` inside ``_action_recorder``: the
resource goes UPDATE_IN_PROGRESS, then UPDATE_FAILED with ``ResourceFailure``'s text, whose
path starts at the raw section name (``Properties.length``); unlike ``Resource.create`` it is
not re-raised with the name in front, so the convergence engine's stack reason
(``CheckResource._do_check_resource``: ``"Resource UPDATE failed: " + str(failure)``) repeats
the resource's. The answers were recorded from the reference Heat 27.0.1 (convergence engine,
REST API) for the same template and parameters.
"""
from __future__ import annotations

from typing import Any

T = """heat_template_version: 2021-04-16
parameters:
  n: {type: number}
resources:
  a: {type: OS::Heat::Value, properties: {value: {get_param: n}}}
  r:
    type: OS::Heat::RandomString
    properties: {length: {get_attr: [a, value]}}
  z: {type: OS::Heat::Value, properties: {value: 1}}
"""
REASON = ("StackValidationFailed: resources.r: Property error: Properties.length: 0 is out of "
          "range (min: 1, max: 512)")


def test_update_check_fails_the_started_update(client: Any) -> None:
    r = client.post("/v1/vt/stacks", json={"stack_name": "up", "template": T,
                                           "parameters": {"n": 5}})
    assert r.status_code == 201
    sid = r.get_json()["stack"]["id"]
    r = client.put(f"/v1/vt/stacks/up/{sid}", json={"template": T, "parameters": {"n": 0}})
    assert r.status_code == 202
    s = client.get(f"/v1/vt/stacks/up/{sid}").get_json()["stack"]
    assert (s["stack_status"], s["stack_status_reason"]) == \
        ("UPDATE_FAILED", f"Resource UPDATE failed: {REASON}")
    rs = client.get(f"/v1/vt/stacks/up/{sid}/resources").get_json()["resources"]
    assert {x["resource_name"]: (x["resource_status"], x["resource_status_reason"])
            for x in rs} == {"a": ("UPDATE_COMPLETE", "state changed"),
                             "r": ("UPDATE_FAILED", REASON),
                             "z": ("CREATE_COMPLETE", "state changed")}
    evs = client.get(f"/v1/vt/stacks/up/{sid}/resources/r/events?sort_dir=asc").get_json()
    assert [(e["resource_status"], e["resource_status_reason"]) for e in evs["events"]] == [
        ("CREATE_IN_PROGRESS", "state changed"), ("CREATE_COMPLETE", "state changed"),
        ("UPDATE_IN_PROGRESS", "state changed"), ("UPDATE_FAILED", REASON)]
