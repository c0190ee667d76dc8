"""Breakpoints (Heat's hooks) through the engine: ``pre-create`` and ``pre-update`` set per
resource (or by a wildcard) in the environment's ``resource_registry`` pause the resource with
Heat's event ("CREATE paused until Hook pre-create is cleared", the resource still
INIT_COMPLETE); a signal ``{"unset_hook": ...}`` writes "Hook ... is cleared" and the action goes
on; ``pre-update`` pauses an unchanged resource too."""
from __future__ import annotations

from app.context import RequestContext
from app.services import signals, stacks, updates
from tests.fixtures.stacks import events, hot, knob, rows

CTX = RequestContext(tenant_id="hooks")
TEMPLATE = hot({"foo_step1": knob("one"), "foo_step2": {**knob("two"), "depends_on": "foo_step1"}})


def _reasons(stack_id: str, name: str) -> list[tuple[str, str]]:
    return [(f"{e.action}_{e.status}", e.status_reason) for e in events(stack_id)
            if e.resource_name == name]


def test_pre_create_pauses_until_cleared(rec):
    env = {"resource_registry": {"resources": {"foo_step*": {"hooks": "pre-create"}}}}
    st = stacks.create_stack(CTX, stack_name="hooked", template=TEMPLATE, environment=env)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_IN_PROGRESS"
    assert _reasons(st.id, "foo_step1") == [
        ("INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")]
    assert rows(st.id)["foo_step2"].action == "INIT"
    signals.signal(CTX, st, "foo_step1", {"unset_hook": "pre-create"})
    rec.run_all()
    assert rows(st.id)["foo_step1"].action == "CREATE"
    assert ("INIT_COMPLETE", "Hook pre-create is cleared") in _reasons(st.id, "foo_step1")
    assert _reasons(st.id, "foo_step2")[-1] == (
        "INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")
    signals.signal(CTX, st, "foo_step2", {"unset_hook": "pre-create"})
    rec.run_all()
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"


def test_pre_update_pauses_an_unchanged_resource(rec):
    env = {"resource_registry": {"resources": {"foo_step2": {"hooks": "pre-update"}}}}
    st = stacks.create_stack(CTX, stack_name="upd", template=TEMPLATE, environment=env)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    updates.update_stack(CTX, st.name, st.id, template=TEMPLATE, environment=env)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_IN_PROGRESS"
    assert _reasons(st.id, "foo_step2")[-1] == (
        "CREATE_COMPLETE", "UPDATE paused until Hook pre-update is cleared")
    signals.signal(CTX, st, "foo_step2", {"unset_hook": "pre-update"})
    rec.run_all()
    assert stacks.get_by_id(CTX, st.id).stack_status == "UPDATE_COMPLETE"


def test_a_nested_stacks_hook_pauses_inside_it_and_the_resource_links_its_child(rec):
    """``resources: {nested: {foo_step2: {hooks: pre-create}}}`` reaches the child stack of
    ``nested``; while it is paused, ``GET .../resources/nested`` already links the child stack
    (``rel: nested``), as Heat's ``format_stack_resource``."""
    import yaml
    env = {"resource_registry": {"resources": {"nested": {"foo_step2": {"hooks": "pre-create"}}}}}
    st = stacks.create_stack(CTX, stack_name="nh", environment=env,
                             template={"heat_template_version": "2014-10-16",
                                       "resources": {"nested": {"type": "nested.yaml"}}},
                             files={"nested.yaml": yaml.safe_dump(TEMPLATE)})
    rec.run_all()
    child_id = rows(st.id)["nested"].physical_resource_id
    assert _reasons(child_id, "foo_step2") == [
        ("INIT_COMPLETE", "CREATE paused until Hook pre-create is cleared")]
    from app.services import resources
    view, _, _ = resources.get_resource(CTX, stacks.get_by_id(CTX, st.id), "nested")
    assert view.nested_stack[1] == child_id
    signals.signal(CTX, stacks.get_by_id(CTX, child_id), "foo_step2", {"unset_hook": "pre-create"})
    rec.run_all()
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
