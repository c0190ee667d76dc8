"""Evaluation of Aodh ``composite`` alarms for the sandbox: a rule tree of ``{"and": [...]}`` /
``{"or": [...]}`` nodes whose leaves are threshold rules (``threshold``, ``gnocchi_*``: a
``metric`` / ``meter_name`` or ``metrics``, a ``threshold``, a ``comparison_operator`` default
``eq``, an optional ``resource_id``). Pure: values come from a ``lookup``.

Each leaf reads its metric's latest value (that ``resource_id``'s series when the leaf names one;
for ``metrics``, their mean) and is True (outside the threshold), False, or unknown when there is
no value yet; ``and`` / ``or`` combine them as Aodh's composite evaluator does (an unknown
operand leaves the result unknown unless the others decide it), and the alarm becomes ``alarm``,
``ok`` or ``insufficient data``.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

OPERATORS = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne,
             "ge": operator.ge, "gt": operator.gt}
Lookup = Callable[[str, str | None], float | None]


def metrics_of(rule: Any) -> set[str]:
    """Every metric name a composite rule tree reads."""
    if isinstance(rule, dict) and len(rule) == 1 and next(iter(rule)) in ("and", "or"):
        return set().union(*(metrics_of(r) for r in next(iter(rule.values())) or []))
    if not isinstance(rule, dict):
        return set()
    return set(rule.get("metrics") or [rule.get("metric") or rule.get("meter_name")]) - {None}


def evaluate(rule: Any, lookup: Lookup) -> bool | None:
    """True (alarm), False (ok) or None (insufficient data) for a composite rule tree;
    ``lookup(metric, resource_id)`` is the latest value or None."""
    if isinstance(rule, dict) and len(rule) == 1 and next(iter(rule)) in ("and", "or"):
        kind, parts = next(iter(rule.items()))
        results = [evaluate(r, lookup) for r in parts or []]
        decisive = kind == "or"              # one True decides an or, one False an and
        if decisive in results:
            return decisive
        return None if None in results else not decisive
    if not isinstance(rule, dict) or "threshold" not in rule:
        return None
    names = list(rule.get("metrics") or [rule.get("metric") or rule.get("meter_name")])
    values = [lookup(str(n), rule.get("resource_id")) for n in names if n]
    known = [v for v in values if v is not None]
    if not known or len(known) != len(values):
        return None
    compare = OPERATORS.get(rule.get("comparison_operator") or "eq", operator.eq)
    return bool(compare(sum(known) / len(known), float(rule["threshold"])))
