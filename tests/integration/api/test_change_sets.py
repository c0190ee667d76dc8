"""``/v1/{tenant}/stacks/{name}/{id}/change_sets`` over the real services (SQLite, tasks run
in-process): a change set shows each resource's change with its reason and property values,
writes nothing until executed, executes exactly its plan, and refuses a stale or spent one."""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from tests.integration.api.test_stack_update import BASE, TR, Api, fault

NEW = copy.deepcopy(BASE)
NEW["resources"]["rep"] = TR("y", update_replace=True)
del NEW["resources"]["gone"]
NEW["resources"]["extra"] = {"type": "OS::Heat::RandomString", "properties": {"length": 5}}


@pytest.fixture()
def api(client: Any) -> Api:
    return Api(client)


def make(api: Api, base: str, name: str, **body: Any) -> Any:
    return api.c.post(f"{base}/change_sets", json={"name": name, **body})


def by_name(change_set: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["logical_resource_id"]: c for c in change_set["changes"]}


def test_change_set_shows_changes_and_executes_exactly_its_plan(api):
    base = api.create("cs")
    before, resources = api.stack(base), api.resources(base)
    resp = make(api, base, "first", description="rep to y", template=NEW,
                parameters={"v": "second"})
    assert resp.status_code == 201, resp.get_json()
    cs = resp.get_json()["change_set"]
    assert (cs["name"], cs["type"], cs["status"], cs["execution_status"], cs["description"]) == \
        ("first", "UPDATE", "CREATE_COMPLETE", "AVAILABLE", "rep to y")
    changes = by_name(cs)
    assert {n: (c["action"], c["replacement"]) for n, c in changes.items()} == {
        "extra": ("Add", None), "a": ("Modify", "False"), "rep": ("Modify", "True"),
        "gone": ("Remove", None)}
    # AWS ResourceChangeDetail: a changed snippet is a DirectModification (no entity); a
    # snippet left as it was changes through what it references (here the parameter v)
    assert changes["rep"]["details"] == [{"name": "value", "requires_recreation": "Always",
                                          "before": "x", "after": "y", "evaluation": "Static",
                                          "change_source": "DirectModification",
                                          "causing_entity": None}]
    assert changes["rep"]["scope"] == ["Properties"]
    assert changes["rep"]["physical_resource_id"] == resources["rep"]["physical_resource_id"]
    assert changes["a"]["details"] == [{"name": "value", "requires_recreation": "Never",
                                        "before": "first", "after": "second",
                                        "evaluation": "Static",
                                        "change_source": "ParameterReference",
                                        "causing_entity": "v"}]
    # nothing written but the change set
    assert api.stack(base) == before and api.resources(base) == resources
    listed = api.c.get(f"{base}/change_sets").get_json()["change_sets"]
    assert [(c["name"], c["id"]) for c in listed] == [("first", cs["id"])]
    assert api.c.get(f"{base}/change_sets/{cs['id']}").get_json()["change_set"] == cs

    resp = api.c.post(f"{base}/change_sets/first/execute")
    assert resp.status_code == 202
    after = api.resources(base)
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_COMPLETE"
    assert st["parameters"]["v"] == "second"
    assert set(after) == {"a", "rep", "extra"}
    assert after["a"]["physical_resource_id"] == resources["a"]["physical_resource_id"]
    assert after["rep"]["physical_resource_id"] != resources["rep"]["physical_resource_id"]
    shown = api.c.get(f"{base}/change_sets/first").get_json()["change_set"]
    assert shown["execution_status"] == "EXECUTE_COMPLETE"
    # executing twice is refused and changes nothing
    again = api.c.post(f"{base}/change_sets/first/execute")
    assert "cannot be executed" in fault(again, 400, "InvalidChangeSetStatus")
    assert api.stack(base) == st


def test_executing_a_change_set_deletes_the_stacks_other_change_sets(api):
    """AWS (ExecuteChangeSet; user guide, "Execute a change set"): after a change set is
    executed, the stack's other change sets are deleted, as no longer valid."""
    base = api.create("others")
    assert make(api, base, "run", template=NEW).status_code == 201
    assert make(api, base, "other", existing=True, parameters={"v": "x"}).status_code == 201
    assert api.c.post(f"{base}/change_sets/run/execute").status_code == 202
    listed = api.c.get(f"{base}/change_sets").get_json()["change_sets"]
    assert [(c["name"], c["execution_status"]) for c in listed] == [("run", "EXECUTE_COMPLETE")]
    fault(api.c.get(f"{base}/change_sets/other"), 404, "ChangeSetNotFound")
    fault(api.c.post(f"{base}/change_sets/other/execute"), 404, "ChangeSetNotFound")


def test_stale_change_set_is_refused(api):
    base = api.create("stale")
    assert make(api, base, "later", template=NEW).status_code == 201
    assert api.c.put(base, json={"template": BASE, "parameters": {"v": "other"}}) \
        .status_code == 202
    st, resources = api.stack(base), api.resources(base)
    shown = api.c.get(f"{base}/change_sets/later").get_json()["change_set"]
    assert shown["execution_status"] == "OBSOLETE"
    resp = api.c.post(f"{base}/change_sets/later/execute")
    assert "OBSOLETE" in fault(resp, 400, "InvalidChangeSetStatus")
    assert api.stack(base) == st and api.resources(base) == resources


def test_existing_flag_patches_and_no_change_is_failed(api):
    base = api.create("patch")
    cs = make(api, base, "p", existing=True, parameters={"v": "third"}).get_json()["change_set"]
    assert [(c["logical_resource_id"], c["action"]) for c in cs["changes"]] == [("a", "Modify")]
    same = make(api, base, "same", existing=True).get_json()["change_set"]
    assert (same["status"], same["execution_status"], same["changes"]) == \
        ("FAILED", "UNAVAILABLE", [])
    assert "didn't contain changes" in same["status_reason"]
    fault(api.c.post(f"{base}/change_sets/same/execute"), 400, "InvalidChangeSetStatus")


def test_bad_input_is_a_clear_4xx_and_changes_nothing(api):
    base = api.create("bad")
    st = api.stack(base)
    assert "could not be found" not in fault(
        api.c.get(f"{base}/change_sets/nope"), 404, "ChangeSetNotFound")
    fault(api.c.post(f"{base}/change_sets/nope/execute"), 404, "ChangeSetNotFound")
    fault(api.c.delete(f"{base}/change_sets/nope"), 404, "ChangeSetNotFound")
    fault(make(api, base, "1bad", template=NEW), 400, "HTTPBadRequest")
    fault(make(api, base, None, template=NEW), 400, "HTTPBadRequest")
    fault(make(api, base, "x"), 400, "HTTPBadRequest")  # a PUT-style body needs a template
    assert fault(make(api, base, "m", existing="maybe", template=NEW), 400, "HTTPBadRequest") \
        == 'Unrecognized value "maybe" for "existing", acceptable values are: true, false.'
    # executed under the stack's own policy (as ExecuteChangeSet): no temporary one
    assert "stack's own policy" in fault(make(
        api, base, "p", template=NEW, stack_policy_during_update={"Statement": []}),
        400, "HTTPBadRequest")
    assert make(api, base, "dup", template=NEW).status_code == 201
    fault(make(api, base, "dup", template=NEW), 409, "AlreadyExistsException")
    assert api.c.delete(f"{base}/change_sets/dup").status_code == 204
    fault(api.c.get(f"{base}/change_sets/dup"), 404, "ChangeSetNotFound")
    assert api.c.get(f"{base}/change_sets").get_json() == {"change_sets": []}
    assert api.stack(base) == st


@pytest.mark.parametrize("bad", [{"parameters": ["a"]}, {"parameters": "x"},
                                 {"parameters": {"val": "h"}, "environment_files": 5},
                                 {"files": []}])
def test_a_malformed_body_is_refused_as_the_stack_routes_refuse_it(api, bad):
    """The change-set bodies are the stack PUT/PATCH and POST bodies (Heat's 400 "Invalid
    request body: <field>: <problem>"), with a name and a description."""
    base = api.create("malformed")
    st = api.stack(base)
    patched = fault(api.c.patch(base, json=bad), 400, "HTTPBadRequest")
    assert fault(make(api, base, "x", existing=True, **bad), 400, "HTTPBadRequest") == patched
    created = fault(api.c.post("/v1/t1/stacks", json={"stack_name": "s", "template": BASE,
                                                      **bad}), 400, "HTTPBadRequest")
    new = api.c.post("/v1/t1/change_sets", json={"name": "n1", "stack_name": "s",
                                                 "template": BASE, **bad})
    assert fault(new, 400, "HTTPBadRequest") == created
    assert created.startswith("Invalid request body: ")
    assert api.stack(base) == st
    assert api.c.get(f"{base}/change_sets").get_json() == {"change_sets": []}
    assert api.c.get("/v1/t1/stacks/s").status_code == 404


def test_name_and_description_follow_aws_constraints(api):
    """AWS's CreateChangeSet: ChangeSetName matches [a-zA-Z][-a-zA-Z0-9]* (at most 128),
    Description at most 1024 characters; beyond, a 400 with nothing kept."""
    base = api.create("limits")
    for name in ("a" * 129, "caf\u00e9", "under_score", "-lead"):
        fault(make(api, base, name, template=NEW), 400, "HTTPBadRequest")
    msg = fault(make(api, base, "long", template=NEW, description="d" * 1025), 400,
                "HTTPBadRequest")
    assert "Member must have length less than or equal to 1024" in msg
    assert fault(make(api, base, "typed", template=NEW, description=5), 400,
                 "HTTPBadRequest") == "Invalid request body: description: Not a valid string."
    assert api.c.get(f"{base}/change_sets").get_json() == {"change_sets": []}
    made = make(api, base, "A" + "-" * 127, template=NEW, description="d" * 1024)
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["change_set"]["description"] == "d" * 1024


def test_replacement_forced_by_a_value_known_only_later_is_conditional(api):
    template = copy.deepcopy(BASE)
    template["resources"]["salted"] = {"type": "OS::Heat::RandomString", "properties": {
        "salt": {"get_attr": ["rep", "output"]}}}
    base = api.create("cond", template)
    changed = copy.deepcopy(template)
    changed["resources"]["rep"] = TR("z", update_replace=True)
    cs = make(api, base, "c", template=changed).get_json()["change_set"]
    salted = by_name(cs)["salted"]
    assert (salted["action"], salted["replacement"]) == ("Modify", "Conditional")
    assert salted["details"] == [{"name": "salt", "requires_recreation": "Conditionally",
                                  "before": "x", "after": "{{changeSet:KNOWN_AFTER_APPLY}}",
                                  "evaluation": "Dynamic", "change_source": "ResourceAttribute",
                                  "causing_entity": "rep.output"}]


CHILD = {"heat_template_version": "2018-08-31",
         "parameters": {"v": {"type": "string"}},
         "resources": {"inner": TR({"get_param": "v"}),
                       "still": {"type": "OS::Heat::None"}}}


def test_nested_stack_resources_are_listed_with_their_parent(api):
    template = {"heat_template_version": "2018-08-31",
                "parameters": {"v": {"type": "string", "default": "one"}},
                "resources": {"child": {"type": "child.yaml",
                                        "properties": {"v": {"get_param": "v"}}}}}
    files = {"child.yaml": json.dumps(CHILD)}
    base = api.create("nest", template, files=files)
    cs = make(api, base, "n", existing=True, parameters={"v": "two"}).get_json()["change_set"]
    entries = {(c["parent_resource"], c["logical_resource_id"]): c for c in cs["changes"]}
    assert set(entries) == {(None, "child"), ("child", "inner")}
    inner = entries[("child", "inner")]
    assert (inner["action"], inner["replacement"]) == ("Modify", "False")
    assert inner["details"][0]["before"] == "one" and inner["details"][0]["after"] == "two"
    assert api.c.post(f"{base}/change_sets/n/execute").status_code == 202
    assert api.stack(base)["stack_status"] == "UPDATE_COMPLETE"


def test_create_change_set_plans_a_new_stack_kept_in_review(api):
    resp = api.c.post("/v1/t1/change_sets", json={"stack_name": "planned", "name": "first",
                                                  "template": BASE})
    assert resp.status_code == 201, resp.get_json()
    cs = resp.get_json()["change_set"]
    assert cs["type"] == "CREATE" and cs["stack_name"] == "planned"
    assert sorted((c["logical_resource_id"], c["action"]) for c in cs["changes"]) == [
        ("a", "Add"), ("gone", "Add"), ("rep", "Add")]
    base = f"/v1/t1/stacks/planned/{cs['stack_id']}"
    assert api.stack(base)["stack_status"] == "REVIEW_IN_PROGRESS"
    assert api.resources(base) == {}
    fault(api.c.put(base, json={"template": BASE}), 400, "NotSupported")
    assert api.c.post(f"{base}/change_sets/first/execute").status_code == 202
    assert api.stack(base)["stack_status"] == "CREATE_COMPLETE"
    assert set(api.resources(base)) == {"a", "rep", "gone"}
    fault(api.c.post("/v1/t1/change_sets", json={"stack_name": "planned", "name": "again",
                                                 "template": BASE}), 409, "StackExists")


def test_a_review_stack_takes_another_create_change_set(api):
    """AWS allows another CREATE change set on a REVIEW_IN_PROGRESS stack (here after its
    only one was deleted); the guards stay the first request's."""
    first = api.c.post("/v1/t1/change_sets", json={"stack_name": "rev", "name": "one",
                                                   "template": BASE}).get_json()["change_set"]
    base = f"/v1/t1/stacks/rev/{first['stack_id']}"
    assert api.c.delete(f"{base}/change_sets/one").status_code == 204
    resp = api.c.post("/v1/t1/change_sets", json={"stack_name": "rev", "name": "two",
                                                  "template": BASE,
                                                  "parameters": {"v": "planned"}})
    assert resp.status_code == 201, resp.get_json()
    cs = resp.get_json()["change_set"]
    assert (cs["type"], cs["stack_id"], cs["parameters"]) == ("CREATE", first["stack_id"],
                                                              {"v": "planned"})
    assert sorted(c["action"] for c in cs["changes"]) == ["Add", "Add", "Add"]
    fault(api.c.post("/v1/t1/change_sets", json={"stack_name": "rev", "name": "three",
                                                 "template": BASE,
                                                 "termination_protection": True}),
          400, "HTTPBadRequest")
    assert api.c.post(f"{base}/change_sets/two/execute").status_code == 202
    st = api.stack(base)
    assert (st["stack_status"], st["parameters"]["v"]) == ("CREATE_COMPLETE", "planned")


def test_no_change_set_is_planned_while_the_stack_is_in_progress(api):
    """AWS refuses CreateChangeSet on a stack whose operation is in progress: its plan would be
    made against a state still changing. Nothing is kept."""
    from sqlalchemy import update

    from app.models import Stack, session
    base = api.create("busy")
    stack_id = base.rsplit("/", 1)[1]
    with session() as s:  # an update in flight, as its traversal leaves the row
        s.execute(update(Stack).where(Stack.id == stack_id).values(action="UPDATE",
                                                                   status="IN_PROGRESS"))
    msg = fault(make(api, base, "early", template=NEW), 400, "InvalidChangeSetStatus")
    assert "UPDATE_IN_PROGRESS" in msg
    assert api.c.get(f"{base}/change_sets").get_json()["change_sets"] == []
