"""get_attr paths resolved by the engine's own resolver (``app.convergence.store.attrdata``: the data a
finished resource passes on, read through ``DataContext``), on the product's create in memory.

Heat selects a path component by component (``heat.engine.attributes.select_from_attribute``):
``collection[key]`` for a mapping or a sequence, null when the key or index is missing. The
expected values were recorded from the reference Heat 27.0.1 (../shared/reference-heat,
``heat_oracle.py``) for the template below.
"""
from __future__ import annotations

from typing import Any

import pytest

from app.convergence.store import attrdata

from . import oracle_product

TEMPLATE = """heat_template_version: 2021-04-16
resources:
  l:
    type: OS::Heat::Value
    properties: {type: comma_delimited_list, value: [a, b, c]}
  m:
    type: OS::Heat::Value
    properties: {type: json, value: {"0": zero, "k": [x, y]}}
outputs:
  l0: {value: {get_attr: [l, value, 0]}}
  l1: {value: {get_attr: [l, value, 1]}}
  l2: {value: {get_attr: [l, value, 2]}}
  l3: {value: {get_attr: [l, value, 3]}}
  lneg: {value: {get_attr: [l, value, -1]}}
  whole: {value: {get_attr: [l, value]}}
  mstr: {value: {get_attr: [m, value, "0"]}}
  mk0: {value: {get_attr: [m, value, k, 0]}}
  mk1: {value: {get_attr: [m, value, k, 1]}}
  mk2: {value: {get_attr: [m, value, k, 2]}}
  mnone: {value: {get_attr: [m, value, nope, 0]}}
"""
#: Heat 27.0.1's output values for TEMPLATE.
HEAT = {"l0": "a", "l1": "b", "l2": "c", "l3": None, "lneg": "c", "whole": ["a", "b", "c"],
        "mstr": "zero", "mk0": "x", "mk1": "y", "mk2": None, "mnone": None}


@pytest.fixture(scope="module")
def outputs() -> dict[str, Any]:
    created = oracle_product.run(oracle_product.instantiate({"template": TEMPLATE}))
    assert created.status == "CREATE_COMPLETE", created.reasons
    return {o["output_key"]: o.get("output_value") for o in created.outputs()}


@pytest.mark.parametrize("key", sorted(HEAT))
def test_get_attr_path_as_heat(outputs: dict[str, Any], key: str) -> None:
    assert outputs[key] == HEAT[key]


@pytest.mark.parametrize("value,path,want", [
    (["a", "b", "c"], [0], "a"), (["a", "b", "c"], [2], "c"), (["a", "b", "c"], [3], None),
    (["a", "b", "c"], [-1], "c"), ([["p", "q"], ["r"]], [1, 0], "r"), ([], [0], None),
    ({"k": [1, 2]}, ["k", 1], 2), ({"k": [1, 2]}, ["k", 2], None), (None, [0], None),
])
def test_walk_indexes_each_component(value: Any, path: list[Any], want: Any) -> None:
    """The walk the resolver applies to a stored attribute (first and last index, one past
    the end, negative, nested) — an index off by one fails here."""
    assert attrdata.walk(value, path) == want


#: where Heat's select_from_attribute (heat/engine/attributes.py) is strict: a list indexed
#: with a string key -> TypeError -> null, a string is a sequence it indexes, a mapping's int key
#: is not its string key; (value, path, Heat's answer).
STRICT_PATHS = [
    (["a", "b", "c"], ["1"], None),
    ("abc", [1], "b"),
    ({"0": "zero"}, [0], None),
    (["a", "b"], [-1], "b"),
    ({"k": [1, 2]}, ["k", 5], None),
    ({"k": 1}, ["k", "x"], None),
    ({"k": 1}, [1.5], None),
]


@pytest.mark.parametrize("value,path,heat", STRICT_PATHS)
def test_paths_are_indexed_as_heat_indexes_them(value: Any, path: list[Any], heat: Any) -> None:
    assert attrdata.walk(value, path) == heat
