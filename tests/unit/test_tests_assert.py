"""Every test asserts behaviour (DESIGN.md, Guardrails), found by parsing the suite.

A test function passes the scan when its body (nested functions and lambdas included) has an
``assert`` statement, a ``pytest.raises`` / ``pytest.warns`` / ``pytest.fail`` call, or a call to
a helper named ``assert*`` / ``check*`` / ``expect*`` (a helper that asserts for it, such as
``assert_fault`` or ``check_reason``). An ``assert`` whose test cannot be false (a constant,
or ``len(...) >= 0``) does not count.
"""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
HELPERS = ("assert", "check", "expect")
PYTEST_CHECKS = ("raises", "warns", "fail")


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _can_fail(test: ast.expr) -> bool:
    """False for a condition that holds whatever the code does: a truthy constant, or a
    ``len(...)`` (never negative) compared ``>= 0`` or ``> -1``."""
    if isinstance(test, ast.Constant):
        return not test.value
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        is_len = isinstance(left, ast.Call) and _called_name(left) == "len"
        if is_len and isinstance(right, ast.Constant) and isinstance(right.value, int):
            if isinstance(op, ast.GtE) and right.value <= 0:
                return False
            if isinstance(op, ast.Gt) and right.value < 0:
                return False
    return True


def asserts(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn``'s body checks something (see the module docstring)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert) and _can_fail(node.test):
            return True
        if isinstance(node, ast.Call):
            name = _called_name(node)
            if name.lstrip("_").startswith(HELPERS):
                return True
            if name in PYTEST_CHECKS and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "pytest":
                return True
    return False


def silent_tests(root: Path = TESTS) -> list[str]:
    """``path::name`` of every test function under ``root`` that asserts nothing."""
    found = []
    for path in sorted(root.rglob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.name.startswith("test") and not asserts(node):
                found.append(f"{path.relative_to(root.parent)}::{node.name}")
    return found


def test_every_test_asserts_something() -> None:
    assert silent_tests() == []


def test_the_scan_tells_a_silent_test_from_a_checking_one() -> None:
    module = ast.parse(
        "def test_calls():\n    run()\n"
        "def test_vacuous(items):\n    assert len(items) >= 0\n"
        "def test_constant():\n    assert True\n"
        "def test_checks():\n    assert run() == 1\n"
        "def test_raises():\n    with pytest.raises(KeyError):\n        run()\n"
        "def test_helper(client):\n    assert_fault(client.get('/'), 404)\n")
    verdicts = {f.name: asserts(f) for f in module.body if isinstance(f, ast.FunctionDef)}
    assert verdicts == {"test_calls": False, "test_vacuous": False, "test_constant": False,
                        "test_checks": True, "test_raises": True, "test_helper": True}
