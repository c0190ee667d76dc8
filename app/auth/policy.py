"""Heat's policy, enforced with ``oslo.policy`` (keystone mode).

More in docs/code/auth.md (app.auth.policy).
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from app import errors
from app.config import Settings

_lock = threading.Lock()
_enforcers: dict[str, Any] = {}


class PolicyFileError(errors.StokerError):
    """The operator's policy file is missing or cannot be parsed (raised at start-up)."""

    http_status = 500
    heat_type = "InvalidPolicyFile"


class AccessDenied(errors.Forbidden):
    """A policy or tenant-local refusal: webob's ``HTTPForbidden`` as heat-api raises it."""

    heat_type = "HTTPForbidden"

    def __init__(self, message: str = "Access was denied to this resource.", **data: Any) -> None:
        super().__init__(message, **data)


def _build(policy_file: str) -> Any:
    from oslo_config import cfg
    from oslo_policy import opts
    from oslo_policy import policy as oslo

    from app.auth.policy_rules import defaults

    conf = cfg.ConfigOpts()
    conf([], project="stoker", default_config_files=[], default_config_dirs=[])
    opts.set_defaults(conf, policy_file=policy_file or "policy.yaml")
    conf.set_override("enforce_new_defaults", True, group="oslo_policy")
    if "enforce_scope" in conf.oslo_policy:  # oslo.policy < 6 (6 always enforces scope)
        conf.set_override("enforce_scope", True, group="oslo_policy")
    conf.set_override("policy_dirs", [], group="oslo_policy")
    enforcer = oslo.Enforcer(conf, policy_file=policy_file or None)
    enforcer.register_defaults(defaults())
    if policy_file:
        if not Path(policy_file).is_file():
            raise PolicyFileError(f"Policy file {policy_file} does not exist.")
        try:
            enforcer.load_rules(force_reload=True)
        except Exception as exc:  # yaml/json/rule syntax errors
            raise PolicyFileError(f"Policy file {policy_file} cannot be loaded: {exc}") from exc
    else:
        enforcer.load_rules()
    return enforcer


def enforcer(settings: Settings) -> Any:
    """The process's ``oslo_policy.policy.Enforcer`` for ``settings.policy_file`` (built once).

    :raises PolicyFileError: the file does not exist or does not parse.
    """
    key = settings.policy_file
    found = _enforcers.get(key)
    if found is None:
        with _lock:
            found = _enforcers.get(key)
            if found is None:
                found = _enforcers[key] = _build(key)
    return found


def check(settings: Settings, action: str, creds: dict[str, Any], project_id: str) -> bool:
    """Whether ``creds`` may do ``action`` (a Heat rule name such as ``stacks:create``) on the
    project ``project_id``. A token of the wrong scope for the rule is a refusal, not an error."""
    from oslo_policy import policy as oslo
    try:
        return bool(enforcer(settings).enforce(action, {"project_id": project_id}, dict(creds),
                                               do_raise=False))
    except oslo.InvalidScope:
        return False


def is_admin(settings: Settings, creds: dict[str, Any]) -> bool:
    """Heat's ``context_is_admin`` rule for these credentials."""
    return bool(enforcer(settings).enforce("context_is_admin", {}, dict(creds), do_raise=False))


def enforce(settings: Settings, action: str, creds: dict[str, Any], project_id: str) -> None:
    """:raises AccessDenied: (403, Heat's fault body) unless :func:`check` allows it."""
    if not check(settings, action, creds, project_id):
        raise AccessDenied()


def reset() -> None:
    """Forget the built enforcers (tests that change the policy file)."""
    with _lock:
        _enforcers.clear()
