"""Arbitrary snippets never crash the template package: only StokerError subclasses escape."""
from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import errors
from app.templates import StackIdentity, parse
from app.templates.versions import HOT_VERSIONS
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import DictContext, heat_type_schema

FN_NAMES = sorted({n for v in HOT_VERSIONS.values() for n in v.functions}
                  | {"equals", "not", "and", "or", "template", "params", "for_each",
                     "expression", "data", "permutations"})
leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["a", "r", "p", "c", ",", "", "%x%", "x", "value", "OS::stack_name"]))


def snippets() -> st.SearchStrategy[Any]:
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.sampled_from(FN_NAMES + ["k"]), inner, min_size=1, max_size=1),
            st.dictionaries(st.sampled_from(["template", "params", "for_each", "k", "a"]),
                            inner, max_size=3)),
        max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(list(HOT_VERSIONS)), snippets(), snippets(), snippets())
def test_no_crash(version: str, prop: Any, out: Any, cond: Any) -> None:
    raw: dict[str, Any] = {
        "heat_template_version": version,
        "parameters": {"p": {"type": "string", "default": "a,b"}},
        "resources": {"r": {"type": "OS::Heat::Value", "properties": {"value": prop}},
                      "a": {"type": "OS::Heat::None"}},
        "outputs": {"o": {"value": out}},
    }
    if HOT_VERSIONS[version].has_conditions:
        raw["conditions"] = {"c": cond}
    try:
        stack = bind(parse(raw), {}, None, StackIdentity(), heat_type_schema, nesting=HEAT_NESTING)
    except errors.StokerError:
        return
    ctx = DictContext(refs={"r": "r-id", "a": "a-id"}, attrs={"r": {"value": "v"}, "a": {}})
    for o in stack.resolve_outputs(ctx):
        assert set(o) <= {"output_key", "description", "output_value", "output_error"}
    try:
        stack.resolve_properties("r", ctx)
    except errors.StokerError:
        pass
