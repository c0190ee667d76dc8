"""``deletion_policy: RetainExceptOnCreate`` and ``update_replace_policy`` through the
Orchestration API (SQLite, tasks in-process), in Stoker's HOT version ``stoker-2026-12-01`` and
in CFN templates; Heat's HOT versions refuse both as Heat refuses an unknown value or key. What
is kept is observable as a nested stack (a template resource) that stays alive."""
from __future__ import annotations

import json
from typing import Any

import pytest

STOKER = "stoker-2026-12-01"
CHILD = {"heat_template_version": "2018-08-31", "resources": {"leaf": {"type": "OS::Heat::None"}}}
FAILING = {"heat_template_version": "2018-08-31", "resources": {
    "leaf": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}}}
FILES = {"a.yaml": json.dumps(CHILD), "b.yaml": json.dumps(CHILD),
         "fail.yaml": json.dumps(FAILING)}


def tmpl(resources: dict[str, Any], version: str = STOKER) -> dict[str, Any]:
    return {"heat_template_version": version, "resources": resources}


def create(client: Any, name: str, template: dict[str, Any], **body: Any) -> str:
    resp = client.post("/v1/t1/stacks", json={"stack_name": name, "template": template,
                                              "files": FILES, **body})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.headers["Location"].split("localhost", 1)[1])


def show(client: Any, base: str) -> dict[str, Any]:
    return dict(client.get(base).get_json()["stack"])


def child_status(client: Any, stack_id: str) -> str:
    found = client.get(f"/v1/t1/stacks/{stack_id}")
    assert found.status_code == 302, found.get_json()
    return str(show(client, found.headers["Location"].split("localhost", 1)[1])["stack_status"])


def physical(client: Any, base: str, name: str) -> str:
    rows = client.get(f"{base}/resources").get_json()["resources"]
    return next(str(r["physical_resource_id"]) for r in rows if r["resource_name"] == name)


def test_retain_except_on_create_is_kept_on_a_later_delete(client):
    base = create(client, "kept", tmpl({"keep": {"type": "a.yaml",
                                                 "deletion_policy": "RetainExceptOnCreate"},
                                        "gone": {"type": "b.yaml"}}))
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"
    keep, gone = physical(client, base, "keep"), physical(client, base, "gone")
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"
    assert child_status(client, keep) == "CREATE_COMPLETE"  # retained
    assert child_status(client, gone) == "DELETE_COMPLETE"


def test_retain_except_on_create_is_deleted_when_its_create_rolls_back(client):
    base = create(client, "rolled", tmpl({
        "keep": {"type": "a.yaml", "deletion_policy": "RetainExceptOnCreate"},
        "boom": {"type": "OS::Heat::TestResource", "depends_on": ["keep"],
                 "properties": {"fail": True}}}), disable_rollback=False)
    st = show(client, base)
    assert st["stack_status"] == "ROLLBACK_COMPLETE", st["stack_status_reason"]
    events = client.get(f"{base}/resources/keep/events").get_json()["events"]
    created = [e["physical_resource_id"] for e in events
               if e["resource_status"] == "CREATE_COMPLETE"]
    assert created and child_status(client, created[0]) == "DELETE_COMPLETE"


def test_update_replace_policy_retain_keeps_the_replaced_resource(client):
    base = create(client, "replacing", tmpl({"r": {"type": "a.yaml"}}))
    old = physical(client, base, "r")
    resp = client.put(base, json={"template": tmpl({"r": {
        "type": "b.yaml", "update_replace_policy": "Retain"}}), "files": FILES})
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert physical(client, base, "r") != old
    assert child_status(client, old) == "CREATE_COMPLETE"  # the replaced one is kept


def test_update_replace_policy_delete_overrides_a_retain_deletion_policy(client):
    base = create(client, "overridden", tmpl({"r": {"type": "a.yaml",
                                                    "deletion_policy": "Retain"}}))
    old = physical(client, base, "r")
    resp = client.put(base, json={"template": tmpl({"r": {
        "type": "b.yaml", "deletion_policy": "Retain", "update_replace_policy": "Delete"}}),
        "files": FILES})
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert child_status(client, old) == "DELETE_COMPLETE"


def test_a_stack_delete_after_a_failed_replacement_applies_the_deletion_policy(client):
    # AWS user guide, UpdateReplacePolicy attribute: it "only applies to resources replaced
    # during stack updates"; a resource deleted with its stack follows its DeletionPolicy.
    base = create(client, "failedrep", tmpl({"r": {"type": "a.yaml"}}))
    old = physical(client, base, "r")
    resp = client.put(base, json={"template": tmpl({"r": {
        "type": "fail.yaml", "update_replace_policy": "Retain"}}), "files": FILES})
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_FAILED"
    assert child_status(client, old) == "CREATE_COMPLETE"  # nothing replaced it yet
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"
    assert child_status(client, old) == "DELETE_COMPLETE"  # DeletionPolicy Delete


def test_a_failed_replacement_rolls_back_to_the_old_resource(client):
    # AWS: a failed update rolls back to the previous resource; the replacement is removed
    # (its DeletionPolicy, default Delete) and the kept one is not "replaced", so its
    # UpdateReplacePolicy does not apply.
    base = create(client, "rollrep", tmpl({"r": {"type": "a.yaml"}}))
    old = physical(client, base, "r")
    resp = client.put(base, json={"template": tmpl({"r": {
        "type": "fail.yaml", "update_replace_policy": "Snapshot"}}), "files": FILES,
        "disable_rollback": False})
    assert resp.status_code == 202
    st = show(client, base)
    assert st["stack_status"] == "ROLLBACK_COMPLETE", st["stack_status_reason"]
    assert physical(client, base, "r") == old
    assert child_status(client, old) == "CREATE_COMPLETE"
    events = client.get(f"{base}/resources/r/events").get_json()["events"]
    made = {e["physical_resource_id"] for e in events if e["physical_resource_id"]} - {old}
    assert made and all(child_status(client, m) == "DELETE_COMPLETE" for m in made)


def test_cfn_template_retain_except_on_create_and_update_replace_policy(client):
    cfn = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        "R": {"Type": "a.yaml", "DeletionPolicy": "RetainExceptOnCreate",
              "UpdateReplacePolicy": "Retain"}}}
    base = create(client, "cfnpol", cfn)
    old = physical(client, base, "R")
    cfn["Resources"]["R"]["Type"] = "b.yaml"
    assert client.put(base, json={"template": cfn, "files": FILES}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert child_status(client, old) == "CREATE_COMPLETE"
    new = physical(client, base, "R")
    assert client.delete(base).status_code == 204
    assert child_status(client, new) == "CREATE_COMPLETE"


@pytest.mark.parametrize("template, why", [
    (tmpl({"r": {"type": "OS::Heat::None", "deletion_policy": "RetainExceptOnCreate"}},
          "2021-04-16"), 'Invalid deletion policy "RetainExceptOnCreate"'),
    (tmpl({"r": {"type": "OS::Heat::None", "update_replace_policy": "Retain"}}, "2021-04-16"),
     '"update_replace_policy" is not a valid keyword inside a resource definition'),
    (tmpl({"r": {"type": "OS::Heat::None", "update_replace_policy": "Keep"}}),
     'Invalid update replace policy "Keep"'),
    (tmpl({"r": {"type": "OS::Heat::None", "deletion_policy": "Sometimes"}}),
     'Invalid deletion policy "Sometimes"'),
    ({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"R": {
        "Type": "OS::Heat::None", "UpdateReplacePolicy": "RetainExceptOnCreate"}}},
     'Invalid update replace policy "RetainExceptOnCreate"'),
])
def test_unknown_values_are_refused_and_nothing_is_created(client, template, why):
    resp = client.post("/v1/t1/stacks", json={"stack_name": "refused", "template": template})
    assert resp.status_code == 400, resp.get_json()
    assert why in resp.get_json()["error"]["message"]
    assert client.get("/v1/t1/stacks/refused").status_code == 404
