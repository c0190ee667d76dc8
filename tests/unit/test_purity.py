"""The layer test: every import statement of ``app/`` (function-level ones too, ``from app import X``
counted as ``app.X``) checked against DESIGN.md's layout (STYLE lessons 1 and 12):

    cli -> api, cfn, tasks -> services -> convergence -> engine, templates, resource_types,
    clients, models, auth

- ``app/templates`` and ``app/engine`` import only each other, ``app.errors``, the standard
  library but its I/O modules, ``yaml``, ``yaql`` and ``regex`` (computation only: no I/O);
- ``resource_types`` and ``clients`` import no services, api, tasks, models (nor convergence, cli);
- ``convergence`` imports no services, api, tasks, cli, cfn; ``services`` no api, tasks, cli, cfn;
  ``api`` no tasks, cli;
- ``api``, ``services`` and ``tasks`` do not use ``importlib`` (but for ``importlib.metadata``,
  which reads a package's version and imports nothing);
- no import circle anywhere in ``app/``.
"""
from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ("templates", "engine")
PURE_APP = ("app.templates", "app.engine", "app.errors")
PURE_THIRD_PARTY = {"yaml", "yaql", "regex"}
#: standard-library modules that do I/O (network, processes, files, databases)
IO_MODULES = {"socket", "ssl", "http", "urllib.request", "subprocess", "sqlite3", "shutil",
              "tempfile", "asyncio", "multiprocessing", "ftplib", "smtplib", "select",
              "selectors", "mmap", "dbm", "shelve", "glob", "pathlib", "io"}
#: package -> app packages it must not import
FORBIDDEN = {
    "resource_types": ("services", "api", "tasks", "models", "convergence", "cli"),
    "clients": ("services", "api", "tasks", "models", "convergence", "cli"),
    "convergence": ("services", "api", "tasks", "cli", "cfn"),
    "services": ("api", "tasks", "cli", "cfn"),
    "api": ("tasks", "cli"),
}
NO_IMPORTLIB = ("api", "services", "tasks")
#: importlib's parts that read package data and import nothing (a version number)
IMPORTLIB_DATA = {"importlib.metadata", "importlib.resources"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _app_modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / "app").rglob("*.py"))}


@functools.cache
def _import_nodes(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """The import statements of ``path``, function-level ones included; parsed once per run
    (every test here reads all of ``app/``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return tuple(n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)))


def imports(path: Path, module: str, known: Iterable[str] = ()) -> list[tuple[str, int]]:
    """Every module ``path`` imports, ``(dotted name, line)``: relative imports resolved,
    ``from pkg import name`` yielding ``pkg.name`` when that is a known module, else ``pkg``."""
    known = set(known)
    is_pkg = path.name == "__init__.py"
    out: list[tuple[str, int]] = []
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                base = ".".join(parts[:len(parts) - node.level + (1 if is_pkg else 0)])
                src = f"{base}.{node.module}" if node.module else base
            else:
                src = node.module or ""
            subs = [f"{src}.{a.name}" for a in node.names
                    if f"{src}.{a.name}" in known or src == "importlib"]
            out.extend((m, node.lineno) for m in subs or [src])
            if subs and len(subs) < len(node.names):
                out.append((src, node.lineno))
    return out


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "app" else None


def _pure_ok(mod: str) -> bool:
    top = mod.split(".")[0]
    if top == "app":
        return any(mod == p or mod.startswith(p + ".") for p in PURE_APP)
    if top in PURE_THIRD_PARTY or top == "__future__":
        return True
    if any(mod == io or mod.startswith(io + ".") for io in IO_MODULES):
        return False
    return top in sys.stdlib_module_names


def violations() -> list[str]:
    """Every import against the rules above, as ``path:line: what``."""
    mods = _app_modules()
    bad: list[str] = []
    for name, path in mods.items():
        pkg = _package(name)
        for mod, line in imports(path, name, mods):
            where = f"{path.relative_to(ROOT)}:{line}"
            if pkg in PURE_PACKAGES and not _pure_ok(mod):
                bad.append(f"{where}: pure app.{pkg} imports {mod}")
            if _package(mod) in FORBIDDEN.get(pkg or "", ()):
                bad.append(f"{where}: app.{pkg} imports {mod}")
            if pkg in NO_IMPORTLIB and mod.split(".")[0] == "importlib" \
                    and mod not in IMPORTLIB_DATA:
                bad.append(f"{where}: app.{pkg} imports modules dynamically ({mod})")
    return bad


def graph(only: tuple[str, ...] | None = None) -> dict[str, set[str]]:
    """The static import graph of ``app/`` (a module importing its own package not counted);
    ``only``: restricted to modules of these packages."""
    mods = _app_modules()
    g: dict[str, set[str]] = {}
    for name, path in mods.items():
        if only is not None and _package(name) not in only:
            continue
        g[name] = set()
        for mod, _ in imports(path, name, mods):
            while mod and mod not in mods:
                mod = mod.rpartition(".")[0]
            if mod and mod != name and not name.startswith(mod + ".") \
                    and (only is None or _package(mod) in only):
                g[name].add(mod)
    return g


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def test_imports_follow_the_layers() -> None:
    bad = violations()
    assert not bad, "imports against the layout:\n" + "\n".join(bad)


def test_app_has_no_import_circle() -> None:
    found = circles(graph())
    assert not found, "import circles:\n" + "\n".join(", ".join(c) for c in found)


@pytest.mark.parametrize("packages", [
    ("engine",), ("convergence",), ("services", "convergence", "api", "tasks", "cli")])
def test_the_engine_wing_has_no_import_circle(packages: tuple[str, ...]) -> None:
    found = circles(graph(packages))
    assert not found, "import circles:\n" + "\n".join(", ".join(c) for c in found)


def test_checker_sees_from_app_import_and_function_level_imports(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import json\nfrom app import models, errors\n"
                 "def f():\n    import flask\n    import socket\n")
    found = [m for m, _ in imports(f, "app.templates.x", {"app.models", "app.errors"})]
    assert found == ["json", "app.models", "app.errors", "flask", "socket"]
    g = tmp_path / "y.py"
    g.write_text("import importlib\nfrom importlib import metadata\n")
    assert [m for m, _ in imports(g, "app.api.y")] == ["importlib", "importlib.metadata"]
    assert [m for m in found if not _pure_ok(m)] == ["app.models", "flask", "socket"]


def test_checker_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
