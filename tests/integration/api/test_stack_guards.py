"""Termination protection and stack policies through the Orchestration API (SQLite, tasks
in-process): ``termination_protection`` on create and ``PUT .../termination_protection``, a
protected stack (or its nested stack) refusing delete and abandon with 409; ``stack_policy`` on
create, ``GET|PUT .../policy``, an update denied before anything changes, and the override of
one update (``stack_policy_during_update``)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures.stacks import hot, knob

NESTED = hot({"leaf": {"type": "OS::Heat::None"}})
PARENT = hot({"child": {"type": "child.yaml"}, "top": {"type": "OS::Heat::None"}})
FILES = {"child.yaml": json.dumps(NESTED)}


def db_template(size: str, label: str) -> dict[str, Any]:
    """``db`` is replaced when ``size`` changes; ``app`` is modified in place by ``label``."""
    return hot({"db": knob(size, update_replace=True), "app": knob(label)})


DENY_DB_REPLACE = {"Statement": [
    {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
    {"Sid": "keep-db", "Effect": "Deny", "Action": ["Update:Replace", "Update:Delete"],
     "Principal": "*", "Resource": "LogicalResourceId/db"}]}


def create(client: Any, name: str, template: dict[str, Any], **body: Any) -> str:
    resp = client.post("/v1/t1/stacks", json={"stack_name": name, "template": template, **body})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.headers["Location"].split("localhost", 1)[1])


def fault(resp: Any, status: int, kind: str) -> str:
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    assert body["error"]["type"] == kind, body
    return str(body["error"]["message"])


def show(client: Any, base: str) -> dict[str, Any]:
    return dict(client.get(base).get_json()["stack"])


def protected(client: Any, base: str) -> bool:
    return bool(client.get(f"{base}/termination_protection").get_json()[
        "termination_protection"])


def physical_ids(client: Any, base: str) -> dict[str, str]:
    return {r["resource_name"]: r["physical_resource_id"]
            for r in client.get(f"{base}/resources").get_json()["resources"]}


def test_protected_stack_refuses_delete_until_unset(client):
    base = create(client, "prod", hot({"r": {"type": "OS::Heat::None"}}),
                  termination_protection=True)
    assert protected(client, base) is True
    msg = fault(client.delete(base), 409, "StackTerminationProtected")
    assert msg == "Stack [prod] cannot be deleted while TerminationProtection is enabled"
    from app import config
    previous = config.get()
    config.set_current(previous.replace(enable_stack_abandon=True))
    try:
        fault(client.delete(f"{base}/abandon"), 409, "StackTerminationProtected")
    finally:
        config.set_current(previous)
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"  # nothing changed

    resp = client.put(f"{base}/termination_protection", json={"termination_protection": False})
    assert resp.status_code == 200 and resp.get_json() == {"termination_protection": False}
    assert client.get(f"{base}/termination_protection").get_json() == {
        "termination_protection": False}
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"


def test_set_later_and_bad_values(client):
    base = create(client, "later", hot({"r": {"type": "OS::Heat::None"}}))
    assert protected(client, base) is False
    fault(client.put(f"{base}/termination_protection", json={"termination_protection": "maybe"}),
          400, "HTTPBadRequest")
    fault(client.put(f"{base}/termination_protection", json={}), 400, "HTTPBadRequest")
    fault(client.post("/v1/t1/stacks", json={
        "stack_name": "bad", "template": hot({}), "termination_protection": "yes"}),
        400, "HTTPBadRequest")
    assert client.get("/v1/t1/stacks/bad").status_code == 404  # nothing created
    assert client.put(f"{base}/termination_protection",
                      json={"termination_protection": True}).status_code == 200
    fault(client.delete(base), 409, "StackTerminationProtected")


def test_nested_stack_inherits_its_roots_protection(client):
    base = create(client, "root", PARENT, files=FILES, termination_protection=True)
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"
    child_id = physical_ids(client, base)["child"]
    child = client.get(f"/v1/t1/stacks/{child_id}").headers["Location"].split("localhost")[1]
    assert client.get(f"{child}/termination_protection").get_json() == {
        "termination_protection": True}
    msg = fault(client.delete(child), 409, "StackTerminationProtected")
    assert "cannot be deleted while TerminationProtection is enabled" in msg
    msg = fault(client.put(f"{child}/termination_protection",
                           json={"termination_protection": False}), 400, "NotSupported")
    assert "root stack's [root]" in msg
    # an update of the protected root that removes the nested stack deletes it
    resp = client.put(base, json={"template": hot({"top": {"type": "OS::Heat::None"}})})
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert show(client, child)["stack_status"] == "DELETE_COMPLETE"
    # unset on the root: the parent's delete goes ahead
    client.put(f"{base}/termination_protection", json={"termination_protection": False})
    assert client.delete(base).status_code == 204
    assert show(client, base)["stack_status"] == "DELETE_COMPLETE"


def test_policy_denies_replace_and_allows_modify(client):
    base = create(client, "guarded", db_template("10", "a"), stack_policy=DENY_DB_REPLACE)
    before = physical_ids(client, base)
    assert client.get(f"{base}/policy").get_json() == {"stack_policy": DENY_DB_REPLACE}

    msg = fault(client.put(base, json={"template": db_template("20", "b")}), 409,
                "UpdateDeniedByStackPolicy")
    assert "Update:Replace of resource [db] (OS::Heat::TestResource)" in msg
    assert 'Statement[1] (Sid "keep-db") denies it' in msg
    st = show(client, base)
    assert st["stack_status"] == "CREATE_COMPLETE" and physical_ids(client, base) == before

    msg = fault(client.put(base, json={"template": hot({"app": knob("a")})}), 409,
                "UpdateDeniedByStackPolicy")
    assert "Update:Delete of resource [db]" in msg

    resp = client.put(base, json={"template": db_template("10", "b")})  # app: in place
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert physical_ids(client, base) == before


def test_override_for_one_update_then_the_policy_applies_again(client):
    base = create(client, "override", db_template("10", "a"), stack_policy=DENY_DB_REPLACE)
    before = physical_ids(client, base)
    allow_all = {"Statement": [{"Effect": "Allow", "Action": "Update:*", "Principal": "*",
                                "Resource": "*"}]}
    resp = client.put(base, json={"template": db_template("20", "a"),
                                  "stack_policy_during_update": json.dumps(allow_all)})
    assert resp.status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert physical_ids(client, base)["db"] != before["db"]
    fault(client.put(base, json={"template": db_template("30", "a")}), 409,
          "UpdateDeniedByStackPolicy")


def test_default_deny_condition_and_set_policy(client):
    base = create(client, "typed", db_template("10", "a"))
    only_values = {"Statement": [{"Effect": "Allow", "Action": "Update:Modify", "Principal": "*",
                                  "Resource": "*", "Condition": {"StringLike": {
                                      "ResourceType": ["OS::Heat::Value*"]}}}]}
    resp = client.put(f"{base}/policy", json={"stack_policy": only_values})
    assert resp.status_code == 200 and resp.get_json() == {"stack_policy": only_values}
    msg = fault(client.put(base, json={"template": db_template("10", "b")}), 409,
                "UpdateDeniedByStackPolicy")
    assert "Update:Modify of resource [app]" in msg and "no statement allows it" in msg


@pytest.mark.parametrize("policy, why", [
    ("{not json", "not JSON"),
    ({"Statement": [{"Effect": "Maybe", "Action": "Update:*", "Resource": "*"}]}, "Effect"),
    ({"Statement": [{"Effect": "Allow", "Action": "Update:Rename", "Resource": "*"}]},
     "Update:Rename"),
    ({"Statement": [{"Effect": "Allow", "Action": "Update:*", "Resource": "db"}]},
     "LogicalResourceId/<name>"),
    ({"Statement": [{"Effect": "Allow", "Action": "Update:*", "Resource": "*",
                     "Condition": {"NumericEquals": {"ResourceType": "x"}}}]}, "NumericEquals"),
    ({"Statements": []}, "Statement list"),
])
def test_malformed_policies_are_400_and_change_nothing(client, policy, why):
    base = create(client, "malformed", db_template("1", "a"),
                  stack_policy=DENY_DB_REPLACE)
    msg = fault(client.put(f"{base}/policy", json={"stack_policy": policy}), 400,
                "InvalidStackPolicy")
    assert why in msg
    assert client.get(f"{base}/policy").get_json() == {"stack_policy": DENY_DB_REPLACE}
    fault(client.put(base, json={"template": db_template("2", "a"),
                                 "stack_policy_during_update": policy}),
          400, "InvalidStackPolicy")
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"
    resp = client.post("/v1/t1/stacks", json={"stack_name": "never", "template": hot({}),
                                              "stack_policy": policy})
    fault(resp, 400, "InvalidStackPolicy")
    assert client.get("/v1/t1/stacks/never").status_code == 404


def test_a_change_set_the_policy_denies_is_refused_at_execution(client):
    """A change set is planned whatever the policy says (AWS shows it), but executing it is an
    update like any other: refused before anything changes, and the change set stays
    available."""
    base = create(client, "planned", db_template("10", "a"), stack_policy=DENY_DB_REPLACE)
    before = physical_ids(client, base)
    resp = client.post(f"{base}/change_sets", json={"name": "grow",
                                                    "template": db_template("20", "a")})
    assert resp.status_code == 201, resp.get_json()
    msg = fault(client.post(f"{base}/change_sets/grow/execute"), 409,
                "UpdateDeniedByStackPolicy")
    assert "Update:Replace of resource [db]" in msg
    assert show(client, base)["stack_status"] == "CREATE_COMPLETE"
    assert physical_ids(client, base) == before
    cs = client.get(f"{base}/change_sets/grow").get_json()["change_set"]
    assert cs["execution_status"] == "AVAILABLE"


SIZED = {"heat_template_version": "2018-08-31",
         "parameters": {"size": {"type": "string"}},
         "resources": {"db": knob({"get_param": "size"}, update_replace=True)}}


def sized_parent(size: str, label: str = "a") -> dict[str, Any]:
    """``child`` holds a nested stack whose ``db`` is replaced when ``size`` changes."""
    return hot({"child": {"type": "sized.yaml", "properties": {"size": size}},
                "app": knob(label)})


SIZED_FILES = {"sized.yaml": json.dumps(SIZED)}


def nested_of(client: Any, base: str, holder: str) -> str:
    child_id = physical_ids(client, base)[holder]
    return str(client.get(f"/v1/t1/stacks/{child_id}").headers["Location"].split("localhost")[1])


def test_a_parents_policy_governs_its_nested_stack_resource_not_the_nested_resources(client):
    """AWS: a stack policy applies to the resources of its own stack; a nested stack is one
    resource of its parent (Update:Modify when its template or properties change,
    Update:Replace / Update:Delete), and the parent's statements do not reach the nested
    stack's resources by their logical ids."""
    deny_nested_db = {"Statement": [
        {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "Update:*", "Principal": "*",
         "Resource": "LogicalResourceId/db"}]}
    base = create(client, "outer", sized_parent("10"), files=SIZED_FILES,
                  stack_policy=deny_nested_db)
    inner = nested_of(client, base, "child")
    old_db = physical_ids(client, inner)["db"]
    assert client.put(base, json={"template": sized_parent("20"),
                                  "files": SIZED_FILES}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
    assert physical_ids(client, inner)["db"] != old_db   # the parent's policy did not reach it

    keep_child = {"Statement": [
        {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
        {"Sid": "keep-child", "Effect": "Deny", "Action": "Update:Modify", "Principal": "*",
         "Resource": "LogicalResourceId/child"}]}
    client.put(f"{base}/policy", json={"stack_policy": keep_child})
    before = physical_ids(client, inner)
    msg = fault(client.put(base, json={"template": sized_parent("30"), "files": SIZED_FILES}),
                409, "UpdateDeniedByStackPolicy")
    assert "Update:Modify of resource [child] (sized.yaml)" in msg
    assert 'Statement[1] (Sid "keep-child") denies it' in msg
    # the nested template changing (the files map) modifies the nested stack resource too
    grown = json.loads(SIZED_FILES["sized.yaml"])
    grown["resources"]["extra"] = {"type": "OS::Heat::None"}
    msg = fault(client.put(base, json={"template": sized_parent("20"),
                                       "files": {"sized.yaml": json.dumps(grown)}}),
                409, "UpdateDeniedByStackPolicy")
    assert "Update:Modify of resource [child]" in msg
    assert physical_ids(client, inner) == before
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"


def test_a_nested_stacks_own_policy_governs_the_update_its_parent_makes(client):
    """AWS: the nested stack's own policy applies when the parent's update updates it: a
    change it denies fails the nested stack resource's update (UpdateDeniedByStackPolicy),
    and nothing of the nested stack changes."""
    base = create(client, "parentp", sized_parent("10"), files=SIZED_FILES)
    inner = nested_of(client, base, "child")
    keep_db = {"Statement": [
        {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
        {"Sid": "keep-db", "Effect": "Deny", "Action": "Update:Replace", "Principal": "*",
         "Resource": "LogicalResourceId/db"}]}
    assert client.put(f"{inner}/policy", json={"stack_policy": keep_db}).status_code == 200
    before = physical_ids(client, inner)
    assert client.put(base, json={"template": sized_parent("20"),
                                  "files": SIZED_FILES}).status_code == 202
    st = show(client, base)
    assert st["stack_status"] == "UPDATE_FAILED"
    assert "Update:Replace of resource [db]" in st["stack_status_reason"]
    assert physical_ids(client, inner) == before
    assert show(client, inner)["parameters"]["size"] == "10"
    # a change the nested stack's policy allows goes through
    assert client.put(base, json={"template": sized_parent("10", "b"),
                                  "files": SIZED_FILES}).status_code == 202
    assert show(client, base)["stack_status"] == "UPDATE_COMPLETE"
