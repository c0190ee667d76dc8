"""One exception root: every exception class defined in ``app/`` derives from
``app.errors.StokerError`` (DESIGN.md, Guardrails), found by parsing the code.

A private class (``_Name``) is exempt only while no other module names it: such a class is
control flow inside its module (``_OverBudget`` is a ``BaseException`` so that yaql's
``except Exception`` cannot swallow it; ``_Break`` / ``_Exit`` replay a shell script's
``break`` / ``exit``), caught where it is raised, and never reaches a caller.
"""
from __future__ import annotations

import ast
import builtins
import functools
import importlib
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
ROOT = ("app.errors", "StokerError")

Ref = tuple[str, str]  # (module, class name)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(APP.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _parse() -> dict[str, ast.Module]:
    """Every module of ``app/`` parsed once a process (the trees are read, never changed)."""
    return {_module_name(p): ast.parse(p.read_text(), str(p)) for p in sorted(APP.rglob("*.py"))}


def _imports(module: str, tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted target, for every import in the module (function-level too)."""
    names: dict[str, str] = {}
    package = module if (APP.parent / module.replace(".", "/") / "__init__.py").exists() \
        else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.partition(".")[0]] = \
                    alias.name if alias.asname else alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
    return names


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr}" if head else None
    return None


class Classes:
    """Every class of ``app/`` with its bases resolved to classes of ``app/`` or foreign ones."""

    def __init__(self) -> None:
        self.trees = dict(_parse())  # a test adds a module of its own
        self.local = {m: {n.name for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
                      for m, t in self.trees.items()}
        self.bases: dict[Ref, list[str]] = {}
        self.where: dict[Ref, int] = {}
        for module, tree in self.trees.items():
            imports = _imports(module, tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    self.where[(module, node.name)] = node.lineno
                    self.bases[(module, node.name)] = [
                        self._resolve(module, imports, d)
                        for d in map(_dotted, node.bases) if d]

    def _resolve(self, module: str, imports: dict[str, str], dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        if head in imports:
            return f"{imports[head]}.{rest}" if rest else imports[head]
        if not rest and head in self.local[module]:
            return f"{module}.{head}"
        return dotted  # a builtin

    def ref(self, target: str) -> Ref | None:
        module, _, name = target.rpartition(".")
        if (module, name) in self.bases:
            return (module, name)
        if module in self.trees and "." in module:  # a re-export: ``from x import Y`` in module
            imports = _imports(module, self.trees[module])
            if name in imports:
                return self.ref(imports[name])
        return None

    def rooted(self, cls: Ref, seen: frozenset[Ref] = frozenset()) -> bool:
        if cls == ROOT:
            return True
        return any((r := self.ref(b)) is not None and r not in seen
                   and self.rooted(r, seen | {cls}) for b in self.bases[cls])

    def is_exception(self, cls: Ref, seen: frozenset[Ref] = frozenset()) -> bool:
        for base in self.bases[cls]:
            r = self.ref(base)
            if r is not None:
                if r not in seen and self.is_exception(r, seen | {cls}):
                    return True
            elif _foreign_exception(base):
                return True
        return False


def _foreign_exception(dotted: str) -> bool:
    module, _, name = dotted.rpartition(".")
    if not module:
        found = getattr(builtins, name, None)
    else:
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            return False
    return isinstance(found, type) and issubclass(found, BaseException)


@functools.cache
def _classes() -> Classes:
    return Classes()


def _named_elsewhere(classes: Classes, cls: Ref) -> list[str]:
    module, name = cls
    return [other for other, tree in classes.trees.items() if other != module and any(
        (isinstance(n, ast.Name) and n.id == name) or (isinstance(n, ast.Attribute)
                                                        and n.attr == name)
        or (isinstance(n, ast.alias) and n.name == name) for n in ast.walk(tree))]


def test_every_public_exception_derives_from_the_root() -> None:
    classes = _classes()
    exceptions = [c for c in classes.bases if classes.is_exception(c)]
    assert len(exceptions) > 30  # the scan sees the hierarchy (errors.py alone has a dozen)
    stray = [f"{m}.{n} (line {classes.where[(m, n)]})" for m, n in exceptions
             if not n.startswith("_") and not classes.rooted((m, n))]
    assert stray == []


def test_private_exceptions_off_the_root_stay_in_their_module() -> None:
    classes = _classes()
    private = [c for c in classes.bases if c[1].startswith("_") and classes.is_exception(c)
               and not classes.rooted(c)]
    leaks = {f"{m}.{n}": where for m, n in private
             if (where := _named_elsewhere(classes, (m, n)))}
    assert leaks == {}


def test_the_scan_finds_a_stray_exception() -> None:
    classes = Classes()
    classes.local["app.fake"] = {"Stray", "Fine"}
    classes.trees["app.fake"] = ast.parse(
        "from app import errors\nclass Stray(ValueError): ...\nclass Fine(errors.NotFound): ...")
    for name, base in (("Stray", "ValueError"), ("Fine", "app.errors.NotFound")):
        classes.bases[("app.fake", name)] = [base]
    assert classes.is_exception(("app.fake", "Stray"))
    assert not classes.rooted(("app.fake", "Stray"))
    assert classes.rooted(("app.fake", "Fine"))
