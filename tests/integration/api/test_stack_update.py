"""``PUT`` / ``PATCH /v1/{tenant}/stacks/{name}/{id}`` over the real services (SQLite, tasks run
in-process: an update has finished when the request returns). Statuses, bodies and semantics are
heat-api's (``StackController.update`` / ``update_patch``) and Heat's convergence update."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.fixtures.engine import Dropper
from tests.fixtures.stacks import hot, knob
from tests.fixtures.wiring import use_dispatcher, use_inline

HOT = "2018-08-31"
ACCEPTED = {"message": "The request is accepted for processing.<br /><br />\n\n\n",
            "code": "202 Accepted", "title": "Accepted"}


T, TR = hot, knob


BASE = T({"a": TR({"get_param": "v"}), "rep": TR("x", update_replace=True),
          "gone": {"type": "OS::Heat::None"}},
         {"a": {"value": {"get_attr": ["a", "output"]}}, "rep": {"value": {"get_resource": "rep"}}},
         {"v": {"type": "string", "default": "first"}, "w": {"type": "string", "default": "dw"}})


class Api:
    """The root ``client`` with a created stack's base path and helpers."""

    def __init__(self, client: Any) -> None:
        self.c = client

    def create(self, name: str, template: dict[str, Any] = BASE, **body: Any) -> str:
        resp = self.c.post("/v1/t1/stacks", json={"stack_name": name, "template": template,
                                                  **body})
        assert resp.status_code == 201, resp.get_json()
        return str(resp.headers["Location"].split("localhost", 1)[1])

    def stack(self, base: str) -> dict[str, Any]:
        return dict(self.c.get(base).get_json()["stack"])

    def outputs(self, base: str) -> dict[str, Any]:
        return {o["output_key"]: o.get("output_value") for o in self.stack(base)["outputs"]}

    def resources(self, base: str) -> dict[str, dict[str, Any]]:
        return {r["resource_name"]: r for r in self.c.get(f"{base}/resources")
                .get_json()["resources"]}


@pytest.fixture()
def api(client: Any) -> Api:
    return Api(client)


def fault(resp: Any, status: int, kind: str) -> str:
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    assert body["code"] == status and body["error"]["type"] == kind, body
    return str(body["error"]["message"])


def test_put_updates_in_place_and_answers_heats_202(api):
    base = api.create("inplace")
    before = api.resources(base)
    resp = api.c.put(base, json={"template": BASE, "parameters": {"v": "second"}})
    assert resp.status_code == 202 and resp.status == "202 Accepted"
    assert resp.get_json() == ACCEPTED and resp.headers["Content-Type"] == "application/json"
    assert "Location" not in resp.headers
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    assert st["stack_status_reason"] == "Stack UPDATE completed successfully"
    assert st["parameters"]["v"] == "second" and api.outputs(base)["a"] == "second"
    after = api.resources(base)
    assert after["a"]["physical_resource_id"] == before["a"]["physical_resource_id"]
    assert after["a"]["resource_status"] == "UPDATE_COMPLETE"
    assert after["rep"]["resource_status"] == "CREATE_COMPLETE"  # unchanged: untouched
    events = api.c.get(f"{base}/resources/a/events?sort_dir=asc").get_json()["events"]
    assert [e["resource_status"] for e in events][-2:] == ["UPDATE_IN_PROGRESS",
                                                           "UPDATE_COMPLETE"]
    stack_events = [e["resource_status"] for e in api.c.get(f"{base}/events?sort_dir=asc").get_json()["events"]
                    if e["resource_name"] == "inplace"]
    assert stack_events[-2:] == ["UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"]


def test_update_replace_gives_a_new_physical_resource(api):
    base = api.create("replace")
    old = api.resources(base)["rep"]["physical_resource_id"]
    new_t = copy.deepcopy(BASE)
    new_t["resources"]["rep"] = TR("y", update_replace=True)
    assert api.c.put(base, json={"template": new_t}).status_code == 202
    rep = api.resources(base)["rep"]
    assert rep["physical_resource_id"] not in ("", old)
    assert api.outputs(base)["rep"] == rep["physical_resource_id"]
    assert api.stack(base)["stack_status"] == "UPDATE_COMPLETE"
    old_events = [e["resource_status"] for e in api.c.get(f"{base}/events?sort_dir=asc").get_json()["events"]
                  if e["physical_resource_id"] == old and e["resource_name"] == "rep"]
    assert old_events[-2:] == ["DELETE_IN_PROGRESS", "DELETE_COMPLETE"]


def test_resources_are_added_and_removed(api):
    base = api.create("addremove")
    new_t = copy.deepcopy(BASE)
    del new_t["resources"]["gone"]
    new_t["resources"]["extra"] = {"type": "OS::Heat::RandomString", "properties": {"length": 5}}
    new_t["outputs"]["extra"] = {"value": {"get_attr": ["extra", "value"]}}
    assert api.c.put(base, json={"template": new_t}).status_code == 202
    res = api.resources(base)
    assert set(res) == {"a", "rep", "extra"}
    assert res["extra"]["resource_status"] == "CREATE_COMPLETE"
    assert len(api.outputs(base)["extra"]) == 5
    assert api.c.get(f"{base}/resources/gone").status_code == 404


def test_patch_merges_parameters_keeps_template_and_stack_settings(api):
    base = api.create("patch", parameters={"w": "kept"}, timeout_mins=7,
                      disable_rollback=False, tags="t1,t2")
    template = api.c.get(f"{base}/template").get_json()
    resp = api.c.patch(base, json={"parameters": {"v": "patched"}})
    assert resp.status_code == 202 and resp.get_json() == ACCEPTED
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    assert api.outputs(base)["a"] == "patched"
    assert (st["parameters"]["v"], st["parameters"]["w"]) == ("patched", "kept")
    assert (st["timeout_mins"], st["disable_rollback"], st["tags"]) == (7, False, ["t1", "t2"])
    assert api.c.get(f"{base}/template").get_json() == template
    # heatclient's --existing without -t sends "template": null
    assert api.c.patch(base, json={"template": None, "clear_parameters": ["v"],
                                   "environment": {}, "files": {}}).status_code == 202
    st = api.stack(base)
    assert api.outputs(base)["a"] == "first" and st["parameters"]["w"] == "kept"
    env = api.c.get(f"{base}/environment").get_json()
    assert env["parameters"] == {"w": "kept"}


def test_put_replaces_parameters_and_tags_but_keeps_timeout_and_rollback(api):
    base = api.create("put", parameters={"w": "given"}, timeout_mins=7, tags="t1")
    assert api.c.put(base, json={"template": BASE, "parameters": {"v": "p"}}).status_code == 202
    st = api.stack(base)
    assert (st["parameters"]["v"], st["parameters"]["w"]) == ("p", "dw")  # w: not kept
    assert (st["timeout_mins"], st["disable_rollback"], st["tags"]) == (7, True, [])
    assert api.c.put(base, json={"template": BASE, "timeout_mins": 9, "tags": "x,y",
                                 "disable_rollback": "false"}).status_code == 202
    st = api.stack(base)
    assert (st["timeout_mins"], st["disable_rollback"], st["tags"]) == (9, False, ["x", "y"])


def test_a_bad_update_is_400_and_changes_nothing(api):
    base = api.create("bad")
    template = api.c.get(f"{base}/template").get_json()
    n_events = len(api.c.get(f"{base}/events?sort_dir=asc").get_json()["events"])
    bad = T({"a": {"type": "OS::Nope"}})
    assert "OS::Nope" in fault(api.c.put(base, json={"template": bad}), 400,
                               "StackValidationFailed")
    fault(api.c.put(base, json={"template": BASE, "parameters": {"undeclared": 1}}), 400,
          "UnknownUserParameter")
    assert fault(api.c.put(base, json={"template": "{nope: [", "files": {}}), 400,
                 "HTTPBadRequest").startswith("Template not in valid format")
    assert fault(api.c.put(base, json={"parameters": {}}), 400,
                 "HTTPBadRequest") == "No template specified"
    assert "template_url" in fault(api.c.put(base, json={"template_url": "http://x/t.yaml"}),
                                   400, "HTTPBadRequest")
    st = api.stack(base)
    assert st["stack_status"] == "CREATE_COMPLETE"
    assert api.c.get(f"{base}/template").get_json() == template
    assert len(api.c.get(f"{base}/events?sort_dir=asc").get_json()["events"]) == n_events


@pytest.mark.parametrize(("body", "message"), [
    ({"disable_rollback": "maybe"}, 'Unrecognized value "maybe" for "disable_rollback"'),
    ({"disable_rollback": None}, 'Unrecognized value "None" for "disable_rollback"'),
    ({"timeout_mins": "soon"}, "Only integer is acceptable by 'timeout_mins'."),
    ({"timeout_mins": -1}, "Value '-1' is invalid for 'timeout_mins'"),
    ({"converge": "perhaps"}, 'Unrecognized value "perhaps" for "converge"'),
    ({"existing": "maybe"}, 'Unrecognized value "maybe" for "existing", acceptable values '
                            "are: true, false."),
    ({"existing": 1}, 'Unrecognized value "1" for "existing"'),
    ({"tags": {"a": 1}}, "tags must be"),
    ({"clear_parameters": "v"}, "clear_parameters must be a list"),
    ({"timeout_mins": 2**63}, f"Value '{2**63}' is invalid for 'timeout_mins'"),
    ({"environment": "parameters: [\n"}, "Environment not in valid format: while parsing"),
    ({"environment": "{\"a\": "}, "Environment not in valid format: while parsing"),
    ({"environment": "- a\n"}, "Environment not in valid format: The environment is not a "
                               "valid YAML mapping data type."),
    ({"environment": {"paramters": {}}}, 'Environment not in valid format: environment has '
                                         'wrong section "paramters"'),
])
def test_argument_errors_are_heats_400(api, body, message):
    base = api.create("args")
    got = fault(api.c.put(base, json={"template": BASE, **body}), 400, "HTTPBadRequest")
    assert got.startswith(message), got
    assert api.stack(base)["stack_status"] == "CREATE_COMPLETE"


def test_existing_is_read_as_heat_reads_a_boolean(api):
    """``existing: "true"`` (any case) on a PUT keeps what the body does not give (PATCH
    semantics); a PATCH is existing whatever its body says, as heat-api sets it."""
    base = api.create("existing", parameters={"w": "kept"})
    assert api.c.put(base, json={"template": BASE, "existing": "TRUE",
                                 "parameters": {"v": "second"}}).status_code == 202
    assert api.stack(base)["parameters"]["w"] == "kept"
    assert api.c.put(base, json={"template": BASE, "existing": "false",
                                 "parameters": {"v": "third"}}).status_code == 202
    assert api.stack(base)["parameters"]["w"] == "dw"
    assert api.c.patch(base, json={"existing": "maybe",
                                   "parameters": {"w": "patched"}}).status_code == 202
    assert api.stack(base)["parameters"]["v"] == "third"


def test_converge_is_accepted_and_ignored(api):
    base = api.create("converge")
    assert api.c.put(base, json={"template": BASE, "converge": True}).status_code == 202
    assert api.stack(base)["stack_status"] == "UPDATE_COMPLETE"


def test_an_immutable_property_change_fails_with_heats_not_supported(api, frozen_type):
    base = api.create("frozen", T({"f": {"type": "Test::Frozen",
                                         "properties": {"size": 1, "label": "a"}}}))
    t2 = T({"f": {"type": "Test::Frozen", "properties": {"size": 2, "label": "b"}}})
    assert api.c.put(base, json={"template": t2}).status_code == 202
    st = api.stack(base)
    reason = "NotSupported: resources.f: Update to properties size of f (Test::Frozen) is " \
             "not supported."
    assert st["stack_status"] == "UPDATE_FAILED"
    assert st["stack_status_reason"] == f"Resource UPDATE failed: {reason}"
    f = api.resources(base)["f"]
    assert (f["resource_status"], f["resource_status_reason"]) == ("UPDATE_FAILED", reason)


def test_a_failed_update_rolls_back_when_rollback_is_enabled(api):
    base = api.create("rollback", disable_rollback=False)
    broken = copy.deepcopy(BASE)
    broken["resources"]["a"] = TR("second", fail=True)
    broken["resources"]["extra"] = {"type": "OS::Heat::None"}
    assert api.c.put(base, json={"template": broken}).status_code == 202
    st = api.stack(base)
    assert st["stack_status"] == "ROLLBACK_COMPLETE", st["stack_status_reason"]
    assert api.outputs(base)["a"] == "first"
    assert set(api.resources(base)) == {"a", "rep", "gone"}
    statuses = [e["resource_status"] for e in api.c.get(f"{base}/events?sort_dir=asc").get_json()["events"]
                if e["resource_name"] == "rollback"]
    assert "UPDATE_FAILED" in statuses and statuses[-1] == "ROLLBACK_COMPLETE"
    assert api.c.get(f"{base}/template").get_json() == BASE


def test_a_failed_update_stays_failed_without_rollback(api):
    base = api.create("norollback")
    broken = copy.deepcopy(BASE)
    broken["resources"]["a"] = TR("second", fail=True)
    api.c.put(base, json={"template": broken})
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_FAILED"
    assert "Test Resource failed a" in st["stack_status_reason"]


def test_update_while_in_progress_supersedes_and_of_a_deleted_or_unknown_stack_404(api):
    # Heat's convergence accepts an update of a stack whose create or update is in progress:
    # the newest traversal wins (Heat's functional test_simultaneous_update)
    use_dispatcher(Dropper())
    base = api.create("busy")
    assert api.stack(base)["stack_status"] == "CREATE_IN_PROGRESS"
    assert api.c.put(base, json={"template": BASE}).status_code == 202
    assert api.stack(base)["stack_status"] == "UPDATE_IN_PROGRESS"
    use_inline()
    assert api.c.patch(base, json={}).status_code == 202
    assert api.stack(base)["stack_status"] == "UPDATE_COMPLETE"
    base = api.create("gone")
    assert api.c.delete(base).status_code == 204
    assert fault(api.c.put(base, json={"template": BASE}), 404,
                 "EntityNotFound") == "The Stack (gone) could not be found."
    fault(api.c.put("/v1/t1/stacks/gone/no-such-id", json={"template": BASE}), 404,
          "EntityNotFound")
    fault(api.c.patch("/v1/t1/stacks/nosuch", json={}), 404, "EntityNotFound")
    fault(api.c.put(base.replace("/t1/", "/t2/"), json={"template": BASE}), 404,
          "EntityNotFound")  # another tenant's stack


def test_the_lookup_redirects_put_and_patch_with_their_query(api):
    base = api.create("lookup")
    for method in ("put", "patch"):
        resp = getattr(api.c, method)("/v1/t1/stacks/lookup?x=1", json={"template": BASE})
        assert resp.status_code == 302
        assert resp.headers["Location"].endswith(f"{base}?x=1")
    assert api.c.post(base, json={}).headers["Allow"] == "GET, PUT, PATCH, DELETE"


def test_an_immutable_parameter_may_not_be_updated(api):
    t = T({"a": TR({"get_param": "p"})}, None,
          {"p": {"type": "string", "default": "a", "immutable": True}})
    base = api.create("immutable", t)
    msg = fault(api.c.patch(base, json={"parameters": {"p": "b"}}), 400,
                "ImmutableParameterModified")
    assert msg == "The following parameters are immutable and may not be updated: p"


def test_a_stack_whose_delete_failed_may_not_be_updated(api):
    from app.models import Stack, session
    base = api.create("delfailed")
    with session() as s:
        row = s.get(Stack, base.rsplit("/", 1)[1])
        row.action, row.status = "DELETE", "FAILED"
    msg = fault(api.c.put(base, json={"template": BASE}), 400, "NotSupported")
    assert msg == "Updating a stack when it is deleting is not supported."


@pytest.mark.parametrize("template", [[], 5, True, [{"a": 1}]])
@pytest.mark.parametrize("suffix", ["", "/preview"])
def test_a_patch_whose_template_is_not_a_mapping_or_text_is_a_400(api, template, suffix):
    """PATCH (and its preview) checks the template as POST and PUT do: a value that is neither a
    mapping nor text is Heat's "Template not in valid format" 400; nothing is updated."""
    base = api.create(f"bad-patch-{abs(hash(repr(template))) % 1000}")
    before = api.c.get(base).get_json()["stack"]
    resp = api.c.patch(base + suffix, json={"template": template})
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"]["message"] == (
        "Template not in valid format: The template is not a JSON object or YAML mapping.")
    after = api.c.get(base).get_json()["stack"]
    assert (after["stack_status"], after["updated_time"]) == (before["stack_status"],
                                                              before["updated_time"])


@pytest.mark.parametrize("name", [["x"], {"a": 1}, 5])
def test_a_snapshot_name_that_is_not_text_is_a_400_and_no_snapshot_is_taken(api, name):
    base = api.create("bad-snapshot-name")
    resp = api.c.post(base + "/snapshots", json={"name": name})
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"]["message"] == "The snapshot name must be a string."
    assert api.c.get(base + "/snapshots").get_json()["snapshots"] == []


def test_retry_and_rollback_are_refused_in_progress_and_unless_failed(api):
    """As the README says: 409 ActionInProgress (Heat's) while an operation runs, 400
    NotSupported for a stack neither CREATE_FAILED nor UPDATE_FAILED; nothing changes."""
    from sqlalchemy import update

    from app.models import Stack, session
    base = api.create("recover")
    for action in ("retry", "rollback"):
        fault(api.c.post(f"{base}/actions", json={action: None}), 400, "NotSupported")
    with session() as s:  # an update in flight, as its traversal leaves the row
        s.execute(update(Stack).where(Stack.id == base.rsplit("/", 1)[1]).values(
            action="UPDATE", status="IN_PROGRESS"))
    for action in ("retry", "rollback"):
        fault(api.c.post(f"{base}/actions", json={action: None}), 409, "ActionInProgress")
    assert api.stack(base)["stack_status"] == "UPDATE_IN_PROGRESS"
