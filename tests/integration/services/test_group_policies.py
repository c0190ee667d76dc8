"""ResourceGroup removal_policies, rolling_update and batch_create through the engine (SQLite,
in-process dispatcher), as Heat's heat/engine/resources/openstack/heat/resource_group.py:
removed names are never reused and are ``removed_rsrc_list``; a rolling update changes the
members in batches, highest index first; a batch create creates them in batches."""
from sqlalchemy import select

from app.context import RequestContext
from app.models import Event, Stack, read_session
from app.services import stacks, updates

CTX = RequestContext(tenant_id="grp")


def T(count, value="v%index%", policies=None, update_policy=None, mode=None):
    props = {"count": count, "resource_def": {"type": "OS::Heat::Value",
                                              "properties": {"value": value}}}
    if policies is not None:
        props["removal_policies"] = policies
    if mode:
        props["removal_policies_mode"] = mode
    g = {"type": "OS::Heat::ResourceGroup", "properties": props}
    if update_policy:
        g["update_policy"] = update_policy
    return {"heat_template_version": "2018-08-31", "resources": {"g": g},
            "outputs": {"vals": {"value": {"get_attr": ["g", "value"]}},
                        "refs_map": {"value": {"get_attr": ["g", "refs_map"]}},
                        "removed": {"value": {"get_attr": ["g", "removed_rsrc_list"]}}}}


def _outs(st):
    st = stacks.get_by_id(CTX, st.id)
    return {o["output_key"]: o["output_value"] for o in stacks.stack_outputs(st)}


def _child(st):
    with read_session() as s:
        return s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()


def _events(stack_id):
    with read_session() as s:
        return [(e.id, e.resource_name, e.action, e.status) for e in s.execute(
            select(Event).where(Event.stack_id == stack_id).order_by(Event.id)).scalars()]


def test_removal_policies_remove_named_members_and_never_reuse_them(db):
    st = stacks.create_stack(CTX, stack_name="rm", template=T(3))
    assert _outs(st)["vals"] == ["v0", "v1", "v2"]
    updates.update_stack(CTX, st.name, st.id, template=T(2, policies=[{"resource_list": ["1"]}]))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE"
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["0", "2"] and outs["removed"] == ["1"]
    # the skiplist persists: growing again does not bring "1" back, even with no policy left
    updates.update_stack(CTX, st.name, st.id, template=T(3, policies=[]))
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["0", "2", "3"] and outs["removed"] == ["1"]
    assert outs["vals"] == ["v0", "v2", "v3"]


def test_removal_by_reference_id_and_update_mode_clears_the_list(db):
    st = stacks.create_stack(CTX, stack_name="rmref", template=T(3))
    ref = _outs(st)["refs_map"]["0"]
    updates.update_stack(CTX, st.name, st.id, template=T(2, policies=[{"resource_list": [ref]}]))
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["1", "2"] and outs["removed"] == ["0"]
    updates.update_stack(CTX, st.name, st.id, template=T(3, policies=[], mode="update"))
    outs = _outs(st)
    assert outs["removed"] == [] and sorted(outs["refs_map"]) == ["0", "1", "2"]


def test_removal_policy_at_create_skips_the_names(db):
    st = stacks.create_stack(CTX, stack_name="rmc",
                             template=T(2, policies=[{"resource_list": ["0"]}]))
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["1", "2"] and outs["removed"] == ["0"]


def test_rolling_update_in_batches_highest_index_first(db):
    policy = {"rolling_update": {"max_batch_size": 2}}
    st = stacks.create_stack(CTX, stack_name="roll", template=T(4, update_policy=policy))
    child = _child(st)
    before = _events(child.id)[-1][0]
    updates.update_stack(CTX, st.name, st.id, template=T(4, "w%index%", update_policy=policy))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE"
    assert _outs(st)["vals"] == ["w0", "w1", "w2", "w3"]
    changed = [(i, n) for i, n, a, s in _events(child.id)
               if i > before and s == "COMPLETE" and n in "0123"]
    first = {n for _, n in changed[:2]}
    assert first == {"2", "3"} and {n for _, n in changed[2:]} == {"0", "1"}
    # each batch is one update of the child stack
    stack_updates = [e for e in _events(child.id) if e[0] > before and e[1] == child.name
                     and e[2] == "UPDATE" and e[3] == "IN_PROGRESS"]
    assert len(stack_updates) == 2


def test_batch_create_creates_members_in_batches(db):
    policy = {"batch_create": {"max_batch_size": 2}}
    st = stacks.create_stack(CTX, stack_name="bc", template=T(3, update_policy=policy))
    assert st.stack_status == "CREATE_COMPLETE"
    assert _outs(st)["vals"] == ["v0", "v1", "v2"]
    child = _child(st)
    evs = _events(child.id)
    done = [n for _, n, a, s in evs if a == "CREATE" and s == "COMPLETE" and n in "012"]
    assert set(done[:2]) == {"0", "1"} and done[2:] == ["2"]
    # the first batch creates the child, the second updates it
    assert [(a, s) for _, n, a, s in evs if n == child.name and s == "IN_PROGRESS"] == \
        [("CREATE", "IN_PROGRESS"), ("UPDATE", "IN_PROGRESS")]


def test_resource_show_lists_the_removed_members(db, client):
    r = client.post("/v1/grp/stacks", json={"stack_name": "shw", "template": T(3)})
    sid = r.get_json()["stack"]["id"]
    r = client.put(f"/v1/grp/stacks/shw/{sid}",
                   json={"template": T(2, policies=[{"resource_list": ["1"]}])})
    assert r.status_code == 202
    attrs = client.get(f"/v1/grp/stacks/shw/{sid}/resources/g").get_json()["resource"][
        "attributes"]
    assert attrs["removed_rsrc_list"] == ["1"] and sorted(attrs["refs_map"]) == ["0", "2"]


def test_update_preview_keeps_removed_names_removed(db, client):
    r = client.post("/v1/grp/stacks", json={"stack_name": "prev", "template": T(3)})
    sid = r.get_json()["stack"]["id"]
    client.put(f"/v1/grp/stacks/prev/{sid}",
               json={"template": T(2, policies=[{"resource_list": ["1"]}])})
    got = client.put(f"/v1/grp/stacks/prev/{sid}/preview?show_nested=true",
                     json={"template": T(3)})
    assert got.status_code == 200, got.get_json()
    changes = got.get_json()["resource_changes"]
    added = [c["resource_name"] for c in changes["added"]]
    assert "3" in added and "1" not in added


def test_a_group_stored_without_a_skiplist_keeps_the_names_its_create_skipped(db):
    """A group created before skiplists were stored (only its properties say what it removed)."""
    from app.models import Resource, session
    st = stacks.create_stack(CTX, stack_name="legacy",
                             template=T(2, policies=[{"resource_list": ["0"]}]))
    with session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                               Resource.name == "g")).scalar_one()
        data = dict(row.rsrc_data)
        data.pop("name_blacklist")
        row.rsrc_data = data
    updates.update_stack(CTX, st.name, st.id, template=T(3, policies=[{"resource_list": ["0"]}]))
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["1", "2", "3"] and outs["removed"] == ["0"]
