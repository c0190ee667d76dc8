"""Stack actions with real Celery worker processes, real Redis and real PostgreSQL:
cancel_without_rollback in the middle of an update (Heat's stop_traversal: UPDATE_FAILED
"Stack UPDATE cancelled" at once, the resource already updating finishes, nothing after it
starts, no rollback), cancel_update in the middle of an update (rolled back to the previous
template), and suspend / resume of a sandbox server (Nova's status really changes)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app import clients, config
from app.context import RequestContext
from app.services import stack_actions, stacks, updates
from tests.fixtures.stacks import events, final, rows, wait_for
from tests.integration.conftest import Workers, module_engine, worker_env
from tests.sandbox.conftest import SandboxHandle, connect, start_sandbox

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest-actions")


def chain(version: str, wait: float) -> dict[str, Any]:
    """a -> b -> c TestResources; ``a`` takes ``wait`` seconds per action (polled)."""
    return {"heat_template_version": "2018-08-31", "resources": {
        "a": {"type": "OS::Heat::TestResource",
              "properties": {"value": f"a-{version}", "wait_secs": wait}},
        "b": {"type": "OS::Heat::TestResource",
              "properties": {"value": {"list_join": ["+", [{"get_attr": ["a", "output"]},
                                                           f"b-{version}"]]}}},
        "c": {"type": "OS::Heat::TestResource",
              "properties": {"value": {"list_join": ["+", [{"get_attr": ["b", "output"]},
                                                           f"c-{version}"]]}}}}}


@pytest.fixture(scope="module")
def engine_settings(pg_template: str, redis_url: str,
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[config.Settings]:
    """One database for the module: every test works on a stack of its own."""
    with module_engine(pg_template, redis_url, tmp_path_factory.mktemp("actions")) as s:
        yield s


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    handle = start_sandbox(delays={"server_build": 0.3, "server_action": 0.5,
                                   "server_delete": 0.1})
    yield handle
    handle.server.shutdown()


@pytest.fixture(scope="module")
def workers(engine_settings: config.Settings, sandbox: SandboxHandle,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    """Two real workers and beat for the module (no test here kills one), their cloud the
    sandbox (only the server test makes cloud calls)."""
    w = Workers(dict(worker_env(engine_settings), STOKER_CLOUD_AUTH_URL=sandbox.auth_url),
                tmp_path_factory.mktemp("actions-workers"))
    w.start(2)  # (a start that fails stops what it started)
    try:
        w.start_beat()
        yield w
    finally:
        w.stop()


def _state(stack_id: str, name: str) -> tuple[str, str]:
    r = rows(stack_id)[name]
    return r.action, r.status


def test_cancel_without_rollback_mid_update_lets_the_running_update_finish(workers):
    st = stacks.create_stack(CTX, stack_name="stop", template=chain("v1", 0),
                             disable_rollback=False)
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    updates.update_stack(CTX, st.name, st.id, template=chain("v2", 4))
    wait_for(lambda: _state(st.id, "a") == ("UPDATE", "IN_PROGRESS"), 60, 0.05,
             "a's update to start")
    stack_actions.cancel_update(CTX, st.name, st.id, rollback=False)
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("UPDATE_FAILED", "Stack UPDATE cancelled")
    # the update already running is not cut short: it finishes on the workers
    wait_for(lambda: _state(st.id, "a") == ("UPDATE", "COMPLETE"), 60, 0.1,
             "a's update to finish" + workers.logs())
    r = rows(st.id)
    assert r["a"].rsrc_data["value"] == "a-v2"
    # nothing after it started: b and c keep their create, and no rollback came
    assert (r["b"].action, r["b"].status, r["b"].rsrc_data["value"]) == \
        ("CREATE", "COMPLETE", "a-v1+b-v1")
    assert (r["c"].action, r["c"].status) == ("CREATE", "COMPLETE")
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("UPDATE_FAILED", "Stack UPDATE cancelled")
    stack_events = [(e.action, e.status, e.status_reason) for e in events(st.id)
                    if e.resource_name == st.name]
    assert stack_events[-1] == ("UPDATE", "FAILED", "Stack UPDATE cancelled")
    assert not [e for e in stack_events if e[0] == "ROLLBACK"]
    # the next update takes over from there
    updates.update_stack(CTX, st.name, st.id, template=chain("v3", 0))
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert rows(st.id)["c"].rsrc_data["value"] == "a-v3+b-v3+c-v3"


def test_cancel_update_mid_update_rolls_back_on_workers(workers):
    st = stacks.create_stack(CTX, stack_name="cancel", template=chain("v1", 0))
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    updates.update_stack(CTX, st.name, st.id, template=chain("v2", 3))
    wait_for(lambda: _state(st.id, "a") == ("UPDATE", "IN_PROGRESS"), 60, 0.05,
             "a's update to start")
    stack_actions.cancel_update(CTX, st.name, st.id)
    st = final(CTX, st.id, 240)
    assert st.stack_status == "ROLLBACK_COMPLETE", st.status_reason + workers.logs()
    r = rows(st.id)
    assert r["a"].rsrc_data["value"] == "a-v1"
    assert r["c"].rsrc_data["value"] == "a-v1+b-v1+c-v1"


@pytest.fixture()
def cloud_workers(engine_settings: config.Settings, sandbox: SandboxHandle,
                  workers: Workers) -> Iterator[Workers]:
    """The module's workers, whose cloud is the sandbox, with this process's settings
    pointing at it too."""
    config.set_current(engine_settings.replace(cloud_auth_url=sandbox.auth_url))
    clients.reset_cache()
    yield workers
    clients.reset_cache()


def test_suspend_and_resume_a_sandbox_server_on_workers(cloud_workers, sandbox):
    ctx = RequestContext(tenant_id="admin")  # a project the sandbox knows
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "server": {"type": "OS::Nova::Server", "properties": {
            "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}},
        "after": {"type": "OS::Heat::Value", "depends_on": ["server"],
                  "properties": {"value": "x"}}}}
    st = stacks.create_stack(ctx, stack_name="sus", template=tmpl)
    st = final(ctx, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    server_id = rows(st.id)["server"].physical_resource_id
    nova = connect(sandbox).compute
    stack_actions.suspend(ctx, st.name, st.id)
    st = final(ctx, st.id)
    assert st.stack_status == "SUSPEND_COMPLETE", st.status_reason + cloud_workers.logs()
    assert nova.get_server(server_id).status == "SUSPENDED"
    order = [e.resource_name for e in events(st.id) if e.action == "SUSPEND"
             and e.status == "COMPLETE"]
    assert order == ["after", "server", "sus"]  # dependents first
    stack_actions.resume(ctx, st.name, st.id)
    st = final(ctx, st.id)
    assert st.stack_status == "RESUME_COMPLETE", st.status_reason + cloud_workers.logs()
    assert nova.get_server(server_id).status == "ACTIVE"
    stacks.delete_stack(ctx, st.name, st.id)
    assert final(ctx, st.id).stack_status == "DELETE_COMPLETE"


def test_suspend_and_check_reach_a_nested_stack_on_workers(workers):
    child = {"heat_template_version": "2018-08-31", "resources": {
        "n": {"type": "OS::Heat::None"}, "m": {"type": "OS::Heat::None", "depends_on": ["n"]}}}
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "inner": {"type": "child.yaml"}, "after": {"type": "OS::Heat::None",
                                                   "depends_on": ["inner"]}}}
    import json
    st = stacks.create_stack(CTX, stack_name="nest-acts", template=tmpl,
                             files={"child.yaml": json.dumps(child)})
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    child_id = rows(st.id)["inner"].physical_resource_id
    stack_actions.suspend(CTX, st.name, st.id)
    st = final(CTX, st.id)
    assert st.stack_status == "SUSPEND_COMPLETE", st.status_reason + workers.logs()
    assert stacks.get_by_id(CTX, child_id).stack_status == "SUSPEND_COMPLETE"
    assert {(r.action, r.status) for r in rows(child_id).values()} == {("SUSPEND", "COMPLETE")}
    stack_actions.check(CTX, st.name, st.id)
    st = final(CTX, st.id)
    assert st.stack_status == "CHECK_COMPLETE", st.status_reason + workers.logs()
    assert stacks.get_by_id(CTX, child_id).stack_status == "CHECK_COMPLETE"


def test_snapshot_and_restore_on_workers(workers):
    from app.services import snapshots
    tmpl = {"heat_template_version": "2018-08-31",
            "parameters": {"len": {"type": "number", "default": 8}},
            "resources": {"rs": {"type": "OS::Heat::RandomString",
                                 "properties": {"length": {"get_param": "len"}}}}}
    st = final(CTX, stacks.create_stack(CTX, stack_name="snap-w", template=tmpl).id)
    value = rows(st.id)["rs"].rsrc_data["value"]
    snap = snapshots.create_snapshot(CTX, st.name, st.id, "w")
    st = final(CTX, st.id)
    assert st.stack_status == "SNAPSHOT_COMPLETE", st.status_reason + workers.logs()
    shown = snapshots.show_snapshot(CTX, st.name, st.id, snap["id"])
    assert (shown["status"], shown["status_reason"]) == ("COMPLETE",
                                                         "Stack SNAPSHOT completed successfully")
    updates.update_stack(CTX, st.name, st.id, template=tmpl, parameters={"len": 16})
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert len(rows(st.id)["rs"].rsrc_data["value"]) == 16
    snapshots.restore_snapshot(CTX, st.name, st.id, snap["id"])
    st = final(CTX, st.id)
    assert st.stack_status == "RESTORE_COMPLETE", st.status_reason + workers.logs()
    assert rows(st.id)["rs"].rsrc_data["value"] == value  # the snapshot's, not a new one


def test_nested_snapshot_restore_abandon_and_adopt_on_workers(workers):
    """A template resource and a group on real workers: the snapshot reaches the child stacks,
    restore brings a child's RandomString back (waking the parent's node from the child's
    RESTORE), and an abandon's data adopts both children (their ADOPT traversals) with every
    physical id and value kept."""
    import json

    from app.services import snapshots, stack_abandon
    child = {"heat_template_version": "2018-08-31",
             "parameters": {"len": {"type": "number"}},
             "resources": {"rs": {"type": "OS::Heat::RandomString",
                                  "properties": {"length": {"get_param": "len"}}}}}
    tmpl = {"heat_template_version": "2018-08-31",
            "parameters": {"len": {"type": "number", "default": 8}},
            "resources": {
                "inner": {"type": "child.yaml", "properties": {"len": {"get_param": "len"}}},
                "group": {"type": "OS::Heat::ResourceGroup", "properties": {
                    "count": 2, "resource_def": {"type": "OS::Heat::RandomString"}}}}}
    files = {"child.yaml": json.dumps(child)}
    st = final(CTX, stacks.create_stack(CTX, stack_name="nest-snap", template=tmpl,
                                        files=files).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    inner = rows(st.id)["inner"].physical_resource_id
    value = rows(inner)["rs"].rsrc_data["value"]
    snap = snapshots.create_snapshot(CTX, st.name, st.id, "deep")
    st = final(CTX, st.id)
    assert st.stack_status == "SNAPSHOT_COMPLETE", st.status_reason + workers.logs()
    assert stacks.get_by_id(CTX, inner).stack_status == "SNAPSHOT_COMPLETE"
    shown = snapshots.show_snapshot(CTX, st.name, st.id, snap["id"])
    assert shown["data"]["resources"]["inner"]["resources"]["rs"]["resource_data"][
        "value"] == value
    updates.update_stack(CTX, st.name, st.id, template=tmpl, files=files,
                         parameters={"len": 16})
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert len(rows(inner)["rs"].rsrc_data["value"]) == 16
    snapshots.restore_snapshot(CTX, st.name, st.id, snap["id"])
    st = final(CTX, st.id)
    assert st.stack_status == "RESTORE_COMPLETE", st.status_reason + workers.logs()
    assert stacks.get_by_id(CTX, inner).stack_status == "RESTORE_COMPLETE"
    assert rows(inner)["rs"].rsrc_data["value"] == value

    group = rows(st.id)["group"].physical_resource_id
    before = {n: (r.physical_resource_id, r.rsrc_data["value"]) for n, r in rows(group).items()}
    previous = config.get()
    config.set_current(previous.replace(enable_stack_abandon=True, enable_stack_adopt=True))
    try:
        data = stack_abandon.abandon_stack(CTX, st.name, st.id)
        assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"
        adopted = stack_abandon.adopt_stack(CTX, data, stack_name="nest-adopted",
                                            template=data["template"], files=data["files"])
    finally:
        config.set_current(previous)
    adopted = final(CTX, adopted.id)
    assert adopted.stack_status == "ADOPT_COMPLETE", adopted.status_reason + workers.logs()
    kids = {n: r.physical_resource_id for n, r in rows(adopted.id).items()}
    assert rows(kids["inner"])["rs"].rsrc_data["value"] == value
    assert {n: (r.physical_resource_id, r.rsrc_data["value"])
            for n, r in rows(kids["group"]).items()} == before
    assert {(r.action, r.status) for r in rows(kids["group"]).values()} == {
        ("ADOPT", "COMPLETE")}
