"""Functions whose result can be far larger than their input are bounded by MAX_RESULT_SIZE
(app/templates/functions/limits.py): an exploding input is a clear error, fast, and a large but
reasonable input still works."""
from __future__ import annotations

import time
from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.functions.limits import MAX_RESULT_SIZE, measure, split_size
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import error, value

TOO_LARGE = f"would be larger than {MAX_RESULT_SIZE} characters"
ITEMS = [f"i{n}" for n in range(200)]


def assert_too_large(snippet: Any, version: str = "2021-04-16", **kw: Any) -> str:
    """The output error for ``snippet``; asserts it is the size bound and came quickly (this
    process's CPU time, which other processes on the machine do not stretch)."""
    start = time.process_time()
    msg = error(snippet, version, **kw)
    assert TOO_LARGE in msg, msg
    assert time.process_time() - start < 2, "the bound must be checked before building"
    return msg


# ---- str_replace family and Fn::Replace ------------------------------------------------------
@pytest.mark.parametrize("fn", ["str_replace", "str_replace_strict", "str_replace_vstrict"])
def test_str_replace_family_bomb(fn: str) -> None:
    msg = assert_too_large({fn: {"template": "x" * 10_000, "params": {"x": "y" * 10_000}}})
    assert f'"{fn}"' in msg and "(it would be 100000000)" in msg


def test_str_replace_bomb_from_a_parameter() -> None:
    assert_too_large({"str_replace": {"template": "x" * 10_000, "params": {"x": {"get_param": "p"}}}},
              param_defs="parameters:\n  p: {type: string}\n", params={"p": "y" * 10_000})


def test_str_replace_json_param_too_large_is_refused_before_encoding() -> None:
    big = {"get_param": "m"}
    assert_too_large({"str_replace": {"template": "X", "params": {"X": [big] * 100}}},
              param_defs="parameters:\n  m: {type: json}\n", params={"m": {"k": "v" * 20_000}})


def test_str_replace_large_but_reasonable() -> None:
    out = value({"str_replace": {"template": "x" * 1000, "params": {"x": "y" * 1000}}})
    assert out == "y" * 1_000_000


def test_str_replace_length_is_exact_at_the_limit() -> None:
    ok = value({"str_replace": {"template": "ab" * 8, "params": {"a": "z" * (MAX_RESULT_SIZE // 8 - 1)}}})
    assert len(ok) == MAX_RESULT_SIZE
    assert_too_large({"str_replace": {"template": "ab" * 8, "params": {"a": "z" * (MAX_RESULT_SIZE // 8)}}})


def test_str_replace_semantics_kept() -> None:
    assert value({"str_replace": {"template": "foo foobar", "params": {"foo": "1",
                                                                        "foobar": "2"}}}) == "1 2"
    assert value({"str_replace": {"template": "AB", "params": {"A": "B", "B": "C"}}}) == "BC"


def test_cfn_replace_bomb_and_normal() -> None:
    assert_too_large({"Fn::Replace": [{"x": "y" * 10_000}, "x" * 10_000]}, "2013-05-23")
    assert value({"Fn::Replace": [{"x": "yy"}, "axa"]}, "2013-05-23") == "ayya"


# ---- repeat --------------------------------------------------------------------------------------
def test_repeat_cartesian_product_bomb() -> None:
    three = {"%a%": ITEMS, "%b%": ITEMS, "%c%": ITEMS}  # 8 million entries
    assert '"repeat"' in assert_too_large({"repeat": {"for_each": three, "template": "%a%-%b%-%c%"}})


def test_repeat_over_three_lists_of_ten() -> None:
    ten = ITEMS[:10]
    out = value({"repeat": {"for_each": {"%a%": ten, "%b%": ten, "%c%": ten},
                            "template": {"name": "%a%-%b%-%c%", "tags": ["%a%"]}}})
    assert len(out) == 1000 and out[0] == {"name": "i0-i0-i0", "tags": ["i0"]}
    assert out[-1] == {"name": "i9-i9-i9", "tags": ["i9"]}


def test_repeat_chained_placeholders_bomb() -> None:
    # %a% becomes a thousand %b%, each of which becomes 1,000 characters: 1 MB per entry
    for_each = {"%a%": ["%b%" * 1000] * 3, "%b%": ["y" * 1000]}
    assert_too_large({"repeat": {"for_each": for_each, "template": "%a%"}})


def test_repeat_large_template_many_times() -> None:
    template = {"k": "v" * 10_000}
    assert_too_large({"repeat": {"for_each": {"%a%": ITEMS}, "template": [template] * 10}})


def test_repeat_zip_bomb_and_normal() -> None:
    long = ["%b%" * 10_000] * 200
    assert_too_large({"repeat": {"for_each": {"%a%": long, "%b%": ["y" * 100] * 200},
                          "template": "%a%", "permutations": False}})
    assert value({"repeat": {"for_each": {"%a%": ["1", "2"], "%b%": ["x", "y"]},
                             "template": "%a%%b%", "permutations": False}}) == ["1x", "2y"]


# ---- list_join / Fn::Join --------------------------------------------------------------------
def test_list_join_long_delimiter_bomb() -> None:
    parts = {"str_split": [",", "," * 200]}  # 201 items
    assert '"list_join"' in assert_too_large({"list_join": ["d" * 100_000, parts]})


def test_list_join_of_many_references_to_a_big_list() -> None:
    ref = {"get_param": "l"}
    assert_too_large({"list_join": [",", *([ref] * 200)]},
              param_defs="parameters:\n  l: {type: comma_delimited_list}\n",
              params={"l": ",".join(["x" * 50] * 200)})


def test_list_join_json_items_measured_before_encoding() -> None:
    assert_too_large({"list_join": [",", [{"get_param": "m"}] * 100]},
              param_defs="parameters:\n  m: {type: json}\n", params={"m": {"k": "v" * 20_000}})


def test_list_join_large_but_reasonable() -> None:
    out = value({"list_join": [", ", [f"item-{n}" for n in range(10_000)]]})
    assert out.startswith("item-0, item-1") and out.count(", ") == 9_999


def test_cfn_join_bomb_and_normal() -> None:
    assert_too_large({"Fn::Join": ["d" * 100_000, {"Fn::Split": [",", "," * 200]}]}, "2013-05-23")
    assert value({"Fn::Join": ["-", ["a", "b"]]}, "2013-05-23") == "a-b"


# ---- str_split / Fn::Split -------------------------------------------------------------------
def test_str_split_into_too_many_pieces() -> None:
    defs = "parameters:\n  s: {type: string}\n"
    assert_too_large({"str_split": [",", {"get_param": "s"}]}, param_defs=defs,
              params={"s": "," * MAX_RESULT_SIZE})
    # the indexed form returns one piece: not bounded
    assert value({"str_split": [",", {"get_param": "s"}, 0]}, param_defs=defs,
                 params={"s": "," * MAX_RESULT_SIZE}) == ""
    assert value({"str_split": [",", "a,b,c"]}) == ["a", "b", "c"]


def test_cfn_split_bounded() -> None:
    assert_too_large({"Fn::Split": [",", {"get_param": "s"}]}, "2013-05-23",
              param_defs="parameters:\n  s: {type: string}\n",
              params={"s": "," * MAX_RESULT_SIZE})


def test_split_size_matches_measure() -> None:
    for text, delim in (("a,b,,c", ","), ("", ","), ("xyxyx", "xy"), (",,,", ",")):
        assert split_size(text, delim) == measure(text.split(delim))


# ---- list_concat(_unique), filter, make_url ----------------------------------------------------
def test_list_concat_of_many_references_to_a_big_list() -> None:
    defs = "parameters:\n  l: {type: comma_delimited_list}\n"
    params = {"l": ",".join(f"v{n}" for n in range(2000))}
    for fn in ("list_concat", "list_concat_unique"):
        assert_too_large({fn: [{"get_param": "l"}] * 1000}, param_defs=defs, params=params)
    assert len(value({"list_concat": [{"get_param": "l"}] * 2}, param_defs=defs,
                     params=params)) == 4000
    assert len(value({"list_concat_unique": [{"get_param": "l"}] * 2}, param_defs=defs,
                     params=params)) == 2000


def test_list_concat_unique_and_filter_are_linear_and_keep_semantics() -> None:
    many = [f"v{n}" for n in range(50_000)]  # quadratic would be over a billion comparisons
    defs = "parameters:\n  l: {type: comma_delimited_list}\n  r: {type: comma_delimited_list}\n"
    params = {"l": ",".join(many), "r": ",".join(many[1:])}
    start = time.process_time()
    assert value({"list_concat_unique": [{"get_param": "l"}, {"get_param": "l"}]},
                 param_defs=defs, params=params) == many
    assert value({"filter": [{"get_param": "r"}, {"get_param": "l"}]},
                 param_defs=defs, params=params) == ["v0"]
    assert time.process_time() - start < 5
    assert value({"list_concat_unique": [[1, {"a": 1}, "1"], [True, {"a": 1}, [2], [2]]]}) == \
        [1, {"a": 1}, "1", [2]]
    assert value({"filter": [[{"a": 1}, 3], [{"a": 1}, 3, [3], "3"]]}) == [[3], "3"]


def test_make_url_bounded() -> None:
    assert_too_large({"make_url": {"scheme": "http", "host": "h", "path": {"get_param": "p"}}},
              param_defs="parameters:\n  p: {type: string}\n",
              params={"p": "é" * MAX_RESULT_SIZE})
    assert value({"make_url": {"scheme": "http", "host": "h", "path": "/a b"}}) == "http://h/a%20b"


# ---- where the error surfaces ------------------------------------------------------------------
def test_resource_property_error_names_function_and_path() -> None:
    text = ("heat_template_version: 2021-04-16\nresources:\n  v:\n    type: OS::Heat::Value\n"
            "    properties:\n      value:\n        str_replace:\n"
            f"          template: {'x' * 10_000}\n          params: {{x: {'y' * 10_000}}}\n")
    with pytest.raises(errors.ValidationError) as exc:
        bind(parse(text), {}, None, StackIdentity("s", "sid", "pid"), None, nesting=HEAT_NESTING)
    assert exc.value.http_status == 400 and exc.value.heat_type == "StackValidationFailed"
    assert exc.value.message.startswith("Property error: resources.v.properties.value: ")
    assert 'The result of "str_replace" would be larger than' in exc.value.message


def test_measure_stops_at_the_budget() -> None:
    shared = ["x" * 1000] * 1000
    assert measure([shared] * 1_000_000, 10) > 10
    # {}: 1 + 1 member; "a": 1; []: 1 + 2 members; 1: 1; "bc": 2
    assert measure({"a": [1, "bc"]}) == 9
