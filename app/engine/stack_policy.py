"""CloudFormation's stack policy: the grammar and the decision, pure.

A policy is ``{"Statement": [statement, ...]}``; a statement is ``{"Effect": "Allow"|"Deny",
"Action"|"NotAction": action or [actions], "Principal": "*", "Resource"|"NotResource":
pattern or [patterns], "Condition": {...}, "Sid": text}``. Actions are ``Update:Modify``,
``Update:Replace``, ``Update:Delete`` and ``Update:*``; a pattern is ``*``,
``LogicalResourceId/<glob>`` or (Stoker's addition) ``ResourceType/<glob>``, ``*`` and ``?``
matching as in AWS; a condition is ``{"StringEquals"|"StringLike": {"ResourceType": value or
[values]}}``. Once a stack has a policy, an update action on a resource is allowed only if a
statement allows it and none denies it (AWS's default deny, explicit deny wins).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from app import errors

MODIFY, REPLACE, DELETE = "Update:Modify", "Update:Replace", "Update:Delete"
ACTIONS = (MODIFY, REPLACE, DELETE)
_STATEMENT_KEYS = {"Effect", "Action", "NotAction", "Principal", "Resource", "NotResource",
                   "Condition", "Sid"}
_OPERATORS = ("StringEquals", "StringLike")
_PREFIXES = ("LogicalResourceId/", "ResourceType/")


def _bad(message: str) -> errors.BadRequest:
    return errors.BadRequest(f"Invalid stack policy: {message}", heat_type="InvalidStackPolicy")


def _strings(value: Any, where: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, str) and v for v in items):
        raise _bad(f"{where} must be a non-empty string or a list of them.")
    return list(items)


def _check_actions(values: list[str], where: str) -> None:
    for value in values:
        if value not in ACTIONS and value != "Update:*":
            raise _bad(f'{where} "{value}" is not one of Update:Modify, Update:Replace, '
                       "Update:Delete, Update:*.")


def _check_resources(values: list[str], where: str) -> None:
    for value in values:
        if value != "*" and not (value.startswith(_PREFIXES) and value.split("/", 1)[1]):
            raise _bad(f'{where} "{value}" must be "*", "LogicalResourceId/<name>" or '
                       '"ResourceType/<type>".')


def _check_condition(cond: Any, where: str) -> None:
    if not isinstance(cond, dict) or not cond:
        raise _bad(f"{where} must be an object of operators.")
    for op, test in cond.items():
        if op not in _OPERATORS:
            raise _bad(f'{where} operator "{op}" is not StringEquals or StringLike.')
        if not isinstance(test, dict) or set(test) != {"ResourceType"}:
            raise _bad(f'{where}.{op} must test "ResourceType" only.')
        _strings(test["ResourceType"], f"{where}.{op}.ResourceType")


def _check_statement(st: Any, where: str) -> None:
    if not isinstance(st, dict):
        raise _bad(f"{where} must be an object.")
    unknown = sorted(set(st) - _STATEMENT_KEYS)
    if unknown:
        raise _bad(f"{where} has unknown keys: {', '.join(unknown)}.")
    if st.get("Effect") not in ("Allow", "Deny"):
        raise _bad(f'{where}.Effect must be "Allow" or "Deny".')
    for one, other in (("Action", "NotAction"), ("Resource", "NotResource")):
        if (one in st) == (other in st):
            raise _bad(f"{where} needs exactly one of {one} and {other}.")
        key = one if one in st else other
        values = _strings(st[key], f"{where}.{key}")
        (_check_actions if one == "Action" else _check_resources)(values, f"{where}.{key}")
    if "Principal" in st and st["Principal"] != "*":
        raise _bad(f'{where}.Principal must be "*".')
    if "Sid" in st and not isinstance(st["Sid"], str):
        raise _bad(f"{where}.Sid must be a string.")
    if "Condition" in st:
        _check_condition(st["Condition"], f"{where}.Condition")


def parse(raw: Any) -> dict[str, Any]:
    """Check a policy document (a mapping, or its JSON text as ``StackPolicyBody`` carries it).

    :returns: the document as plain JSON (a single statement object becomes a list of one).
    :raises errors.BadRequest: ``InvalidStackPolicy`` naming the first fault (400).
    """
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise _bad(f"not JSON ({exc}).") from None
    if not isinstance(raw, dict):
        raise _bad("the document must be a JSON object with a Statement list.")
    unknown = sorted(set(raw) - {"Statement", "Version"})
    if unknown or "Statement" not in raw:
        raise _bad("the document must have a Statement list and nothing else but Version.")
    statements = raw["Statement"] if isinstance(raw["Statement"], list) else [raw["Statement"]]
    if not statements:
        raise _bad("Statement must not be empty.")
    for i, st in enumerate(statements):
        _check_statement(st, f"Statement[{i}]")
    document: dict[str, Any] = json.loads(json.dumps({**raw, "Statement": statements}))
    return document


def _glob(pattern: str, text: str) -> bool:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, text) is not None


def _listed(value: Any) -> list[str]:
    return list(value) if isinstance(value, list) else [value]


def _matches_resource(patterns: list[str], name: str, rtype: str) -> bool:
    for p in patterns:
        if p == "*":
            return True
        kind, glob = p.split("/", 1)
        if _glob(glob, name if kind == "LogicalResourceId" else rtype):
            return True
    return False


def _applies(st: dict[str, Any], action: str, name: str, rtype: str) -> bool:
    acts = _listed(st.get("Action", st.get("NotAction")))
    hit = any(a == action or a == "Update:*" for a in acts)
    if ("Action" in st) != hit:
        return False
    res = _listed(st.get("Resource", st.get("NotResource")))
    if ("Resource" in st) != _matches_resource(res, name, rtype):
        return False
    for op, test in (st.get("Condition") or {}).items():
        values = _listed(test["ResourceType"])
        ok = rtype in values if op == "StringEquals" else any(_glob(v, rtype) for v in values)
        if not ok:
            return False
    return True


@dataclass(frozen=True)
class Verdict:
    """The policy's answer for one action: ``allowed``, and the statement that decided
    (its index and ``Sid``; ``None`` when no statement applies: the default deny)."""
    allowed: bool
    index: int | None = None
    sid: str | None = None

    def statement(self) -> str:
        """How the deciding statement is named in an error."""
        if self.index is None:
            return "no statement allows it (a stack policy denies what it does not allow)"
        sid = f' (Sid "{self.sid}")' if self.sid else ""
        effect = "allows" if self.allowed else "denies"
        return f"Statement[{self.index}]{sid} {effect} it"


def decide(policy: dict[str, Any], action: str, name: str, rtype: str) -> Verdict:
    """Whether ``policy`` (as :func:`parse` returns it) allows ``action`` (one of
    :data:`ACTIONS`) on resource ``name`` of type ``rtype``: any applicable Deny wins, else an
    applicable Allow, else denied. O(statements)."""
    allow: Verdict | None = None
    for i, st in enumerate(policy.get("Statement") or ()):
        if not _applies(st, action, name, rtype):
            continue
        if st["Effect"] == "Deny":
            return Verdict(False, i, st.get("Sid"))
        allow = allow or Verdict(True, i, st.get("Sid"))
    return allow or Verdict(False)
