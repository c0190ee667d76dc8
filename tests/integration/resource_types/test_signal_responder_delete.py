"""A scaling policy is a stack user (Heat's ``SignalResponder``: ``handle_create`` makes the
user and its keypair, ``handle_delete`` forgets the signal URLs then ``StackUser._delete_user``
deletes the keypair and the user): one removed by an update takes its user with it, not at
stack delete. Noauth's local stack users, recorded (SQLite, in-process dispatcher)."""
from __future__ import annotations

from typing import Any

import pytest

from app.clients.stack_users import LocalStackUsers
from app.context import RequestContext
from app.services import stacks, updates

CTX = RequestContext(tenant_id="sr")


@pytest.fixture()
def users(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``made``: user name -> id; ``deleted``: user ids; ``keypairs_deleted``: user ids."""
    record: dict[str, Any] = {"made": {}, "deleted": [], "keypairs_deleted": []}
    create = LocalStackUsers.create_user

    def create_user(self: Any, name: str, project_id: str, password: Any = None) -> str:
        user_id = create(self, name, project_id, password)
        record["made"][name] = user_id
        return user_id

    monkeypatch.setattr(LocalStackUsers, "create_user", create_user)
    monkeypatch.setattr(LocalStackUsers, "delete_user",
                        lambda self, user_id, project: record["deleted"].append(user_id))
    monkeypatch.setattr(LocalStackUsers, "delete_keypair",
                        lambda self, user_id, project, cred: record["keypairs_deleted"].append(
                            user_id))
    return record


def _template(with_policies: bool) -> dict[str, Any]:
    resources: dict[str, Any] = {
        "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": 1, "max_size": 2,
            "resource": {"type": "OS::Heat::Value", "properties": {"value": "m"}}}}}
    if with_policies:
        resources["up"] = {"type": "OS::Heat::ScalingPolicy", "properties": {
            "auto_scaling_group_id": {"get_resource": "asg"},
            "adjustment_type": "change_in_capacity", "scaling_adjustment": 1}}
        resources["aws_up"] = {"type": "AWS::AutoScaling::ScalingPolicy", "properties": {
            "AutoScalingGroupName": {"get_resource": "asg"},
            "AdjustmentType": "ChangeInCapacity", "ScalingAdjustment": 1}}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def test_a_policy_removed_by_an_update_deletes_its_stack_user(db, users):
    st = stacks.create_stack(CTX, stack_name="sr1", template=_template(True))
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    made = dict(users["made"])
    assert sorted(n.split("-")[1] for n in made) == ["aws_up", "up"]
    assert users["deleted"] == []

    st = updates.update_stack(CTX, st.name, st.id, template=_template(False))
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert sorted(users["deleted"]) == sorted(made.values())
    assert sorted(users["keypairs_deleted"]) == sorted(made.values())  # the keypair first
