"""Octavia v2 L7 policies and their rules for the sandbox, with the provisioning-status
transitions and immutable-while-pending 409 of the load balancer they belong to
(:mod:`app.sandbox.loadbalancer`).

    POST /v2/lbaas/l7policies {"l7policy": {"listener_id", "action", "redirect_pool_id",
                                            "redirect_url", "position", ...}}      -> 201
    POST /v2/lbaas/l7policies/{id}/rules {"rule": {"type", "compare_type", "value", "key",
                                                   "invert"}}                      -> 201

As Octavia: ``REDIRECT_TO_POOL`` needs a ``redirect_pool_id`` of the same load balancer,
``REDIRECT_TO_URL`` a ``redirect_url``; ``HEADER`` and ``COOKIE`` rules need a ``key``; an
unknown listener, policy or pool is a 404; a policy's ``position`` orders its listener's
policies (1-based, appended when absent). Deleting a policy deletes its rules.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox.http import SandboxError, body, no_content, reply
from app.sandbox.loadbalancer import (
    KINDS,
    _base,
    _check_quota,
    _delete_later,
    _get,
    _lb_of,
    _list,
    _require_mutable,
    _settle_later,
)
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("loadbalancer_l7", __name__)
KINDS.setdefault("l7policies", ("l7policy", "L7 Policy"))
KINDS.setdefault("l7rules", ("rule", "L7 Rule"))
ACTIONS = ("REJECT", "REDIRECT_TO_POOL", "REDIRECT_TO_URL", "REDIRECT_PREFIX")
RULE_TYPES = ("HOST_NAME", "PATH", "FILE_TYPE", "HEADER", "COOKIE", "SSL_CONN_HAS_CERT",
              "SSL_VERIFY_RESULT", "SSL_DN_FIELD")
COMPARE_TYPES = ("REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO")
POLICY_FIELDS = ("name", "description", "admin_state_up", "action", "redirect_pool_id",
                 "redirect_url", "redirect_prefix", "redirect_http_code", "position", "tags")
RULE_FIELDS = ("type", "compare_type", "key", "value", "invert", "admin_state_up", "tags")


def _invalid(field: str, value: Any) -> SandboxError:
    return SandboxError(400, f"Invalid input for field/attribute {field}. Value: '{value}'.")


def policy_view(policy: Obj) -> Obj:
    out = {k: v for k, v in policy.items() if not k.startswith("_")}
    out["rules"] = [{"id": r["id"]} for r in store().find("l7rules", _policy_id=policy["id"])
                    if r["provisioning_status"] != "PENDING_DELETE"]
    return out


def _check_policy(data: Obj, lb: Obj) -> None:
    action = data.get("action")
    if action not in ACTIONS:
        raise _invalid("action", action)
    if action == "REDIRECT_TO_POOL":
        if not data.get("redirect_pool_id"):
            raise SandboxError(400, "Validation failure: An l7policy with action "
                               "REDIRECT_TO_POOL requires a redirect_pool_id.")
        pool = _get("pools", str(data["redirect_pool_id"]))
        if pool["_lb_id"] != lb["id"]:
            raise SandboxError(400, f"Validation failure: Pool {pool['id']} is not on the "
                               f"same load balancer as the listener.")
    if action == "REDIRECT_TO_URL" and not data.get("redirect_url"):
        raise SandboxError(400, "Validation failure: An l7policy with action REDIRECT_TO_URL "
                           "requires a redirect_url.")
    if data.get("position") is not None and (not isinstance(data["position"], int)
                                             or data["position"] < 1):
        raise _invalid("position", data["position"])


def _place(policy: Obj, position: int | None) -> None:
    """Put ``policy`` at ``position`` (1-based; the end when ``None`` or past it) among its
    listener's policies and number them all again, as Octavia orders them."""
    others = sorted((p for p in store().find("l7policies", _listener_id=policy["_listener_id"])
                     if p["id"] != policy["id"]), key=lambda p: p["position"])
    at = len(others) if position is None else min(max(position, 1) - 1, len(others))
    others.insert(at, policy)
    for i, p in enumerate(others, 1):
        p["position"] = i


@bp.get("/l7policies")
def list_policies() -> Any:
    out = _list("l7policies")
    data = out.get_json()
    data["l7policies"] = [policy_view(store().get("l7policies", p["id"]) or p)
                          for p in data["l7policies"]]
    return reply(data)


@bp.post("/l7policies")
def create_policy() -> Any:
    data = body("l7policy")
    listener = _get("listeners", str(data.get("listener_id")))
    lb = _lb_of(listener)
    _require_mutable(lb)
    _check_policy(data, lb)
    _check_quota("l7policy", "l7policies", lb["project_id"])
    policy = _base(data, lb["id"], lb["project_id"])
    policy.update(listener_id=listener["id"], action=data["action"],
                  redirect_pool_id=data.get("redirect_pool_id"),
                  redirect_url=data.get("redirect_url"), redirect_prefix=data.get("redirect_prefix"),
                  redirect_http_code=data.get("redirect_http_code"), position=0,
                  _listener_id=listener["id"], _operating="ONLINE")
    store().add("l7policies", policy)
    _place(policy, data.get("position"))
    _settle_later(lb, policy, listener)
    return reply({"l7policy": policy_view(policy)}, 201)


@bp.get("/l7policies/<policy_id>")
def show_policy(policy_id: str) -> Any:
    return reply({"l7policy": policy_view(_get("l7policies", policy_id))})


@bp.put("/l7policies/<policy_id>")
def update_policy(policy_id: str) -> Any:
    policy = _get("l7policies", policy_id)
    lb = _lb_of(policy)
    _require_mutable(lb)
    data = body("l7policy")
    merged = {**policy, **{k: v for k, v in data.items() if k in POLICY_FIELDS}}
    _check_policy(merged, lb)
    for key in POLICY_FIELDS:
        if key in data and key != "position":
            policy[key] = data[key]
    if data.get("position") is not None:
        _place(policy, data["position"])
    policy["provisioning_status"] = "PENDING_UPDATE"
    _settle_later(lb, policy)
    return reply({"l7policy": policy_view(policy)})


@bp.delete("/l7policies/<policy_id>")
def delete_policy(policy_id: str) -> Any:
    policy = _get("l7policies", policy_id)
    lb = _lb_of(policy)
    _require_mutable(lb)
    for rule in store().find("l7rules", _policy_id=policy_id):
        _delete_later(lb, rule, "l7rules")
    _delete_later(lb, policy, "l7policies")
    return no_content()


# ---- rules ----------------------------------------------------------------------------------
def _check_rule(data: Obj) -> None:
    if data.get("type") not in RULE_TYPES:
        raise _invalid("type", data.get("type"))
    if data.get("compare_type") not in COMPARE_TYPES:
        raise _invalid("compare_type", data.get("compare_type"))
    if not data.get("value"):
        raise _invalid("value", data.get("value"))
    if data["type"] in ("HEADER", "COOKIE") and not data.get("key"):
        raise SandboxError(400, f"Validation failure: L7 rule type {data['type']} needs a key.")


def _rule(policy_id: str, rule_id: str) -> Obj:
    rule = store().get("l7rules", rule_id)
    if rule is None or rule.get("_policy_id") != policy_id:
        raise SandboxError(404, f"L7 Rule {rule_id} not found.")
    _get("l7policies", policy_id)
    return rule


@bp.get("/l7policies/<policy_id>/rules")
def list_rules(policy_id: str) -> Any:
    _get("l7policies", policy_id)
    rules = [r for r in store().find("l7rules", _policy_id=policy_id)]
    return reply({"rules": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rules],
                  "rules_links": []})


@bp.post("/l7policies/<policy_id>/rules")
def create_rule(policy_id: str) -> Any:
    policy = _get("l7policies", policy_id)
    lb = _lb_of(policy)
    _require_mutable(lb)
    data = body("rule")
    _check_rule(data)
    _check_quota("l7rule", "l7rules", lb["project_id"])
    rule = _base(data, lb["id"], lb["project_id"])
    rule.update(type=data["type"], compare_type=data["compare_type"], key=data.get("key"),
                value=data["value"], invert=bool(data.get("invert", False)),
                _policy_id=policy_id)
    store().add("l7rules", rule)
    _settle_later(lb, rule, policy)
    return reply({"rule": {k: v for k, v in rule.items() if not k.startswith("_")}}, 201)


@bp.get("/l7policies/<policy_id>/rules/<rule_id>")
def show_rule(policy_id: str, rule_id: str) -> Any:
    rule = _rule(policy_id, rule_id)
    return reply({"rule": {k: v for k, v in rule.items() if not k.startswith("_")}})


@bp.put("/l7policies/<policy_id>/rules/<rule_id>")
def update_rule(policy_id: str, rule_id: str) -> Any:
    rule = _rule(policy_id, rule_id)
    lb = _lb_of(rule)
    _require_mutable(lb)
    data = body("rule")
    _check_rule({**rule, **{k: v for k, v in data.items() if k in RULE_FIELDS}})
    for key in RULE_FIELDS:
        if key in data:
            rule[key] = data[key]
    rule["provisioning_status"] = "PENDING_UPDATE"
    _settle_later(lb, rule)
    return reply({"rule": {k: v for k, v in rule.items() if not k.startswith("_")}})


@bp.delete("/l7policies/<policy_id>/rules/<rule_id>")
def delete_rule(policy_id: str, rule_id: str) -> Any:
    rule = _rule(policy_id, rule_id)
    lb = _lb_of(rule)
    _require_mutable(lb)
    _delete_later(lb, rule, "l7rules")
    return no_content()
