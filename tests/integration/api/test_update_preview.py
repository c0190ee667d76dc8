"""``PUT|PATCH /v1/{tenant}/stacks/{name}/{id}/preview`` over the real services: Heat's
``preview_update`` classification and entry form (the engine's ``format_stack_resource``), nested
stacks with ``show_nested``, errors, and that nothing is written."""
from __future__ import annotations

import copy
from typing import Any

import pytest
from sqlalchemy import func, select

from app.models import RawTemplate, read_session
from tests.fixtures.engine import Dropper
from tests.fixtures.wiring import use_dispatcher, use_inline
from tests.integration.api.test_stack_update import BASE, TR, Api, T, fault

NEW = copy.deepcopy(BASE)
NEW["resources"]["rep"] = TR("y", update_replace=True)
del NEW["resources"]["gone"]
NEW["resources"]["extra"] = {"type": "OS::Heat::RandomString", "properties": {"length": 5},
                             "description": "an added one"}


@pytest.fixture()
def api(client: Any) -> Api:
    return Api(client)


def names(body: dict[str, Any]) -> dict[str, list[str]]:
    changes = body["resource_changes"]
    return {k: sorted(e["resource_name"] for e in v) for k, v in changes.items()}


def written(api: Api, base: str) -> tuple[Any, ...]:
    """Everything a preview must leave as it was."""
    with read_session() as s:
        n_raw = s.execute(select(func.count()).select_from(RawTemplate)).scalar()
    return (api.stack(base), api.resources(base), api.c.get(f"{base}/template").get_json(),
            len(api.c.get(f"{base}/events").get_json()["events"]), n_raw)


def test_put_preview_classifies_like_heat_and_writes_nothing(api):
    base = api.create("pv")
    before = written(api, base)
    resp = api.c.put(f"{base}/preview", json={"template": NEW, "parameters": {"v": "second"}})
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
    assert list(resp.get_json()) == ["resource_changes"]
    assert names(resp.get_json()) == {"added": ["extra"], "deleted": ["gone"],
                                      "replaced": ["rep"], "unchanged": [], "updated": ["a"]}
    assert written(api, base) == before
    same = api.c.put(f"{base}/preview", json={"template": BASE})
    assert names(same.get_json())["unchanged"] == ["a", "gone", "rep"]


def test_entries_are_heats_engine_format(api):
    base = api.create("fmt")
    sid = base.rsplit("/", 1)[1]
    res = api.resources(base)
    changes = api.c.put(f"{base}/preview", json={"template": NEW, "parameters": {"v": "2"}}) \
        .get_json()["resource_changes"]
    stack_identity = {"tenant": "admin", "stack_name": "fmt", "stack_id": sid, "path": ""}
    updated = changes["updated"][0]  # formatted from the existing resource
    assert updated == {
        "resource_name": "a",
        "resource_identity": {**stack_identity, "path": "/resources/a"},
        "stack_identity": stack_identity, "stack_name": "fmt",
        "resource_type": "OS::Heat::TestResource", "resource_action": "CREATE",
        "resource_status": "COMPLETE", "resource_status_reason": "state changed",
        "physical_resource_id": res["a"]["physical_resource_id"],
        "creation_time": res["a"]["creation_time"], "updated_time": res["a"]["updated_time"],
        "required_by": [], "description": "", "metadata": {}, "attributes": {"output": "first"}}
    deleted = changes["deleted"][0]
    assert (deleted["resource_action"], deleted["physical_resource_id"]) == \
        ("CREATE", res["gone"]["physical_resource_id"])
    added = changes["added"][0]  # the new resource, not created yet (Heat's new stack)
    assert (added["resource_action"], added["resource_status"], added["physical_resource_id"],
            added["creation_time"], added["description"]) == \
        ("INIT", "COMPLETE", "", None, "an added one")
    assert added["attributes"] == {"value": None}
    replaced = changes["replaced"][0]
    assert (replaced["resource_action"], replaced["physical_resource_id"]) == ("INIT", "")
    assert replaced["resource_identity"]["path"] == "/resources/rep"


def test_patch_preview_keeps_what_is_not_sent(api):
    base = api.create("pp", parameters={"w": "kept"})
    got = api.c.patch(f"{base}/preview", json={"parameters": {"v": "patched"}})
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": [],
                                     "unchanged": ["gone", "rep"], "updated": ["a"]}
    got = api.c.patch(f"{base}/preview", json={"template": None})
    assert names(got.get_json())["unchanged"] == ["a", "gone", "rep"]
    got = api.c.put(f"{base}/preview", json={"template": BASE, "parameters": {"w": "kept"}})
    assert names(got.get_json())["unchanged"] == ["a", "gone", "rep"]


def test_type_change_property_replacement_and_failed_resources_are_replaced(api):
    t = T({"s": {"type": "OS::Heat::RandomString", "properties": {"length": 4}},
           "n": {"type": "OS::Heat::None"},
           "f": TR("v", fail=True), "ok": TR("v")})
    base = api.create("rp", t)
    assert api.stack(base)["stack_status"] == "CREATE_FAILED"
    t2 = T({"s": {"type": "OS::Heat::RandomString", "properties": {"length": 8}},
            "n": {"type": "OS::Heat::TestResource"},
            "f": TR("v", fail=True), "ok": TR("v")})
    got = api.c.put(f"{base}/preview", json={"template": t2})
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": ["f", "n", "s"],
                                     "unchanged": ["ok"], "updated": []}


def test_a_stack_in_progress_is_previewed_and_errors_are_heats(api, frozen_type):
    use_dispatcher(Dropper())
    busy = api.create("busy")
    got = api.c.put(f"{busy}/preview", json={"template": BASE})
    assert got.status_code == 200, got.get_json()
    use_inline()
    base = api.create("frz", T({"f": {"type": "Test::Frozen", "properties": {"size": 1}}}))
    t2 = T({"f": {"type": "Test::Frozen", "properties": {"size": 2}}})
    msg = fault(api.c.put(f"{base}/preview", json={"template": t2}), 400, "NotSupported")
    assert msg == "Update to properties size of f (Test::Frozen) is not supported."
    fault(api.c.put(f"{base}/preview", json={"template": T({"x": {"type": "OS::Nope"}})}), 400,
          "StackValidationFailed")
    assert fault(api.c.put(f"{base}/preview", json={}), 400,
                 "HTTPBadRequest") == "No template specified"
    assert fault(api.c.put(f"{base}/preview?show_nested=maybe", json={"template": BASE}), 400,
                 "HTTPBadRequest").startswith('Unrecognized value "maybe" for "show_nested"')
    assert api.c.delete(base).status_code == 204
    fault(api.c.put(f"{base}/preview", json={"template": t2}), 404, "EntityNotFound")
    fault(api.c.patch("/v1/t1/stacks/frz/nosuch/preview", json={}), 404, "EntityNotFound")


CHILD = """
heat_template_version: 2018-08-31
parameters:
  v: {type: string}
resources:
  inner: {type: OS::Heat::TestResource, properties: {value: {get_param: v}}}
  fixed: {type: OS::Heat::None}
outputs:
  out: {value: {get_attr: [inner, output]}}
"""


def _nested(v: str, extra: bool = False) -> dict[str, Any]:
    resources: dict[str, Any] = {"n": {"type": "child.yaml", "properties": {"v": v}},
                                 "top": TR("t")}
    if extra:
        resources["m"] = {"type": "child.yaml", "properties": {"v": "m"}}
    return T(resources)


def test_nested_stacks_are_always_updated_as_heats_preview_lists_them(api):
    files = {"child.yaml": CHILD}
    base = api.create("nest", _nested("a"), files=files)
    same = api.c.put(f"{base}/preview?show_nested=true",
                     json={"template": _nested("a"), "files": files})
    got = names(same.get_json())
    assert got["updated"] == ["n"] and got["unchanged"] == ["fixed", "inner", "top"]
    changed = api.c.put(f"{base}/preview", json={"template": _nested("b"), "files": files})
    assert names(changed.get_json())["updated"] == ["n"]
    new_child = CHILD.replace("fixed: {type: OS::Heat::None}", "fixed: {type: OS::Heat::None}"
                              "\n  more: {type: OS::Heat::None}")
    got = api.c.put(f"{base}/preview", json={"template": _nested("a"),
                                             "files": {"child.yaml": new_child}})
    assert names(got.get_json())["updated"] == ["n"]


def test_show_nested_lists_the_resources_of_nested_stacks(api):
    files = {"child.yaml": CHILD}
    base = api.create("shown", _nested("a"), files=files)
    child_id = api.resources(base)["n"]["physical_resource_id"]
    got = api.c.put(f"{base}/preview?show_nested=true",
                    json={"template": _nested("b", extra=True), "files": files})
    assert got.status_code == 200, got.get_json()
    changes = got.get_json()["resource_changes"]
    assert names(got.get_json()) == {"added": ["fixed", "inner", "m"], "deleted": [],
                                     "replaced": [], "unchanged": ["fixed", "top"],
                                     "updated": ["inner", "n"]}
    inner = next(e for e in changes["updated"] if e["resource_name"] == "inner")
    assert inner["parent_resource"] == "n" and inner["stack_identity"]["stack_id"] == child_id
    n = next(e for e in changes["updated"] if e["resource_name"] == "n")
    assert n["nested_stack_id"]["stack_id"] == child_id and "parent_resource" not in n
    added = [e for e in changes["added"] if e["resource_name"] != "m"]
    assert {e["parent_resource"] for e in added} == {"m"}
    flat = api.c.put(f"{base}/preview", json={"template": _nested("b", extra=True),
                                              "files": files})
    assert names(flat.get_json())["updated"] == ["n"]  # without show_nested: the top only
    gone = api.c.put(f"{base}/preview?show_nested=True", json={"template": T({"top": TR("t")})})
    assert names(gone.get_json())["deleted"] == ["fixed", "inner", "n"]


#: Dependents of a RandomString ``a`` that a new ``len`` replaces (length is not
#: update_allowed): ``b`` reads its attribute, ``c`` its reference, ``f`` its attribute in a
#: property that is not update_allowed (RandomString salt), ``g`` only depends on it; ``e``
#: reads an attribute of ``u``, which stays; ``h`` reads the parameter itself.
DEPENDENTS = {
    "heat_template_version": "2021-04-16",
    "parameters": {"len": {"type": "number", "default": 8}},
    "resources": {
        "a": {"type": "OS::Heat::RandomString", "properties": {"length": {"get_param": "len"}}},
        "u": {"type": "OS::Heat::RandomString", "properties": {"length": 5}},
        "b": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["a", "value"]}}},
        "c": {"type": "OS::Heat::Value", "properties": {"value": {"get_resource": "a"}}},
        "d": {"type": "OS::Heat::Value", "properties": {"value": "static"}},
        "e": {"type": "OS::Heat::Value", "properties": {"value": {"get_attr": ["u", "value"]}}},
        "f": {"type": "OS::Heat::RandomString",
              "properties": {"salt": {"get_attr": ["a", "value"]}}},
        "g": {"type": "OS::Heat::None", "depends_on": ["a"]},
        "h": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "len"}}},
    }}


def test_dependents_of_a_replaced_resource_are_listed_as_heat_lists_them(api):
    """Heat 27.0.1's preview of ``len=9`` (recorded from the reference Heat): replaced a, f;
    updated b, c, h (and e, see below); unchanged d, g, u. Heat's new stack has no resource
    data (heat/engine/update.py StackUpdate.preview over service.preview_update_stack's new
    parser.Stack: GetAtt._result_ready is False for an INIT resource, so get_attr is null and
    get_resource the name), so what reads the replaced ``a`` differs from its stored value:
    updated where update_allowed (Value's value), replaced where not (RandomString's salt)."""
    base = api.create("dep", DEPENDENTS)
    assert api.stack(base)["stack_status"] == "CREATE_COMPLETE"
    got = api.c.put(f"{base}/preview", json={"template": DEPENDENTS, "parameters": {"len": 9}})
    assert got.status_code == 200, got.get_json()
    # Better than Heat: ``e`` reads only ``u``, which stays, so the update leaves it as it is;
    # Heat's preview lists it updated (its get_attr is null in the preview's new stack).
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": ["a", "f"],
                                     "unchanged": ["d", "e", "g", "u"],
                                     "updated": ["b", "c", "h"]}
    updated = {e["resource_name"]: e for e in got.get_json()["resource_changes"]["updated"]}
    assert updated["b"]["resource_action"] == "CREATE"  # the existing resource, as Heat's
    assert updated["b"]["physical_resource_id"] == api.resources(base)["b"][
        "physical_resource_id"]


def test_a_no_op_preview_leaves_dependents_unchanged_where_heat_lists_them_changed(api):
    """Heat 27.0.1 previews this same template and parameters as updated b, c, e and replaced
    f (every get_attr null, every get_resource a name in its preview); nothing would change
    in the update, and Stoker says so: all unchanged."""
    base = api.create("noop", DEPENDENTS)
    got = api.c.put(f"{base}/preview", json={"template": DEPENDENTS})
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": [],
                                     "unchanged": sorted(DEPENDENTS["resources"]),
                                     "updated": []}


def test_reading_an_in_place_updated_resource(api):
    """``x`` (a Value) is updated in place: ``y`` reads its attribute (which changes: updated,
    as Heat), ``z`` its reference (an in-place update keeps it: unchanged; Heat: updated)."""
    def tmpl(v: str) -> dict[str, Any]:
        return T({"x": {"type": "OS::Heat::Value", "properties": {"value": v}},
                  "y": {"type": "OS::Heat::Value",
                        "properties": {"value": {"get_attr": ["x", "value"]}}},
                  "z": {"type": "OS::Heat::Value",
                        "properties": {"value": {"get_resource": "x"}}}})
    base = api.create("inplace", tmpl("one"))
    got = api.c.put(f"{base}/preview", json={"template": tmpl("two")})
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": [],
                                     "unchanged": ["z"], "updated": ["x", "y"]}


def test_a_never_created_resource_is_previewed_as_the_update_treats_it(api, frozen_type):
    """``late`` was never created (the create failed before it: INIT_COMPLETE). Heat's update
    replaces such a resource (``_needs_update``: UpdateReplace for INIT_COMPLETE), so a change
    to its ``immutable`` property is no refusal: the update creates it. The preview gives the
    update's verdict, ``replaced``, instead of a 400 NotSupported for an update that works."""
    def tmpl(fail: bool, size: int) -> dict[str, Any]:
        return T({"first": TR("v", fail=fail),
                  "late": {"type": "Test::Frozen", "properties": {"size": size},
                           "depends_on": ["first"]}})
    base = api.create("late", tmpl(True, 1))
    assert api.stack(base)["stack_status"] == "CREATE_FAILED"
    assert api.resources(base)["late"]["resource_status"] == "INIT_COMPLETE"
    got = api.c.put(f"{base}/preview", json={"template": tmpl(False, 2)})
    assert got.status_code == 200, got.get_json()
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": ["first", "late"],
                                     "unchanged": [], "updated": []}
    resp = api.c.put(base, json={"template": tmpl(False, 2)})
    assert resp.status_code == 202
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    assert api.resources(base)["late"]["resource_status"] == "CREATE_COMPLETE"
    # a created one whose immutable property changes: the preview and the update both refuse
    msg = fault(api.c.put(f"{base}/preview", json={"template": tmpl(False, 3)}), 400,
                "NotSupported")
    assert msg == "Update to properties size of late (Test::Frozen) is not supported."
    api.c.put(base, json={"template": tmpl(False, 3)})
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_FAILED"
    assert "Update to properties size of late (Test::Frozen) is not supported." in \
        st["stack_status_reason"]


def test_a_handle_replaced_on_every_update_is_previewed_and_updated_so(api):
    """Heat's UpdateWaitConditionHandle is replaced on every stack update, its template
    unchanged (``_needs_update`` raises UpdateReplace), so that a new round of signals is
    awaited; the preview lists it replaced and the update replaces it."""
    t = T({"h": {"type": "OS::Heat::UpdateWaitConditionHandle"}, "n": {"type": "OS::Heat::None"}})
    base = api.create("uwch", t)
    before = api.resources(base)
    got = api.c.put(f"{base}/preview", json={"template": t})
    assert names(got.get_json()) == {"added": [], "deleted": [], "replaced": ["h"],
                                     "unchanged": ["n"], "updated": []}
    assert api.c.put(base, json={"template": t}).status_code == 202
    st = api.stack(base)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    after = api.resources(base)
    assert after["h"]["physical_resource_id"] != before["h"]["physical_resource_id"]
    assert after["n"]["physical_resource_id"] == before["n"]["physical_resource_id"]
