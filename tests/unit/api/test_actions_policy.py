"""Keystone mode: each stack action is checked against its own Heat rule too
(``actions:suspend``... as heat-api's registered_identified_stack on each handler): a reader may
check a stack but not suspend it; a member may do both."""
from __future__ import annotations

import flask
import pytest
from flask import g

from app import auth, config
from app.api import actions
from app.auth import policy

PROJECT = "a" * 32


def _headers(roles: str) -> dict[str, str]:
    return {"X-Identity-Status": "Confirmed", "X-User-Id": "u" * 32, "X-User-Name": "alice",
            "X-Project-Id": PROJECT, "X-Roles": roles, "X-Auth-Token": "tok",
            "X-User-Domain-Id": "default", "X-Project-Domain-Id": "default"}


@pytest.fixture()
def ks(tmp_path):  # type: ignore[no-untyped-def]
    policy.reset()
    yield config.load({}, data_dir=str(tmp_path), auth_strategy="keystone")
    policy.reset()


@pytest.mark.parametrize(("roles", "action", "allowed"), [
    ("reader", "check", True), ("reader", "suspend", False), ("reader", "cancel_update", False),
    ("member,reader", "suspend", True), ("member,reader", "cancel_without_rollback", True),
])
def test_each_action_has_its_own_rule(ks, roles, action, allowed):  # type: ignore[no-untyped-def]
    app = flask.Flask("t")
    app.config["STOKER_SETTINGS"] = ks
    with app.test_request_context():
        g.context = auth.context_from_headers(_headers(roles), PROJECT, ks, "req-1")
        if allowed:
            actions._enforce(action)
        else:
            with pytest.raises(policy.AccessDenied):
                actions._enforce(action)
