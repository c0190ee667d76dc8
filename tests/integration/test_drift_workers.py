"""Drift detection as a Celery job on real worker processes (PostgreSQL, Redis, the sandbox):
the detection is recorded IN_PROGRESS by the request and completed by a worker; an untouched
stack is IN_SYNC, a rule added out of band makes it DRIFTED, and the revert's update, run by
the workers, brings it back IN_SYNC."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.context import RequestContext
from app.services import drift, drift_revert, stacks, updates
from tests.fixtures.stacks import final, rows, wait_for
from tests.sandbox.conftest import SandboxHandle, connect, start_sandbox

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="admin")  # a project the sandbox knows


@pytest.fixture()
def sandbox() -> Iterator[SandboxHandle]:
    handle = start_sandbox()
    yield handle
    handle.server.shutdown()


def _finished(st: Any, names: list[str] | None = None) -> dict[str, Any]:
    started = drift.start(CTX, st, names)
    assert started["status"] in ("DETECTION_IN_PROGRESS", "DETECTION_COMPLETE")

    def ended() -> dict[str, Any] | None:
        found = drift.get(CTX, st, started["id"])
        return found if found["status"] != "DETECTION_IN_PROGRESS" else None
    return dict(wait_for(ended, what="the drift detection"))


def test_drift_detection_runs_on_workers(cloud_workers: Any,
                                         sandbox: SandboxHandle) -> None:
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "sg": {"type": "OS::Neutron::SecurityGroup", "properties": {
            "rules": [{"protocol": "tcp", "port_range_min": 443, "port_range_max": 443}]}},
        "v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
    st = final(CTX, stacks.create_stack(CTX, stack_name="wdrift", template=tmpl).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    try:
        first = _finished(st)
        assert (first["status"], first["stack_drift_status"]) == ("DETECTION_COMPLETE",
                                                                  "IN_SYNC"), first
        connect(sandbox).network.create_security_group_rule(
            security_group_id=rows(st.id)["sg"].physical_resource_id, direction="ingress",
            protocol="icmp")
        second = _finished(st)
        assert second["stack_drift_status"] == "DRIFTED"
        sg = next(r for r in second["resources"] if r["resource_name"] == "sg")
        assert [d["difference_type"] for d in sg["property_differences"]] == ["ADD"]
        plan = drift_revert.revert(CTX, st, second["id"])
        assert [e["path"] for e in plan["resource_changes"]["updated"]] == ["sg"]
        reverted = final(CTX, st.id)
        assert reverted.stack_status == "UPDATE_COMPLETE", (reverted.status_reason
                                                            + cloud_workers.logs())
        assert _finished(st)["stack_drift_status"] == "IN_SYNC"
        only = _finished(st, ["sg"])  # the names travel to the worker with the job
        assert [r["resource_name"] for r in only["resources"]] == ["sg"]
    finally:
        stacks.delete_stack(CTX, st.name, st.id)
        final(CTX, st.id)


def test_update_right_after_a_revert_keeps_the_recreated_volume(
        cloud_workers: Any, sandbox: SandboxHandle) -> None:
    """A volume deleted out of band is created again by the revert; an update arriving while
    that create runs supersedes the revert (Heat convergence: the newest traversal wins) and
    ends with the row holding a live volume — never the deleted one's id, which a FAILED
    resource's replacement must not be restored to (Heat replaces a FAILED resource)."""
    tmpl = {"heat_template_version": "2018-08-31",
            "parameters": {"label": {"type": "string", "default": "a"}},
            "resources": {
                "volume": {"type": "OS::Cinder::Volume", "properties": {"size": 1,
                                                                         "name": "data"}},
                "v": {"type": "OS::Heat::Value", "properties": {
                    "value": {"get_param": "label"}}}}}
    st = final(CTX, stacks.create_stack(CTX, stack_name="wrevupd", template=tmpl).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    behaviour = sandbox.app.extensions["sandbox"].behaviour
    cinder = connect(sandbox).block_storage
    old = rows(st.id)["volume"].physical_resource_id
    try:
        cinder.delete_volume(old)
        wait_for(lambda: cinder.find_volume(old) is None, what="the volume gone")
        found = _finished(st)
        assert [r["drift_status"] for r in found["resources"]
                if r["resource_name"] == "volume"] == ["DELETED"]
        behaviour.configure(delays={"volume_create": 3.0})
        drift_revert.revert(CTX, st, found["id"])
        wait_for(lambda: rows(st.id)["volume"].physical_resource_id not in (None, old),
                 what="the revert's new volume")
        updates.update_stack(CTX, st.name, st.id, existing=True, parameters={"label": "b"})
        done = final(CTX, st.id)
        assert done.stack_status == "UPDATE_COMPLETE", done.status_reason + cloud_workers.logs()
        now = rows(st.id)["volume"].physical_resource_id
        assert now != old
        assert cinder.get_volume(now).status == "available"
        assert rows(st.id)["v"].status == "COMPLETE"
    finally:
        behaviour.configure(delays={"volume_create": 0.3})
        stacks.delete_stack(CTX, st.name, st.id)
        final(CTX, st.id)
