"""repeat, map_merge, map_replace, list_concat(_unique), filter, contains, yaql."""
from __future__ import annotations

import pytest

from app import errors

from .conftest import error, value


def test_repeat_product_and_map_template() -> None:
    assert value({"repeat": {"template": "<%a%-%b%>",
                             "for_each": {"%a%": ["1", "2"], "%b%": ["p", "q"]}}}) == \
        ["<1-p>", "<1-q>", "<2-p>", "<2-q>"]
    assert value({"repeat": {"template": {"port": "P", "P": "x"}, "for_each": {"P": ["22"]}}}) \
        == [{"port": "22", "22": "x"}]


def test_repeat_permutations_false_by_version() -> None:
    snippet = {"repeat": {"template": "A-B", "for_each": {"A": ["p", "q"], "B": ["x", "y"]},
                          "permutations": False}}
    assert value(snippet, "2017-09-01") == ["p-x", "q-y"]
    assert value(snippet, "2017-02-24") == ["p-x", "p-y", "q-x", "q-y"]
    unequal = {"repeat": {"template": "A-B", "for_each": {"A": ["p"], "B": ["x", "y"]},
                          "permutations": False}}
    assert "should be equal" in error(unequal)


def test_repeat_map_values_from_newton() -> None:
    snippet = {"repeat": {"template": "K", "for_each": {"K": {"b": 1, "a": 2}}}}
    assert value(snippet, "2016-10-14") == ["b", "a"]
    assert "must be lists" in error(snippet, "2016-04-08")


def test_repeat_nested() -> None:
    inner = {"repeat": {"template": "%x%%y%", "for_each": {"%y%": ["1", "2"]}}}
    assert value({"repeat": {"template": inner, "for_each": {"%x%": ["a", "b"]}}}) == \
        [["a1", "a2"], ["b1", "b2"]]


def test_repeat_errors() -> None:
    assert 'lists of strings to replace "N" in a string template; found a number' in \
        error({"repeat": {"template": "N", "for_each": {"N": [1]}}})
    with pytest.raises(errors.TemplateError, match="syntax should be"):
        value({"repeat": {"for_each": {"x": ["a"]}}})
    assert "lists or maps" in error({"repeat": {"template": "x", "for_each": {"x": "abc"}}})


def test_map_merge() -> None:
    assert value({"map_merge": [{"a": 1, "n": {"x": 1}}, None, {"n": {"y": 2}}]}) == \
        {"a": 1, "n": {"y": 2}}
    assert "Items to merge must be maps" in error({"map_merge": [{"a": 1}, ["b"]]})


def test_map_replace() -> None:
    assert value({"map_replace": [{"k1": "v1", "k2": "v1"},
                                  {"keys": {"k1": "K1"}, "values": {"v1": "V1"}}]}) == \
        {"K1": "V1", "k2": "V1"}
    assert "collides" in error({"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]})
    assert "Incorrect arguments" in error({"map_replace": [{"a": 1}, {"kees": {}}]})
    assert "list of maps" in error({"map_replace": [["a"], {"keys": {}}]})


def test_list_concat() -> None:
    assert value({"list_concat": [[1, 2], None, [2, 3]]}) == [1, 2, 2, 3]
    assert value({"list_concat_unique": [["b", "a"], ["a", "c"], [{"m": 1}, {"m": 1}]]}) == \
        ["b", "a", "c", {"m": 1}]
    assert error({"list_concat": [[1], "ab"]}) == (
        'Incorrect arguments: Items to concat must be lists. [[1], "ab"] contains an item '
        'that is not a list: "ab"')


def test_filter_and_contains() -> None:
    assert value({"filter": [["a", None], ["a", "b", None, "a"]]}) == ["b"]
    assert error({"filter": [["a"], "abc"]}) == '"filter" only works with lists'
    assert value({"contains": ["a", "abc"]}) is True
    assert value({"contains": ["z", ["a"]]}) is False


def test_yaql() -> None:
    assert value({"yaql": {"expression": "$.data.l.sum() * 2", "data": {"l": [1, 2, 3]}}}) == 12
    assert value({"yaql": {"expression": "dict($.data.l.select([$, $.len()]))",
                           "data": {"l": ["ab"]}}}) == {"ab": 2}
    assert value({"yaql": {"expression": "1"}}) == 1


def test_yaql_limits_and_errors() -> None:
    with pytest.raises(errors.TemplateError, match="Bad expression"):
        value({"yaql": {"expression": "$.data.(", "data": {}}})
    with pytest.raises(errors.TemplateError, match="longer than"):
        value({"yaql": {"expression": "1+" * 3000 + "1"}})
    assert "Unknown function" in error({"yaql": {"expression": "$.data.a.b", "data": {"a": 1}}})
    assert error({"yaql": {"expression": "range(1000000).sum()"}})


def test_yaql_evaluation_is_time_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.templates.functions import yaql_fn
    monkeypatch.setattr(yaql_fn, "MAX_SECONDS", 0.2)
    assert "exceeded 0.2 seconds" in error({"yaql": {"expression": "range(100000000).len()"}})
    assert value({"yaql": {"expression": "range(10).sum()"}}) == 45


def test_functions_unknown_to_version_are_data() -> None:
    assert value({"yaql": {"expression": "1"}}, "2016-04-08") == {"yaql": {"expression": "1"}}
    assert value({"filter": [[1], [1, 2]]}, "2016-10-14") == {"filter": [[1], [1, 2]]}
    assert value({"length": "x"}) == {"length": "x"}
