"""Property-based tests of template functions (hypothesis)."""
from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.templates.functions.base import parse, resolve
from app.templates.versions import HOT_VERSIONS

TABLE = HOT_VERSIONS["2021-04-16"].functions


class _Plain:
    """A resolver for snippets without parameters or references."""

    static = False

    def param(self, name: str, path: Any) -> Any:
        raise KeyError(name)

    has_param = param
    ref = param
    file = param
    facade = param

    def attr(self, *a: Any) -> Any:
        raise KeyError(a)

    def condition(self, name: Any, path: Any) -> bool:
        return bool(name)


def run(snippet: Any) -> Any:
    return resolve(parse(snippet, TABLE, ("outputs", "o", "value")), _Plain())  # type: ignore[arg-type]


scalars = st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none())
# Maps whose values are not single-key maps named like functions (those would be calls).
keys = st.text(alphabet="abcxyz", min_size=1, max_size=3)
plain_maps = st.dictionaries(keys, scalars, max_size=4)
lists = st.lists(scalars, max_size=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(lists, st.none()), max_size=5))
def test_list_concat_is_concatenation(parts: list[list[Any] | None]) -> None:
    assert run({"list_concat": parts}) == list(itertools.chain.from_iterable(p or [] for p
                                                                               in parts))


@settings(max_examples=60, deadline=None)
@given(st.lists(lists, max_size=5))
def test_list_concat_unique_keeps_first_occurrences(parts: list[list[Any]]) -> None:
    out = run({"list_concat_unique": parts})
    flat = list(itertools.chain.from_iterable(parts))
    assert all(x in out for x in flat)
    assert all(out.count(x) == 1 for x in out)
    assert [x for i, x in enumerate(flat) if x not in flat[:i]] == out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(plain_maps, st.none()), max_size=5))
def test_map_merge_later_wins(maps: list[dict[str, Any] | None]) -> None:
    want: dict[str, Any] = {}
    for m in maps:
        want.update(m or {})
    assert run({"map_merge": maps}) == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc-", max_size=4), max_size=5),
       st.lists(st.text(alphabet="xyz", max_size=3), max_size=4))
def test_repeat_is_product(xs: list[str], ys: list[str]) -> None:
    out = run({"repeat": {"template": "<%x%|%y%>", "for_each": {"%x%": xs, "%y%": ys}}})
    assert out == [f"<{x}|{y}>" for x in xs for y in ys]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc", max_size=3), min_size=1, max_size=6))
def test_repeat_zip_when_no_permutations(xs: list[str]) -> None:
    out = run({"repeat": {"template": "X=Y", "for_each": {"X": xs, "Y": xs[::-1]},
                          "permutations": False}})
    assert out == [f"{a}={b}" for a, b in zip(xs, xs[::-1])]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abc ", max_size=4), min_size=1, max_size=6),
       st.sampled_from([",", ";", "::", "|"]))
def test_str_split_inverts_list_join(items: list[str], delim: str) -> None:
    joined = run({"list_join": [delim, items]})
    assert joined == delim.join(items)
    assert run({"str_split": [delim, joined]}) == items
    for i in range(len(items)):
        assert run({"str_split": [delim, joined, i]}) == items[i]


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab,", max_size=12), st.sampled_from([",", "a", "ab"]))
def test_list_join_inverts_str_split(text: str, delim: str) -> None:
    assert run({"list_join": [delim, run({"str_split": [delim, text]})]}) == text
