"""Heat's policy with oslo.policy: every route has Heat's rule, and the defaults give Heat's
personas (heat/policies/*.py): readers list and show, members also change, admins list across
projects, heat_stack_user only looks up, reads metadata and signals; an operator's policy file
overrides; a broken one is a start-up error."""
from __future__ import annotations

import pytest

from app import config
from app.auth import policy, routes
from app.auth.policy_rules import defaults

PROJECT = "a" * 32
OTHER = "b" * 32


@pytest.fixture()
def ks_settings(tmp_path):
    policy.reset()
    yield config.load({}, data_dir=str(tmp_path), auth_strategy="keystone")
    policy.reset()


def creds(*roles: str, project: str = PROJECT) -> dict:
    return {"user_id": "u" * 32, "project_id": project, "roles": list(roles),
            "is_admin_project": True, "system_scope": None}


def test_every_tenant_route_and_method_has_a_registered_heat_rule():
    from app.api import create_app
    app = create_app(config.load({}, database_url="sqlite://", always_eager=True))
    names = {r.name for r in defaults()}
    missing = []
    for rule in app.url_map.iter_rules():
        if "<tenant_id>" not in rule.rule:
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            action = routes.action_for(rule.rule, method, {}, {})
            if action is None or action not in names:
                missing.append((method, rule.rule, action))
    assert not missing


@pytest.mark.parametrize(("action", "reader", "member", "stack_user"), [
    ("stacks:index", True, True, False),
    ("stacks:show", True, True, False),
    ("stacks:lookup", True, True, True),
    ("stacks:create", False, True, False),
    ("stacks:update", False, True, False),
    ("stacks:update_patch", False, True, False),
    ("stacks:delete", False, True, False),
    ("stacks:validate_template", False, True, False),
    ("stacks:preview", True, True, False),
    ("resource:index", True, True, False),
    ("resource:metadata", True, True, True),
    ("resource:signal", True, True, True),
    ("resource:mark_unhealthy", False, True, False),
    ("events:index", True, True, False),
    ("actions:action", False, True, False),
    ("actions:check", True, True, False),
    ("build_info:build_info", True, True, False),
])
def test_heat_personas(ks_settings, action, reader, member, stack_user):
    assert policy.check(ks_settings, action, creds("reader"), PROJECT) is reader
    # Keystone's implied roles: a member token lists reader too
    assert policy.check(ks_settings, action, creds("member", "reader"), PROJECT) is member
    assert policy.check(ks_settings, action, creds("heat_stack_user"), PROJECT) is stack_user


def test_project_rules_hold_only_in_the_tokens_own_project(ks_settings):
    assert not policy.check(ks_settings, "stacks:index", creds("member", "reader"), OTHER)
    assert not policy.check(ks_settings, "stacks:show", creds("admin", "member", "reader"), OTHER)


def test_global_index_is_for_admins(ks_settings):
    assert policy.check(ks_settings, "stacks:global_index", creds("admin", "member"), PROJECT)
    assert not policy.check(ks_settings, "stacks:global_index", creds("member", "reader"),
                            PROJECT)
    assert policy.is_admin(ks_settings, creds("admin"))
    assert not policy.is_admin(ks_settings, dict(creds("admin"), is_admin_project=False))
    assert not policy.is_admin(ks_settings, creds("member", "reader"))


def test_action_for_knows_heats_handler_names():
    s = "/v1/<tenant_id>/stacks/<stack_name>/<stack_id>"
    assert routes.action_for("/v1/<tenant_id>/stacks", "GET", {}, {"global_tenant": "True"}) \
        == "stacks:global_index"
    assert routes.action_for("/v1/<tenant_id>/stacks", "GET", {}, {}) == "stacks:index"
    assert routes.action_for(s, "GET", {"stack_id": "resources"}, {}) == "stacks:lookup"
    assert routes.action_for(s, "GET", {"stack_id": "x"}, {}) == "stacks:show"
    assert routes.action_for(s, "PATCH", {"stack_id": "x"}, {}) == "stacks:update_patch"
    assert routes.action_for("/v1/<tenant_id>/nowhere", "GET", {}, {}) is None


def test_an_operators_policy_file_overrides_a_rule(tmp_path, ks_settings):
    path = tmp_path / "policy.yaml"
    path.write_text('"stacks:create": "role:reader and project_id:%(project_id)s"\n'
                    '"stacks:index": "!"\n')
    st = ks_settings.replace(policy_file=str(path))
    assert policy.check(st, "stacks:create", creds("reader"), PROJECT)
    assert not policy.check(st, "stacks:index", creds("member", "reader"), PROJECT)
    assert policy.check(st, "stacks:show", creds("reader"), PROJECT)  # the rest stay Heat's


@pytest.mark.parametrize("text", ['"stacks:create": "role:reader and (\n', "[unclosed: {\n"])
def test_a_broken_policy_file_is_a_clear_start_up_error(tmp_path, ks_settings, text):
    from app.api import create_app
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    st = ks_settings.replace(policy_file=str(path), auth_encryption_key="k" * 32,
                             database_url="sqlite://")
    with pytest.raises(policy.PolicyFileError, match="policy.yaml cannot be loaded"):
        create_app(st)


def test_a_missing_policy_file_is_a_start_up_error(tmp_path, ks_settings):
    st = ks_settings.replace(policy_file=str(tmp_path / "none.yaml"))
    with pytest.raises(policy.PolicyFileError, match="does not exist"):
        policy.enforcer(st)
