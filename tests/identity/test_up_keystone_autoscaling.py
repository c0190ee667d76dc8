"""Autoscaling end to end in keystone mode: ``stoker up --auth keystone`` (the sandbox's
Keystone, real workers), ``examples/autoscaling.yaml`` created by the member ``demo`` with a real
token that is revoked at once, so everything deferred — the unauthenticated POSTs to the up
policy's pre-signed ``alarm_url``, the sandbox Aodh's notifications — resizes the group through
the stack's stored trust, in the member's project (Heat's signal_responder.py, scaling_policy.py,
``deferred_auth_method = trusts``):

one server; an unauthenticated POST to ``alarm_url`` -> 2; the same URL with a changed
``Signature`` -> 403 ``SignatureDoesNotMatch`` and still 2; ``PUT /sandbox/metrics`` cpu_util 95
fires the alarm -> 3; another sample (Aodh's ``repeat_actions``, Heat's default true, repeats
the action) leaves 3 (max_size); a POST to the down policy's ``signal_url`` with a fresh user
token removes exactly one server, the oldest; delete completes and the trust is gone. Both
examples run as they are (``autoscaling.yaml`` and ``software-deployment.yaml`` name the network
``private``, the demo project's own as devstack lays it out).
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import requests

from tests.fixtures.procs import Up, stoker_up
from tests.fixtures.stacks import settled_members, wait_for

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "autoscaling.yaml"


@pytest.fixture()
def up() -> Iterator[Up]:
    home = Path(tempfile.mkdtemp(prefix="stk-ksa-"))  # short: the Redis socket path is limited
    try:
        with stoker_up(home, args=("--auth", "keystone")) as running:
            yield running
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _until(what: str, fn: Any, timeout: float = 150) -> Any:
    return wait_for(fn, timeout, 0.5, what)


class Member:
    """The sandbox's ``demo`` member: fresh tokens and heatclients on demand."""

    def __init__(self, up: Up) -> None:
        self.up = up
        self.auth_url = f"http://127.0.0.1:{up.sandbox_port}/identity/v3"

    def session(self, user: str = "demo", project: str = "demo") -> Any:
        from keystoneauth1 import session
        from keystoneauth1.identity import v3
        return session.Session(auth=v3.Password(
            auth_url=self.auth_url, username=user, password="sandbox", user_domain_id="default",
            project_name=project, project_domain_id="default"))

    def heat(self, token: str, project_id: str) -> Any:
        from heatclient import client
        return client.Client("1", endpoint=f"http://127.0.0.1:{self.up.port}/v1/{project_id}",
                             token=token)

    def revoke(self, token: str) -> None:
        resp = requests.delete(f"{self.auth_url}/auth/tokens", timeout=30,
                               headers={"X-Auth-Token": token, "X-Subject-Token": token})
        assert resp.status_code == 204, resp.text


def _members(heat: Any, stack_id: str) -> list[tuple[str, str]] | None:
    """The group's (member name, server id) oldest first once the group has settled."""
    rows = settled_members(heat, stack_id)
    return None if rows is None else [(r.resource_name, r.physical_resource_id) for r in rows]


def _settled_at(heat: Any, stack_id: str, n: int) -> list[tuple[str, str]]:
    return list(_until(f"{n} members", lambda: (m := _members(heat, stack_id)) is not None
                       and len(m) == n and m))


def _size(heat: Any, stack_id: str) -> Any:
    return {o["output_key"]: o["output_value"] for o in heat.stacks.get(stack_id).outputs}["size"]


def test_alarm_driven_scaling_runs_through_the_stacks_trust(up: Up) -> None:
    from keystoneclient.v3 import client
    member = Member(up)
    admin = member.session("admin", "admin")
    kc = client.Client(session=admin)
    demo_project = next(p for p in kc.projects.list() if p.name == "demo")
    demo_user = next(u for u in kc.users.list() if u.name == "demo")
    stoker = next(u for u in kc.users.list() if u.name == "stoker")
    import openstack
    cloud = openstack.connection.Connection(session=admin, region_name="RegionOne")

    # the example as it is: its default network ``private`` is demo's own, as devstack's
    token = member.session().get_token()
    created = member.heat(token, demo_project.id).stacks.create(
        stack_name="scaled", template=EXAMPLE.read_text())
    sid = created["stack"]["id"]
    member.revoke(token)  # nothing below may need the creator's token
    heat = member.heat(member.session().get_token(), demo_project.id)
    stack = _until("the create", lambda: (s := heat.stacks.get(sid)) and
                   not s.stack_status.endswith("IN_PROGRESS") and s)
    assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                      up.log.read_text()[-3000:])
    assert [t.trustee_user_id for t in kc.trusts.list(trustor_user=demo_user.id)] == [stoker.id]
    outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
    (first,) = _settled_at(heat, sid, 1)

    # the pre-signed alarm_url, no token at all
    resp = requests.post(outs["scale_up_url"], timeout=30)
    assert resp.status_code == 200, resp.text
    grown = _settled_at(heat, sid, 2)
    assert grown[0] == first
    for _, server_id in grown:  # made with the trust, in the member's project
        assert cloud.compute.get_server(server_id).project_id == demo_project.id

    # a changed Signature: refused, nothing changes
    parts = urlparse(outs["scale_up_url"])
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query["Signature"] = ("A" if query["Signature"][0] != "A" else "B") + query["Signature"][1:]
    resp = requests.post(parts._replace(query=urlencode(query)).geturl(), timeout=30)
    assert resp.status_code == 403 and "SignatureDoesNotMatch" in resp.text, resp.text
    assert _members(heat, sid) == grown

    # the sandbox's Aodh fires the alarm (its action: the same alarm_url) -> 3
    metrics = f"http://127.0.0.1:{up.sandbox_port}/sandbox/metrics"
    fired = requests.put(metrics, json={"metric": "cpu_util", "value": 95}, timeout=30)
    assert fired.status_code == 200, fired.text
    assert [a["state"] for a in fired.json()["alarms"]] == ["alarm"]
    grown3 = _settled_at(heat, sid, 3)
    assert grown3[:2] == grown
    # the parent's outputs follow once the group's resize step has finished after its child
    _until("size 3", lambda: _size(heat, sid) == 3)

    # another sample repeats the action (repeat_actions); the group is at max_size: still 3
    notified = f"http://127.0.0.1:{up.sandbox_port}/sandbox/notifications"
    requests.put(metrics, json={"metric": "cpu_util", "value": 96}, timeout=30).raise_for_status()
    sent = _until("the repeated notification", lambda: len(
        n := requests.get(notified, timeout=30).json()["notifications"]) == 2 and n)
    assert [n["status"] for n in sent] == [200, 200], sent
    assert _members(heat, sid) == grown3
    assert _size(heat, sid) == 3
    reasons = [e.resource_status_reason for e in heat.events.list(sid, resource_name="scale_up")
               if e.resource_status == "SIGNAL_COMPLETE"]  # Heat: no event for no action
    assert sorted(reasons) == sorted([
        "No signal details provided",
        "alarm state changed from insufficient data to alarm (Transition to alarm due to 1 "
        "samples outside threshold, most recent: 95.0)"]), reasons

    # the down policy's signal_url with a (fresh) user token: exactly one removed, the oldest
    resp = requests.post(outs["scale_down_signal_url"], json={"current": "alarm"}, timeout=30,
                         headers={"X-Auth-Token": member.session().get_token()})
    assert resp.status_code == 200, resp.text
    left = _settled_at(heat, sid, 2)
    assert left == grown3[1:]
    _until("size 2", lambda: _size(heat, sid) == 2)

    heat = member.heat(member.session().get_token(), demo_project.id)
    heat.stacks.delete(sid)
    _until("the delete", lambda: heat.stacks.get(sid).stack_status == "DELETE_COMPLETE", 90)
    assert list(kc.trusts.list(trustor_user=demo_user.id)) == []

    # examples/software-deployment.yaml, as it is (``networks: [{network: private}]``), for demo
    software = member.heat(member.session().get_token(), demo_project.id)
    made = software.stacks.create(stack_name="deployed",
                                  template=EXAMPLE.with_name("software-deployment.yaml").read_text())
    did = made["stack"]["id"]
    done = _until("the deployment", lambda: (s := software.stacks.get(did)) and
                  not s.stack_status.endswith("IN_PROGRESS") and s)
    assert done.stack_status == "CREATE_COMPLETE", (done.stack_status_reason, up.log.read_text()[-3000:])
    assert {o["output_key"]: o["output_value"] for o in done.outputs}["greeting"] == "hello, world"
    software.stacks.delete(did)
    _until("its delete", lambda: software.stacks.get(did).stack_status == "DELETE_COMPLETE", 90)
