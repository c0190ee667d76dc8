"""A nested resource's finished step reads its child stack once: the completion check's read
serves the reference id and the attributes (Heat's ``get_reference_id`` / outputs of the
child), and a check that finds the child still running reads it again next time."""
from __future__ import annotations

from app.context import RequestContext
from app.convergence.nested import stacks as nested
from app.convergence.store.rows import ResourceRow
from app.models import Resource, Stack, read_session
from app.services import stacks
from tests.fixtures.stacks import final

CTX = RequestContext(tenant_id="admin")
MEMBER = ("heat_template_version: 2018-08-31\nresources:\n  n: {type: OS::Heat::None}\n"
          "outputs:\n  out: {value: {get_resource: n}}\n")


def test_the_reference_and_attributes_of_a_finished_child_cost_no_read(db, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="p", files={"member.yaml": MEMBER}, template={
        "heat_template_version": "2018-08-31", "resources": {"m": {"type": "member.yaml"}}})
    st = final(CTX, st.id)
    with read_session() as s:
        parent = s.get(Stack, st.id)
        row = s.query(Resource).filter_by(stack_id=st.id, name="m").one()
        driver = nested.NestedResource(parent, ResourceRow.of(row), {})
    expected_ref = driver.get_reference_id()
    assert expected_ref.startswith("arn:openstack:heat::admin:stacks/p-m-")
    assert driver.check_create_complete(None) is True
    reads = []
    real = nested.read_session

    def counted():  # type: ignore[no-untyped-def]
        reads.append(1)
        return real()

    monkeypatch.setattr(nested, "read_session", counted)
    assert driver.get_reference_id() == expected_ref
    assert driver.attr_data({("out",)})["paths"]  # the child's output, read before
    assert reads == []
    fresh = nested.NestedResource(parent, ResourceRow.of(row), {})
    fresh.get_reference_id()  # no completion check in this step: its own read
    assert reads == [1]
