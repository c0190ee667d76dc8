"""Nested stacks through the engine (SQLite, in-process dispatcher): template resources and
ResourceGroup create and delete their child stacks, events are written at each depth, and the
depth limit refuses the stack up front with Heat's message."""
import pytest
from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.models import Event, Stack, read_session
from app.services import resources, stacks

CTX = RequestContext(tenant_id="nest")
LEAF = "heat_template_version: 2018-08-31\nresources:\n  v: {type: OS::Heat::Value, properties: {value: leaf}}\noutputs:\n  out: {value: {get_attr: [v, value]}}\n"
MID = "heat_template_version: 2018-08-31\nresources:\n  inner: {type: leaf.yaml}\noutputs:\n  out: {value: {get_attr: [inner, out]}}\n"


def _children(parent_id):
    with read_session() as s:
        return list(s.execute(select(Stack).where(Stack.parent_id == parent_id)).scalars())


def _events(stack_id):
    with read_session() as s:
        return [(e.resource_name, e.action, e.status) for e in
                s.execute(select(Event).where(Event.stack_id == stack_id).order_by(Event.id)).scalars()]


def test_two_levels_create_and_delete_with_events_at_each_depth(db):
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"top": {"type": "mid.yaml"}},
            "outputs": {"o": {"value": {"get_attr": ["top", "out"]}}}}
    st = stacks.create_stack(CTX, stack_name="deep", template=tmpl,
                             files={"mid.yaml": MID, "leaf.yaml": LEAF})
    assert st.stack_status == "CREATE_COMPLETE"
    assert stacks.stack_outputs(st)[0]["output_value"] == "leaf"
    (mid,) = _children(st.id)
    (leaf,) = _children(mid.id)
    assert (mid.nested_depth, leaf.nested_depth) == (1, 2)
    assert mid.name.startswith("deep-top-") and mid.stack_status == "CREATE_COMPLETE"
    assert ("v", "CREATE", "COMPLETE") in _events(leaf.id)
    assert ("inner", "CREATE", "COMPLETE") in _events(mid.id)
    top = {r.name: r for r, _ in resources.list_resources(CTX, st)}["top"]
    assert top.physical_resource_id == mid.id
    # children are hidden from the stack list
    assert [s.name for s in stacks.list_stacks(CTX)] == ["deep"]
    stacks.delete_stack(CTX, st.name, st.id)
    for s_ in (st, mid, leaf):
        assert stacks.get_by_id(CTX, s_.id).stack_status == "DELETE_COMPLETE"
    assert ("v", "DELETE", "COMPLETE") in _events(leaf.id)


def test_depth_limit_refuses_the_stack_before_anything_is_stored(db, settings):
    """Heat validates the nested stacks at the parent's create (StackResource.validate_nested_stack):
    a child past max_nested_stack_depth is a RequestLimitExceeded there, and no stack is stored."""
    from app import config
    config.set_current(settings.replace(max_nested_stack_depth=1))
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"top": {"type": "mid.yaml"}}}
    with pytest.raises(errors.StokerError, match=r"Recursion depth exceeds 1\."):
        stacks.create_stack(CTX, stack_name="toodeep", template=tmpl,
                            files={"mid.yaml": MID, "leaf.yaml": LEAF})
    with read_session() as s:
        assert list(s.execute(select(Stack).where(Stack.name == "toodeep")).scalars()) == []


def test_group_members_and_attributes(db):
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"g": {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": 3, "resource_def": {"type": "OS::Heat::Value",
                                                     "properties": {"value": "m%index%"}}}}},
        "outputs": {"vals": {"value": {"get_attr": ["g", "value"]}},
                    "two": {"value": {"get_attr": ["g", "resource.2", "value"]}}}}
    st = stacks.create_stack(CTX, stack_name="grp", template=tmpl)
    outs = {o["output_key"]: o["output_value"] for o in stacks.stack_outputs(st)}
    assert outs == {"vals": ["m0", "m1", "m2"], "two": "m2"}
    (child,) = _children(st.id)
    assert sorted(r.name for r, _ in resources.list_resources(CTX, child)) == ["0", "1", "2"]
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, child.id).stack_status == "DELETE_COMPLETE"


def test_resource_list_with_nested_depth_and_nested_attributes(db, client):
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"top": {"type": "mid.yaml"}}}
    r = client.post("/v1/nest/stacks", json={"stack_name": "listing", "template": tmpl,
                                             "files": {"mid.yaml": MID, "leaf.yaml": LEAF}})
    assert r.status_code == 201
    sid = r.get_json()["stack"]["id"]
    flat = client.get(f"/v1/nest/stacks/listing/{sid}/resources").get_json()["resources"]
    assert [x["resource_name"] for x in flat] == ["top"]
    assert any(link["rel"] == "nested" for link in flat[0]["links"])
    deep = client.get(f"/v1/nest/stacks/listing/{sid}/resources?nested_depth=2").get_json()
    by_name = {x["resource_name"]: x for x in deep["resources"]}
    assert set(by_name) == {"top", "inner", "v"}
    assert by_name["inner"]["parent_resource"] == "top"
    assert by_name["v"]["parent_resource"] == "inner"
    shown = client.get(f"/v1/nest/stacks/listing/{sid}/resources/top").get_json()["resource"]
    assert shown["attributes"] == {"out": "leaf"}


def test_group_members_child_sees_its_properties_as_parameters(db):
    """Heat's ``validate_nested_stack`` passes the member's ``child_params``: a ``get_param``
    in a ``get_attr`` path of the member template (which must resolve at validation) has the
    value the group gives it (heat-tempest-plugin's octavia ``lb_member.yaml`` does this)."""
    member = ("heat_template_version: 2018-08-31\nparameters:\n  key: {type: string}\n"
              "resources:\n  v: {type: OS::Heat::Value, properties: {value: {a: 1, b: 2}}}\n"
              "outputs:\n  out: {value: {get_attr: [v, value, {get_param: key}]}}\n")
    tmpl = {"heat_template_version": "2018-08-31",
            "parameters": {"key": {"type": "string", "default": "b"}},
            "resources": {"g": {"type": "OS::Heat::ResourceGroup", "properties": {
                "count": 1, "resource_def": {"type": "My::Member",
                                             "properties": {"key": {"get_param": "key"}}}}}},
            "outputs": {"o": {"value": {"get_attr": ["g", "out"]}}}}
    st = stacks.create_stack(CTX, stack_name="members", template=tmpl,
                             files={"member.yaml": member},
                             environment={"resource_registry": {"My::Member": "member.yaml"}})
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert stacks.stack_outputs(st)[0]["output_value"] == [2]
