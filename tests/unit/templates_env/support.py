"""Helpers for the CFN / environment / registry tests: oracle vectors run the way the API runs
them (environment files merged by :func:`app.templates.env_merge.merge_request`), created on the
product's own code in memory (tests/unit/templates/oracle_product.py)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app import errors
from app.convergence.store.definitions import identity
from app.services.definitions import parse_and_instantiate
from app.templates.env_merge import merge_request, param_types_of
from tests.unit.templates.oracle_product import STACK, Created, is_nested
from tests.unit.templates.oracle_product import run as create

SHARED = (Path(__file__).resolve().parents[3] / "../shared").resolve()
VECTORS = SHARED / "oracle" / "vectors"
PREFIXES = ("cfn-", "env-", "nested-", "rg-", "ver-cfn-")


def vectors() -> list[dict[str, Any]]:
    """The oracle vectors of this issue (ids starting with :data:`PREFIXES`)."""
    if not VECTORS.is_dir():
        return []
    out = []
    for p in sorted(VECTORS.glob("*.json")):
        if p.stem.startswith(PREFIXES):
            out.append(json.loads(p.read_text()))
    return out


def request_of(v: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """The files map and environment_files names heatclient would send for ``v``."""
    files = dict(v.get("files") or {})
    names = []
    for i, text in enumerate(v.get("environments") or [], start=1):
        files[f"env-{i}.yaml"] = text
        names.append(f"env-{i}.yaml")
    return files, names


def instantiate(v: dict[str, Any]) -> Any:
    """``v``'s StackDefinition, checked as the API's create checks it (environment files
    merged by :func:`merge_request`, then ``app.services.definitions.parse_and_instantiate``);
    raises the validation error."""
    files, names = request_of(v)
    env = merge_request(None, v.get("parameters") or {}, names, files,
                        param_types_of(v["template"], files) if names else None)
    return parse_and_instantiate(v["template"], files, env, {}, identity(*STACK))[1]


def needs_child_stacks(v: dict[str, Any]) -> bool:
    """A create vector with a nested stack (a template resource, a group): it needs the
    runtime's child stacks in the database, so it runs in tests/corpus/test_oracle_engine.py
    only."""
    if v["expect"]["outcome"] == "invalid":
        return False
    try:
        return is_nested(instantiate(v))
    except errors.StokerError:
        return False


def run(v: dict[str, Any]) -> Created:
    """Validate and create ``v`` on the product's code in memory
    (tests/unit/templates/oracle_product.py); raises the validation error."""
    return create(instantiate(v))
