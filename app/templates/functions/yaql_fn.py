"""``yaql: {expression: E, data: D}`` (newton), bounded.

As Heat's hot_spec: ``E`` is evaluated with ``$.data`` bound to the resolved ``D`` (default
``{}``); a syntax error is "Bad expression <yaql message>." (at parse time when ``E`` is a
literal). Bounds (Heat's ``[yaql]`` options, plus what Stoker adds): ``limit_iterators`` 200,
``memory_quota`` 10000, expression at most :data:`MAX_EXPRESSION` characters, data at most
:data:`MAX_DATA` bytes of JSON, and evaluation at most :data:`MAX_SECONDS` (wall clock) (a trace
function interrupts it, so ``range(100000000).len()`` cannot hold a worker). Results are
converted back to plain lists/dicts.
"""
from __future__ import annotations

import collections.abc  # noqa: F401  (yaql uses collections.abc without importing it)
import functools
import json
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from app.templates.functions.base import Function, Resolver

MAX_EXPRESSION = 4096
MAX_DATA = 1_000_000
LIMIT_ITERATORS = 200
MEMORY_QUOTA = 10000
MAX_SECONDS = 2.0

_ENGINE: Any = None
_CONTEXT: Any = None


def _engine() -> Any:
    """yaql's engine, built (and yaql imported: a tenth of a second) at the first expression."""
    global _ENGINE, _CONTEXT
    if _ENGINE is None:
        import yaql  # type: ignore[import-untyped]
        _ENGINE = yaql.YaqlFactory().create({"yaql.limitIterators": LIMIT_ITERATORS,
                                             "yaql.memoryQuota": MEMORY_QUOTA})
        _CONTEXT = yaql.create_context()
    return _ENGINE


@functools.lru_cache(maxsize=512)
def _parsed(expr: str) -> Any:
    """The parsed statement of ``expr``, kept: the same expression is parsed at validation
    and at each evaluation, and templates repeat expressions (a statement is only read when
    it is evaluated; a syntax error is not kept and raises again)."""
    return _engine()(expr)


class _OverBudget(BaseException):
    """Raised by the trace function; a BaseException so yaql's ``except Exception`` (overload
    resolution) cannot swallow it."""


Tracer = Callable[[FrameType, str, Any], Any]


def evaluate_bounded(run: Callable[[], Any], seconds: float | None = None) -> Any:
    """Call ``run()`` with a time budget (default :data:`MAX_SECONDS`) enforced by
    ``sys.settrace`` (checked every 1024 trace events). :raises TimeoutError: over budget.
    The previous tracer is restored."""
    seconds = MAX_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Tracer:
        nonlocal count
        count += 1
        if not count & 1023 and time.monotonic() > deadline:
            raise _OverBudget
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        return run()
    except _OverBudget:
        raise TimeoutError(f"evaluation exceeded {seconds} seconds") from None
    finally:
        sys.settrace(previous)


def _plain(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items") and callable(value.items):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "__iter__"):
        return [_plain(v) for v in value]
    return value


class Yaql(Function):
    """``yaql``; see module doc."""

    condition_function = True

    def _syntax(self) -> str:
        # Heat raises it as a KeyError, whose text is the message's repr
        return repr(f'"{self.fn_name}" syntax should be {self.fn_name}:\n'
                    "              expression: $.data.var1.sum()\n"
                    "              data:\n                var1: [3, 2, 1]")

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map.')
        if "expression" not in self.args or set(self.args) - {"expression", "data"}:
            raise self.error(self._syntax())
        expr = self.args["expression"]
        if not isinstance(expr, Function):
            self._parse(expr)

    def _parse(self, expr: Any) -> Any:
        if not isinstance(expr, str):
            raise self.error(f'The "expression" argument to {self.fn_name} must contain a '
                             f'string.')
        if len(expr) > MAX_EXPRESSION:
            raise self.error(f"Expression is longer than {MAX_EXPRESSION} characters")
        from yaql.language import exceptions as yaql_exc  # type: ignore[import-untyped]
        try:
            return _parsed(expr)
        except yaql_exc.YaqlException as exc:
            raise self.error(f"Bad expression {exc}.") from None

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map.')
        expr = args.get("expression")
        data = args.get("data", {})
        try:
            size = len(json.dumps(data))
        except (TypeError, ValueError):
            size = 0
        if size > MAX_DATA:
            raise self.error(f"Data for {self.fn_name} is larger than {MAX_DATA} bytes")
        statement = self._parse(expr)
        from yaql.language import exceptions as yaql_exc  # loaded by _parse
        try:
            value = evaluate_bounded(
                lambda: _plain(statement.evaluate({"data": data},
                                                  _CONTEXT.create_child_context())))
            return value
        except yaql_exc.YaqlException as exc:
            raise self.error(str(exc)) from None
        except TimeoutError as exc:
            raise self.error(f"yaql {exc}") from None
        except (TypeError, ValueError, KeyError, IndexError, ArithmeticError,
                RecursionError, MemoryError) as exc:
            raise self.error(str(exc)) from None
