"""app/templates and app/engine stay pure: stdlib, yaml, yaql and app.errors only (STYLE lesson 1)."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_THIRD_PARTY = {"yaml", "yaql"}
PURE_PACKAGES = ("templates", "engine")


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                continue  # relative: inside the package
            out.append((node.module or "", node.lineno))
    return out


def _allowed(module: str, package: str) -> bool:
    top = module.split(".")[0]
    if top == "app":
        return module == "app" or module == "app.errors" or \
            module.startswith(f"app.{package}")
    if top in ALLOWED_THIRD_PARTY:
        return True
    return top in sys.stdlib_module_names or top == "__future__"


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_package_imports_are_pure(package: str) -> None:
    base = ROOT / "app" / package
    bad = [f"{p.relative_to(ROOT)}:{line}: {mod}"
           for p in sorted(base.rglob("*.py")) for mod, line in _imports(p)
           if not _allowed(mod, package)]
    assert not bad, "impure imports:\n" + "\n".join(bad)


def test_checker_catches_impurity(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import flask\nfrom app.models import x\nimport json\nfrom app import errors\n")
    found = [m for m, _ in _imports(f) if not _allowed(m, "templates")]
    assert found == ["flask", "app.models"]
