"""The stack policy grammar and decision (pure): AWS's default deny, explicit deny wins,
NotAction / NotResource, ResourceType patterns and conditions, and malformed documents."""
from __future__ import annotations

import json

import pytest

from app import errors
from app.engine.stack_policy import DELETE, MODIFY, REPLACE, decide, parse

VOLUME = "OS::Cinder::Volume"


def policy(*statements: dict) -> dict:
    return parse({"Statement": [{"Principal": "*", **st} for st in statements]})


def test_default_deny_and_explicit_deny_wins():
    p = policy({"Effect": "Allow", "Action": "Update:*", "Resource": "*"},
               {"Sid": "db", "Effect": "Deny", "Action": REPLACE,
                "Resource": "LogicalResourceId/db*"})
    assert decide(p, MODIFY, "db1", VOLUME).allowed
    verdict = decide(p, REPLACE, "db1", VOLUME)
    assert not verdict.allowed and (verdict.index, verdict.sid) == (1, "db")
    assert decide(p, REPLACE, "web", "OS::Nova::Server").allowed
    only_modify = policy({"Effect": "Allow", "Action": MODIFY, "Resource": "*"})
    none = decide(only_modify, DELETE, "web", "OS::Nova::Server")
    assert not none.allowed and none.index is None and "no statement" in none.statement()


def test_not_action_not_resource_resource_type_and_conditions():
    p = policy({"Effect": "Allow", "NotAction": DELETE, "NotResource": "ResourceType/OS::Cinder::*"})
    assert decide(p, REPLACE, "web", "OS::Nova::Server").allowed
    assert not decide(p, DELETE, "web", "OS::Nova::Server").allowed
    assert not decide(p, MODIFY, "vol", VOLUME).allowed
    cond = policy({"Effect": "Allow", "Action": "Update:*", "Resource": "*",
                   "Condition": {"StringEquals": {"ResourceType": [VOLUME]}}})
    assert decide(cond, REPLACE, "vol", VOLUME).allowed
    assert not decide(cond, REPLACE, "web", "OS::Nova::Server").allowed
    like = policy({"Effect": "Allow", "Action": "Update:*", "Resource": "*",
                   "Condition": {"StringLike": {"ResourceType": "OS::Nova::*"}}})
    assert decide(like, MODIFY, "web", "OS::Nova::Server").allowed


def test_json_text_and_a_single_statement_object():
    doc = {"Statement": {"Effect": "Allow", "Action": "Update:*", "Principal": "*",
                         "Resource": "*"}}
    parsed = parse(json.dumps(doc))
    assert parsed["Statement"] == [doc["Statement"]]


@pytest.mark.parametrize("doc", [
    "[1, 2]", "{", {"Statement": []}, {"Statement": [{"Effect": "Allow", "Resource": "*"}]},
    {"Statement": [{"Effect": "Allow", "Action": "Update:*", "NotAction": MODIFY,
                    "Resource": "*"}]},
    {"Statement": [{"Effect": "Allow", "Action": "Update:*", "Resource": "*",
                    "Principal": "arn:aws:iam::1:root"}]},
    {"Statement": [{"Effect": "Allow", "Action": "Update:*", "Resource": "*", "Extra": 1}]},
    {"Statement": [{"Effect": "Allow", "Action": [], "Resource": "*"}]},
    {"Statement": [{"Effect": "Allow", "Action": "Update:*", "Resource": "*",
                    "Condition": {"StringEquals": {"LogicalResourceId": "x"}}}]},
])
def test_malformed_documents_are_bad_requests(doc):
    with pytest.raises(errors.BadRequest) as err:
        parse(doc)
    assert err.value.heat_type == "InvalidStackPolicy"
    assert str(err.value).startswith("Invalid stack policy: ")
