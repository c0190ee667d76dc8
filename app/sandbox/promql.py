"""The PromQL subset the sandbox's Aodh evaluates for ``prometheus`` alarms, against the series
set through ``PUT /sandbox/metrics`` (a series is a metric name plus its ``resource_id`` label,
which is ``""`` when none was given). Pure.

Supported, as Prometheus evaluates them at the latest sample:

* an instant vector selector: ``cpu_util``, ``cpu_util{resource_id="srv-1"}``, with the
  matchers ``=``, ``!=``, ``=~`` and ``!~`` (full-string regular expressions); a label a series
  does not have is the empty string;
* one aggregation over it: ``avg``, ``sum``, ``min``, ``max``, ``count`` (``avg(cpu_util)``).

Anything else (functions, ranges, arithmetic, ``by``/``without``) is not understood:
:func:`parse` returns None and such an alarm is not evaluated by the sandbox.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')
_QUERY = re.compile(rf"^\s*(?:(avg|sum|min|max|count)\s*\(\s*)?({_NAME})\s*(?:\{{(.*)\}})?\s*(\))?\s*$")
AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {
    "avg": lambda v: sum(v) / len(v), "sum": sum, "min": min, "max": max, "count": lambda v: float(len(v))}


@dataclass(frozen=True)
class Query:
    """A parsed query: the metric, its label matchers ``(label, op, value)``, the aggregation."""

    metric: str
    matchers: tuple[tuple[str, str, str], ...]
    aggregation: str | None

    def selects(self, labels: dict[str, str]) -> bool:
        """True when a series with ``labels`` matches every matcher."""
        for label, op, value in self.matchers:
            have = labels.get(label, "")
            hit = have == value if op in ("=", "!=") else re.fullmatch(value, have) is not None
            if hit != (op in ("=", "=~")):
                return False
        return True

    def values(self, series: Iterable[tuple[dict[str, str], float]]) -> list[float]:
        """The query's result values over ``series`` (``(labels, latest value)`` pairs of its
        metric): one per matching series, or one aggregate (none when nothing matches)."""
        picked = [value for labels, value in series if self.selects(labels)]
        if self.aggregation is None or not picked:
            return picked
        return [AGGREGATIONS[self.aggregation](picked)]


def parse(text: str) -> Query | None:
    """``text`` as a :class:`Query`, or None outside the supported subset."""
    found = _QUERY.match(text or "")
    if found is None:
        return None
    aggregation, metric, inner, closing = found.groups()
    if bool(aggregation) != bool(closing):
        return None
    matchers: list[tuple[str, str, str]] = []
    rest = (inner or "").strip()
    while rest:
        m = _MATCHER.match(rest)
        if m is None:
            return None
        label, op, value = m.groups()
        matchers.append((label, op, value.replace('\\"', '"')))
        rest = rest[m.end():].strip()
    return Query(metric, tuple(matchers), aggregation)
