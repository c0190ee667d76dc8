"""``external_id`` (HOT 2016-10-14 and later) through the engine, as Heat: the resource adopts
the physical resource (its reference id is the external id, CHECK_COMPLETE), is retained when
the stack is deleted, and an update may not add, remove or change it ("Update to property
external_id of ... is not supported"); an update that keeps it leaves the resource as it is."""
from __future__ import annotations

from app.context import RequestContext
from app.services import stacks, updates
from tests.fixtures.stacks import rows

CTX = RequestContext(tenant_id="external")
PLAIN = {"heat_template_version": "2016-10-14",
         "resources": {"test1": {"type": "OS::Heat::TestResource"}}}
EXTERNAL = {"heat_template_version": "2016-10-14",
            "resources": {"test1": {"type": "OS::Heat::TestResource", "external_id": "foobar"}},
            "outputs": {"str": {"value": {"get_resource": "test1"}}}}


def _update(rec, st, template):
    updates.update_stack(CTX, st.name, st.id, template=template)
    rec.run_all()
    return stacks.get_by_id(CTX, st.id)


def test_external_id_adopts_keeps_and_refuses_changes(rec):
    st = stacks.create_stack(CTX, stack_name="ext", template=EXTERNAL)
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    row = rows(st.id)["test1"]
    assert row.physical_resource_id == "foobar" and row.action == "CHECK"
    st = _update(rec, st, EXTERNAL)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert rows(st.id)["test1"].physical_resource_id == "foobar"
    st = _update(rec, st, PLAIN)
    assert st.stack_status == "UPDATE_FAILED"
    assert ("Update to property external_id of test1 (OS::Heat::TestResource) is not supported"
            in st.status_reason), st.status_reason


def test_adding_an_external_id_fails_the_update(rec):
    st = stacks.create_stack(CTX, stack_name="plain", template=PLAIN)
    rec.run_all()
    st = _update(rec, stacks.get_by_id(CTX, st.id), EXTERNAL)
    assert st.stack_status == "UPDATE_FAILED"
    assert "NotSupported: resources.test1: Update to property external_id" in st.status_reason
