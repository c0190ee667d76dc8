"""Keystone mode: the CFN API enforces Heat's ``cloudformation:<Action>`` policy rules
(``heat/policies/cloudformation.py``) through :mod:`app.auth.policy` with the credentials of the
EC2-validated token, refusing as heat-api-cfn's ``StackController._enforce`` does: AWS's
``AccessDenied`` (403) ``User is not authorized to perform action:Action <A> not allowed for
user``, nothing written. The signature check itself is replaced by a context of chosen roles."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import func, select

from app import config
from app.models import Stack, read_session
from tests.integration.cfn.conftest import Answer
from tests.integration.cfn.test_cfn_api import PARAMS, TEMPLATE

PROJECT = "p" * 32


def _stacks() -> int:
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(Stack)).scalar() or 0)


@pytest.fixture()
def ks_cfn(db: config.Settings, monkeypatch: Any) -> Iterator[Callable[..., Any]]:
    """``make(roles, policy_file="")`` → ``call(action, **params)`` against a keystone-mode CFN
    app whose requests carry a token of ``roles`` in ``PROJECT``. Stack trusts are recorded
    instead of asked of Keystone."""
    from app.auth import policy, trusts
    from app.cfn import create_app, signing
    from app.context import RequestContext
    from tests.integration.cfn.conftest import sign

    trusts_made: list[str] = []
    monkeypatch.setattr(trusts, "create_for_stack",
                        lambda s, ctx, stack_id, settings: trusts_made.append(stack_id))

    def make(roles: tuple[str, ...], policy_file: str = "") -> Callable[..., Answer]:
        settings = db.replace(auth_strategy="keystone", policy_file=policy_file,
                             auth_encryption_key=Fernet.generate_key().decode())
        client = create_app(settings).test_client()
        monkeypatch.setattr(signing, "authenticate", lambda *a, **k: RequestContext(
            tenant_id=PROJECT, project_id=PROJECT, user_id="u1", username="u1", roles=roles,
            auth_token="tok", user_domain_id="default", project_domain_id="default"))

        def call(action: str, **params: str) -> Answer:
            body, headers = sign({"Version": "2010-05-15", "Action": action, **params})
            return Answer(client.post("/v1/", data=body, headers=headers))
        return call

    policy.reset()
    yield make
    policy.reset()


def _denied(ans: Answer, action: str) -> None:
    assert ans.status == 403, ans.data
    assert ans.code == "AccessDenied"
    assert ans.text("Error/Type") == "Sender"
    assert ans.text("Error/Message") == (
        f"User is not authorized to perform action:Action {action} not allowed for user")


def test_a_reader_lists_and_describes_but_may_not_create(ks_cfn: Any) -> None:
    reader = ks_cfn(("reader",))
    listed = reader("ListStacks")
    assert listed.status == 200 and listed.root.tag == "ListStacksResponse"
    assert reader("ValidateTemplate", TemplateBody=TEMPLATE).status == 200
    _denied(reader("CreateStack", StackName="s1", TemplateBody=TEMPLATE, **PARAMS),
            "CreateStack")
    assert _stacks() == 0
    for action in ("DeleteStack", "UpdateStack", "CancelUpdateStack"):
        _denied(reader(action, StackName="s1"), action)


def test_a_member_creates_and_the_reader_sees_it(ks_cfn: Any) -> None:
    member = ks_cfn(("member", "reader"))
    created = member("CreateStack", StackName="s1", TemplateBody=TEMPLATE, **PARAMS)
    assert created.status == 200, created.data
    arn = created.text("CreateStackResult/StackId")
    assert arn is not None and arn.split(":")[4] == PROJECT
    assert _stacks() == 1
    reader = ks_cfn(("reader",))
    shown = reader("DescribeStacks", StackName="s1")
    assert shown.text("DescribeStacksResult/Stacks/member/StackStatus") == "CREATE_COMPLETE"
    # a member without reader (no implied roles in this token) is no reader: Heat's rules
    # name the roles, Keystone's role inference gives a member its reader role
    assert ks_cfn(("member",))("ListStacks").code == "AccessDenied"


def test_a_stack_user_may_only_describe_a_resource(ks_cfn: Any) -> None:
    ks_cfn(("member", "reader"))("CreateStack", StackName="s1", TemplateBody=TEMPLATE,
                                 **PARAMS)
    user = ks_cfn(("heat_stack_user",))
    found = user("DescribeStackResource", StackName="s1", LogicalResourceId="Secret")
    assert found.status == 200, found.data
    assert found.text("DescribeStackResourceResult/StackResourceDetail/LogicalResourceId") \
        == "Secret"
    for action, params in (("ListStacks", {}), ("DescribeStacks", {"StackName": "s1"}),
                           ("DescribeStackResources", {"StackName": "s1"}),
                           ("ListStackResources", {"StackName": "s1"}),
                           ("DescribeStackEvents", {"StackName": "s1"}),
                           ("GetTemplate", {"StackName": "s1"}),
                           ("ValidateTemplate", {"TemplateBody": TEMPLATE}),
                           ("DeleteStack", {"StackName": "s1"}),
                           ("CreateStack", {"StackName": "s2", "TemplateBody": TEMPLATE})):
        _denied(user(action, **params), action)
    assert _stacks() == 1


def test_an_operators_policy_file_overrides_a_cloudformation_rule(ks_cfn: Any,
                                                                   tmp_path: Any) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text('"cloudformation:ListStacks": "role:member and project_id:%(project_id)s"\n'
                    '"cloudformation:CreateStack": "!"\n')
    reader = ks_cfn(("reader",), policy_file=str(path))
    _denied(reader("ListStacks"), "ListStacks")
    assert reader("DescribeStacks").status == 200  # the rules not overridden stay Heat's
    member = ks_cfn(("member", "reader"), policy_file=str(path))
    assert member("ListStacks").status == 200
    _denied(member("CreateStack", StackName="s1", TemplateBody=TEMPLATE, **PARAMS),
            "CreateStack")
    assert _stacks() == 0


def test_noauth_is_not_policed(call: Any) -> None:
    """noauth acts as the default user (admin) and no policy applies, as before."""
    assert call("ListStacks").status == 200
