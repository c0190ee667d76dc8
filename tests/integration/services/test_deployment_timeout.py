"""A software deployment nothing ever signals (its server runs no agent) fails at the stack's
timeout with Heat's reason: Heat's SoftwareDeployment has no timeout of its own (no such
property in software_deployment.py), so the stack's applies and check_resource's
``_handle_stack_timeout`` fails the stack, and the resource, with "Timed out" — whichever of
beat's timeout sweep and the waiting node's safety poll comes first; the deployment record turns
FAILED "Deployment cancelled." (Heat's ``handle_create_cancel``). A nested stack has its
parent's timeout (Heat's ``create_with_template``), so a deployment group's members fail too."""
from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from app import convergence
from app.context import RequestContext
from app.models import Stack, session, utcnow
from app.services import software, stacks
from tests.fixtures.stacks import rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.test_wait import Timers

CTX = RequestContext(tenant_id="sdto")
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {
    "config": {"type": "OS::Heat::SoftwareConfig",
               "properties": {"group": "script", "config": "#!/bin/sh\ntrue\n"}},
    "server": {"type": "OS::Heat::DeployedServer"},
    "deployment": {"type": "OS::Heat::SoftwareDeployment", "properties": {
        "config": {"get_resource": "config"}, "server": {"get_resource": "server"}}}}}


@pytest.fixture()
def timers(db) -> Timers:
    t = Timers()
    return use_dispatcher(t)


def _parked(t: Timers) -> Stack:
    st = stacks.create_stack(CTX, stack_name="unsignalled", template=TEMPLATE, timeout_mins=1)
    while t.queue and not t.safety:
        convergence.check_resource(*t.queue.pop(0))
    assert rows(st.id)["deployment"].status == "IN_PROGRESS"
    with session() as s:  # the stack's minute is over
        s.execute(update(Stack).where(Stack.id == st.id).values(
            traversal_started_at=utcnow() - dt.timedelta(minutes=2)))
    return st


@pytest.mark.parametrize("first", ["safety poll", "timeout sweep"])
def test_an_unsignalled_deployment_fails_at_the_stack_timeout(timers, first):
    st = _parked(timers)
    if first == "safety poll":
        convergence.check_resource(*timers.safety[0][:4])
    else:
        assert convergence.check_timeouts() == 1
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("CREATE_FAILED", "Timed out")
    deployment = rows(st.id)["deployment"]
    assert (deployment.action, deployment.status, deployment.status_reason) == (
        "CREATE", "FAILED", "Timed out")
    assert deployment.engine_id is None
    # Heat's handle_create_cancel: the deployment record the server would read is FAILED too
    record = software.show_deployment(CTX, deployment.physical_resource_id)
    assert (record["status"], record["status_reason"]) == ("FAILED", "Deployment cancelled.")


def test_a_deployment_groups_members_fail_with_the_stack(timers):
    template = {**TEMPLATE, "resources": {
        **{k: v for k, v in TEMPLATE["resources"].items() if k != "deployment"},
        "deployments": {"type": "OS::Heat::SoftwareDeploymentGroup", "properties": {
            "config": {"get_resource": "config"},
            "servers": {"0": {"get_resource": "server"}}}}}}
    st = stacks.create_stack(CTX, stack_name="unsignalled-group", template=template,
                             timeout_mins=1)
    while timers.queue:
        convergence.check_resource(*timers.queue.pop(0))
    child_id = rows(st.id)["deployments"].physical_resource_id
    child = stacks.get_by_id(CTX, child_id)
    assert child.timeout_mins == 1   # the parent's
    member = rows(child_id)["0"]
    assert member.status == "IN_PROGRESS"
    with session() as s:  # both minutes are over
        s.execute(update(Stack).where(Stack.id.in_([st.id, child_id])).values(
            traversal_started_at=utcnow() - dt.timedelta(minutes=2)))
    convergence.check_timeouts()
    record = software.show_deployment(CTX, member.physical_resource_id)
    assert (record["status"], record["status_reason"]) == ("FAILED", "Deployment cancelled.")
