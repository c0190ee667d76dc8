"""python-heatclient's stack actions (``heat.actions.suspend/resume/check/cancel_update/
cancel_without_rollback``) against the API, with the in-process engine on cloud-free types.
Expected states, reasons and faults are Heat's (heat/engine/service.py stack_suspend,
stack_resume, stack_check, stack_cancel_update; heat/engine/resource.py; heat/api/openstack/v1/
actions.py)."""
from __future__ import annotations

import pytest
from heatclient import exc

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  rs:
    type: OS::Heat::RandomString
  v:
    type: OS::Heat::Value
    properties: {value: {get_attr: [rs, value]}}
"""


def _events(heat, sid):  # type: ignore[no-untyped-def]
    return [(e.resource_name, e.resource_status, e.resource_status_reason)
            for e in heat.events.list(sid, sort_dir="asc")]


def _states(heat, sid):  # type: ignore[no-untyped-def]
    return {r.resource_name: (r.resource_status, r.resource_status_reason)
            for r in heat.resources.list(sid)}


def test_suspend_resume_and_check_of_cloud_free_types(heat):  # type: ignore[no-untyped-def]
    sid = heat.stacks.create(stack_name="acts", template=TEMPLATE)["stack"]["id"]
    heat.actions.suspend(sid)
    st = heat.stacks.get(sid)
    assert (st.stack_status, st.stack_status_reason) == (
        "SUSPEND_COMPLETE", "Stack SUSPEND completed successfully")
    assert _states(heat, sid) == {"rs": ("SUSPEND_COMPLETE", "state changed"),
                                  "v": ("SUSPEND_COMPLETE", "state changed")}
    events = _events(heat, sid)
    assert [e for e in events if e[0] == "v" and e[1].startswith("SUSPEND")] == [
        ("v", "SUSPEND_IN_PROGRESS", "state changed"), ("v", "SUSPEND_COMPLETE", "state changed")]
    assert events[-1] == ("acts", "SUSPEND_COMPLETE", "Stack SUSPEND completed successfully")
    # reverse dependency order: the dependent first (Heat's suspend)
    order = [e[0] for e in events if e[1] == "SUSPEND_COMPLETE"]
    assert order == ["v", "rs", "acts"]

    n = len(_events(heat, sid))
    heat.actions.suspend(sid)  # already suspended: Heat does nothing
    assert len(_events(heat, sid)) == n
    assert heat.stacks.get(sid).stack_status == "SUSPEND_COMPLETE"

    heat.actions.resume(sid)
    st = heat.stacks.get(sid)
    assert (st.stack_status, st.stack_status_reason) == (
        "RESUME_COMPLETE", "Stack RESUME completed successfully")
    order = [e[0] for e in _events(heat, sid) if e[1] == "RESUME_COMPLETE"]
    assert order == ["rs", "v", "acts"]  # forward order

    heat.actions.check(sid)
    st = heat.stacks.get(sid)
    # neither type can check itself: Heat completes them with "CHECK not supported for <type>"
    assert (st.stack_status, st.stack_status_reason) == (
        "CHECK_COMPLETE",
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")
    assert _states(heat, sid) == {
        "rs": ("CHECK_COMPLETE", "CHECK not supported for OS::Heat::RandomString"),
        "v": ("CHECK_COMPLETE", "CHECK not supported for OS::Heat::Value")}
    # an update after the actions still works, from the kept template
    heat.stacks.update(sid, template=TEMPLATE.replace("RandomString", "RandomString\n    "
                                                      "properties: {length: 8}"))
    assert heat.stacks.get(sid).stack_status == "UPDATE_COMPLETE"


def test_resume_of_a_stack_never_suspended_fails_as_heats(heat):  # type: ignore[no-untyped-def]
    sid = heat.stacks.create(stack_name="notsus", template=TEMPLATE)["stack"]["id"]
    heat.actions.resume(sid)
    st = heat.stacks.get(sid)
    assert st.stack_status == "RESUME_FAILED"
    assert st.stack_status_reason == (
        "Resource RESUME failed: Error: resources.rs: State ('CREATE', 'COMPLETE') invalid "
        "for resume")
    # the refused resource keeps its state (Heat raises before the action starts)
    assert _states(heat, sid)["rs"] == ("CREATE_COMPLETE", "state changed")


def test_cancel_without_an_update_in_progress_is_heats_400(heat):  # type: ignore[no-untyped-def]
    sid = heat.stacks.create(stack_name="nocancel", template=TEMPLATE)["stack"]["id"]
    for cancel in (heat.actions.cancel_update, heat.actions.cancel_without_rollback):
        with pytest.raises(exc.HTTPBadRequest) as err:
            cancel(sid)
        assert "Cancelling update when stack is CREATE_COMPLETE is not supported." \
            in str(err.value)
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"


def test_action_bodies_are_checked_as_heat_api(client):  # type: ignore[no-untyped-def]
    r = client.post("/v1/t1/stacks", json={"stack_name": "body", "template": TEMPLATE})
    assert r.status_code == 201
    sid = r.get_json()["stack"]["id"]
    url = f"/v1/t1/stacks/body/{sid}/actions"
    for body, message in (({}, "No action specified"),
                          ({"suspend": None, "resume": None}, "Multiple actions specified"),
                          ({"reboot": None}, "Invalid action reboot specified")):
        r = client.post(url, json=body)
        assert r.status_code == 400
        assert r.get_json()["error"] == {"type": "HTTPBadRequest", "message": message,
                                         "traceback": None}
    r = client.post(f"/v1/t1/stacks/body/{'0' * 8}-0000-0000-0000-{'0' * 12}/actions",
                    json={"check": None})
    assert r.status_code == 404 and r.get_json()["error"]["type"] == "EntityNotFound"
    r = client.post(f"/v1/other/stacks/body/{sid}/actions", json={"check": None},
                    headers={"X-Project-Id": "other", "X-Roles": "member"})
    assert r.status_code == 404  # another tenant's stack, for a non-admin (admins see all)
    r = client.post(url, json={"check": None})
    # real Heat 27.0.1 answers 200 with the body null (its serializer of a None result)
    assert r.status_code == 200 and r.get_data() == b"null"
    assert client.get(f"/v1/t1/stacks/body/{sid}").get_json()["stack"]["stack_status"] == \
        "CHECK_COMPLETE"


def test_mark_unhealthy_then_the_next_update_replaces(heat):  # type: ignore[no-untyped-def]
    """heatclient's ``resources.mark_unhealthy`` (Heat's resource_mark_unhealthy): CHECK_FAILED
    with the reason and an event; false brings it back to CHECK_COMPLETE; marked again, the
    next update replaces it (Heat's always_replace_on_check_failed)."""
    sid = heat.stacks.create(stack_name="health", template=TEMPLATE)["stack"]["id"]
    before = heat.resources.get(sid, "rs")
    heat.resources.mark_unhealthy(sid, "rs", True, "the disk is on fire")
    r = heat.resources.get(sid, "rs")
    assert (r.resource_status, r.resource_status_reason) == ("CHECK_FAILED",
                                                             "the disk is on fire")
    assert _events(heat, sid)[-1] == ("rs", "CHECK_FAILED", "the disk is on fire")
    heat.resources.mark_unhealthy(sid, "rs", False, "")
    r = heat.resources.get(sid, "rs")
    assert (r.resource_status, r.resource_status_reason) == (
        "CHECK_COMPLETE", "state changed by resource_mark_unhealthy api")
    heat.resources.mark_unhealthy(sid, "rs", False, "")  # healthy already: nothing changes
    assert _events(heat, sid)[-1][1] == "CHECK_COMPLETE"
    # by physical id
    heat.resources.mark_unhealthy(sid, before.physical_resource_id, True, "")
    assert heat.resources.get(sid, "rs").resource_status == "CHECK_FAILED"
    heat.stacks.update(sid, template=TEMPLATE, existing=True)
    st = heat.stacks.get(sid)
    assert st.stack_status == "UPDATE_COMPLETE", st.stack_status_reason
    after = heat.resources.get(sid, "rs")
    assert after.resource_status == "CREATE_COMPLETE"
    assert after.physical_resource_id != before.physical_resource_id  # replaced
    assert (after.attributes["value"] != before.attributes["value"])


def test_mark_unhealthy_bad_input_is_heats_400_and_404(client):  # type: ignore[no-untyped-def]
    r = client.post("/v1/t1/stacks", json={"stack_name": "hb", "template": TEMPLATE})
    sid = r.get_json()["stack"]["id"]
    url = f"/v1/t1/stacks/hb/{sid}/resources/rs"
    for body, message in (
            ({"mark_unhealthy": True, "bogus": 1}, "Invalid keys in resource mark unhealthy "
                                                   "{'bogus'}"),
            ({"resource_status_reason": "x"}, "Missing mandatory (mark_unhealthy) key from "
                                              "mark unhealthy request"),
            ({"mark_unhealthy": "maybe"}, 'Unrecognized value "maybe" for "mark_unhealthy", '
                                          "acceptable values are: true, false.")):
        r = client.patch(url, json=body)
        assert r.status_code == 400, body
        assert r.get_json()["error"]["message"] == message
    r = client.patch(f"/v1/t1/stacks/hb/{sid}/resources/nope", json={"mark_unhealthy": True})
    assert r.status_code == 404
    assert r.get_json()["error"] == {"type": "ResourceNotFound", "traceback": None,
                                     "message": "The Resource (nope) could not be found in "
                                                "Stack hb."}
    r = client.patch(url, json={"mark_unhealthy": "true"})
    assert r.status_code == 200 and r.get_data() == b"null"
    assert client.get(url).get_json()["resource"]["resource_status"] == "CHECK_FAILED"


@pytest.fixture()
def abandon_adopt(db):  # type: ignore[no-untyped-def]
    """Heat's enable_stack_abandon and enable_stack_adopt on (both off by default)."""
    from app import config
    previous = config.get()
    config.set_current(previous.replace(enable_stack_abandon=True, enable_stack_adopt=True))
    yield
    config.set_current(previous)


def test_abandon_and_adopt_are_off_by_default_with_heats_error(heat):  # type: ignore[no-untyped-def]
    import json
    sid = heat.stacks.create(stack_name="off", template=TEMPLATE)["stack"]["id"]
    for call in (heat.stacks.abandon, heat.stacks.export):
        with pytest.raises(exc.HTTPBadRequest) as err:
            call(sid)
        assert "Stack Abandon is not supported." in str(err.value)
    data = json.dumps({"template": {"heat_template_version": "2018-08-31", "resources": {}},
                       "resources": {}})
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.stacks.create(stack_name="adopted", adopt_stack_data=data)
    assert "Stack Adopt is not supported." in str(err.value)
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"


def test_export_abandon_then_adopt_keeps_the_resources(heat, abandon_adopt):  # type: ignore[no-untyped-def]
    import json
    sid = heat.stacks.create(stack_name="keep", template=TEMPLATE)["stack"]["id"]
    value = heat.resources.get(sid, "rs").attributes["value"]
    exported = heat.stacks.export(sid)
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"  # export changes nothing
    assert set(exported) == {"name", "id", "action", "status", "environment", "files",
                             "template", "resources", "project_id", "stack_user_project_id",
                             "tags"}
    assert (exported["name"], exported["id"], exported["action"], exported["status"]) == (
        "keep", sid, "CREATE", "COMPLETE")
    rs = exported["resources"]["rs"]
    assert set(rs) == {"name", "resource_id", "type", "action", "status", "metadata",
                       "resource_data"}
    assert (rs["type"], rs["action"], rs["status"]) == ("OS::Heat::RandomString", "CREATE",
                                                        "COMPLETE")

    abandoned = heat.stacks.abandon(sid)
    assert abandoned == exported
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get("keep")

    created = heat.stacks.create(stack_name="keep2", adopt_stack_data=json.dumps(abandoned))
    new = created["stack"]["id"]
    st = heat.stacks.get(new)
    assert (st.stack_status, st.stack_status_reason) == ("ADOPT_COMPLETE",
                                                         "Stack ADOPT completed successfully")
    res = {r.resource_name: r for r in heat.resources.list(new)}
    assert {r.resource_status for r in res.values()} == {"ADOPT_COMPLETE"}
    assert res["rs"].physical_resource_id == rs["resource_id"]  # taken over, not created
    assert heat.resources.get(new, "rs").attributes["value"] == value
    assert heat.resources.get(new, "v").attributes["value"] == value


def test_adopt_data_that_does_not_match_the_template_fails(heat, abandon_adopt):  # type: ignore[no-untyped-def]
    import json
    data = {"template": {"heat_template_version": "2018-08-31",
                         "resources": {"rs": {"type": "OS::Heat::RandomString"}}},
            "resources": {"other": {"resource_id": "x"}}}
    sid = heat.stacks.create(stack_name="mismatch",
                             adopt_stack_data=json.dumps(data))["stack"]["id"]
    st = heat.stacks.get(sid)
    assert (st.stack_status, st.stack_status_reason) == (
        "ADOPT_FAILED",
        "Resource ADOPT failed: Exception: resources.rs: Resource ID was not provided.")
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.stacks.create(stack_name="bad", adopt_stack_data=json.dumps({"resources": {}}))
    assert "Invalid adopt data: 'template'" in str(err.value)


def test_malformed_adopt_data_is_heats_400_and_writes_nothing(heat, abandon_adopt):  # type: ignore[no-untyped-def]
    """heat-api checks adopt data before anything is written (``InstantiationData.template``:
    ``simple_parse``, then ``adopt_data['template']``); real Heat 27.0.1 answers the first
    message below for ``[1]``. Stoker also refuses up front what Heat only meets later (a
    template or ``resources`` that is not a mapping)."""
    import json
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"rs": {"type": "OS::Heat::RandomString"}}}
    for data, message in (
            ("[1]", "Invalid adopt data: The template is not a JSON object or YAML mapping."),
            ("{bad: [", "Invalid adopt data: Error parsing template [root stack] "),
            (json.dumps({"resources": {}}), "Invalid adopt data: 'template'"),
            (json.dumps({"template": "text", "resources": {}}),
             "Invalid adopt data: its template is not a JSON object or YAML mapping."),
            (json.dumps({"template": tmpl, "resources": ["rs"]}),
             "Invalid adopt data: resources must be a mapping")):
        with pytest.raises(exc.HTTPBadRequest) as err:
            heat.stacks.create(stack_name="bad", adopt_stack_data=data)
        assert message in str(err.value), data
    assert list(heat.stacks.list(show_nested=True, show_deleted=True)) == []
    # an entry the template lacks is ignored, as Heat's (only the template's names are read)
    sid = heat.stacks.create(stack_name="extra", adopt_stack_data=json.dumps({
        "template": tmpl, "resources": {"rs": {"resource_id": "given"},
                                        "gone": {"resource_id": "x"}}}))["stack"]["id"]
    assert heat.stacks.get(sid).stack_status == "ADOPT_COMPLETE"
    assert [r.resource_name for r in heat.resources.list(sid)] == ["rs"]
    assert heat.resources.get(sid, "rs").physical_resource_id == "given"


def test_adopt_keeps_a_wait_handles_signals(heat, abandon_adopt):  # type: ignore[no-untyped-def]
    """A resource's ``metadata`` in the abandon data is its live metadata (a handle's signals,
    Heat's ``metadata_get``) and adopt sets it again (Heat's ``handle_adopt``:
    ``metadata_set``), so the adopted wait condition's data is the same. The wait condition
    itself has no physical id (nor in Heat, whose adopt then fails it with "Resource ID was
    not provided."): Stoker adopts such a cloud-free entry as it was."""
    import json
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "h": {"type": "OS::Heat::WaitConditionHandle"},
        "wc": {"type": "OS::Heat::WaitCondition",
               "properties": {"handle": {"get_resource": "h"}, "timeout": 600}}},
        "outputs": {"data": {"value": {"get_attr": ["wc", "data"]}}}}
    sid = heat.stacks.create(stack_name="waits", template=tmpl)["stack"]["id"]
    heat.resources.signal(sid, "h", data={"id": "a", "status": "SUCCESS", "data": "one"})
    assert heat.stacks.get(sid).stack_status == "CREATE_COMPLETE"
    signals = {"a": {"status": "SUCCESS", "data": "one", "reason": "Signal 1 received"}}
    assert heat.resources.metadata(sid, "h") == signals
    data = heat.stacks.abandon(sid)
    assert data["resources"]["h"]["metadata"] == signals
    new = heat.stacks.create(stack_name="waits2",
                             adopt_stack_data=json.dumps(data))["stack"]["id"]
    st = heat.stacks.get(new)
    assert st.stack_status == "ADOPT_COMPLETE", st.stack_status_reason
    assert heat.resources.metadata(new, "h") == signals
    assert json.loads(st.outputs[0]["output_value"]) == {"a": "one"}


NESTED = """
heat_template_version: 2018-08-31
resources:
  child: {type: child.yaml}
"""
CHILD = """
heat_template_version: 2018-08-31
resources:
  n: {type: OS::Heat::None}
"""


def test_actions_reach_nested_stacks(heat):  # type: ignore[no-untyped-def]
    """Heat's StackResource: suspend, resume and check run on the child stack too."""
    sid = heat.stacks.create(stack_name="outer", template=NESTED,
                             files={"child.yaml": CHILD})["stack"]["id"]
    child_id = heat.resources.get(sid, "child").physical_resource_id
    for action, status in ((heat.actions.suspend, "SUSPEND_COMPLETE"),
                           (heat.actions.resume, "RESUME_COMPLETE"),
                           (heat.actions.check, "CHECK_COMPLETE")):
        action(sid)
        assert heat.stacks.get(sid).stack_status == status
        assert heat.resources.get(sid, "child").resource_status == status
        assert heat.stacks.get(child_id).stack_status == status
        assert heat.resources.get(child_id, "n").resource_status == status
    # the child's None cannot check itself: both stacks say so
    assert heat.stacks.get(sid).stack_status_reason == (
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")


def test_abandon_of_a_nested_stack_leaves_no_child_behind(heat, abandon_adopt):  # type: ignore[no-untyped-def]
    sid = heat.stacks.create(stack_name="nab", template=NESTED,
                             files={"child.yaml": CHILD})["stack"]["id"]
    child_id = heat.resources.get(sid, "child").physical_resource_id
    heat.stacks.abandon(sid)
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get("nab")
    assert heat.stacks.get(child_id).stack_status == "DELETE_COMPLETE"
    assert list(heat.stacks.list(show_nested=True)) == []


def test_mark_unhealthy_of_a_resource_in_progress_is_409(client):  # type: ignore[no-untyped-def]
    from app.models import Resource, session
    r = client.post("/v1/t1/stacks", json={"stack_name": "busy", "template": TEMPLATE})
    sid = r.get_json()["stack"]["id"]
    with session() as s:
        for row in s.query(Resource).filter(Resource.stack_id == sid):
            row.status = "IN_PROGRESS"
    r = client.patch(f"/v1/t1/stacks/busy/{sid}/resources/rs", json={"mark_unhealthy": True})
    assert r.status_code == 409
    assert r.get_json()["error"]["type"] == "ActionInProgress"
