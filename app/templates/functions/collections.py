"""Collection functions: repeat, map_merge, map_replace, list_concat(_unique), filter.

More in docs/code/templates.md (app.templates.functions.collections).
"""
from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable
from typing import Any

from app.templates.functions.base import (
    UNKNOWN,
    Function,
    FunctionError,
    Resolver,
    contains_unknown,
    resolve,
)
from app.templates.functions.limits import Budget, too_large
from app.templates.loader import kind


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class _Members:
    """Membership with list ``in`` semantics (equality), hashed where values are hashable:
    O(1) per test instead of O(len)."""

    def __init__(self, values: Iterable[Any] = ()) -> None:
        self.hashed: set[Any] = set()
        self.other: list[Any] = []
        for v in values:
            self.add(v)

    def add(self, value: Any) -> None:
        try:
            self.hashed.add(value)
        except TypeError:
            self.other.append(value)

    def __contains__(self, value: Any) -> bool:
        try:
            return value in self.hashed
        except TypeError:
            return value in self.other


class Repeat(Function):
    """2015-04-30 ``repeat``: for_each values must be lists."""

    lazy = True
    allow_map_values = False
    allow_permutations = False

    def _syntax(self) -> str:
        return (f'"{self.fn_name}" syntax should be {self.fn_name}:\n'
                "              template: This is %var%\n"
                "              for_each:\n"
                "                %var%: ['a', 'b', 'c']")

    def check(self) -> None:
        args = self.args
        if isinstance(args, Function):
            return
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map')
        if "for_each" not in args or "template" not in args:
            raise self.error(repr(self._syntax()))
        if not isinstance(args["for_each"], (dict, Function)):
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')

    def _values(self, value: Any) -> list[Any]:
        if isinstance(value, dict) and self.allow_map_values:
            return list(value)
        if not isinstance(value, list):
            kinds = "lists or maps" if self.allow_map_values else "lists"
            raise self.error(f'The values of the "for_each" argument to "{self.fn_name}" '
                             f'must be {kinds}')
        return value

    def _not_text(self, key: str, value: Any) -> FunctionError:
        """A clear error where Heat's ``str.replace`` of a string template leaks Python's
        ``replace() argument 2 must be str, not int`` (the loader makes every key a string)."""
        return self.error(f'The values of the "for_each" argument to "{self.fn_name}" must be '
                          f'lists of strings to replace "{key}" in a string template; found '
                          f"{kind(value)}")

    def _replace(self, keys: tuple[str, ...], values: tuple[Any, ...], tmpl: Any,
                 budget: Budget) -> Any:
        """One entry: ``tmpl`` with each key replaced by its value, charged to ``budget`` as
        :func:`~app.templates.functions.limits.measure` counts (a string's new length is
        computed before each ``str.replace``)."""
        if isinstance(tmpl, str):
            for key, value in zip(keys, values):
                if not isinstance(value, str):
                    raise self._not_text(key, value)
                count = tmpl.count(key)
                if count:
                    if not budget.allows(len(tmpl) + count * (len(value) - len(key))):
                        raise too_large(self)
                    tmpl = tmpl.replace(key, value)
            budget.charge(len(tmpl))
            return tmpl
        if isinstance(tmpl, list):
            budget.charge(1 + len(tmpl))
            return [self._replace(keys, values, v, budget) for v in tmpl]
        if isinstance(tmpl, dict):
            budget.charge(1 + len(tmpl))
            return {self._replace(keys, values, k, budget): self._replace(keys, values, v, budget)
                    for k, v in tmpl.items()}
        budget.charge(1)
        return tmpl

    def result(self, args: Any, r: Resolver) -> Any:
        args = resolve(args, r) if isinstance(args, Function) else args
        if not isinstance(args, dict):
            raise self.error(f'Arguments to "{self.fn_name}" must be a map')
        for_each = resolve(args["for_each"], r)
        if not isinstance(for_each, dict):
            raise self.error(f'The "for_each" argument to "{self.fn_name}" must contain a map')
        if r.static and contains_unknown(for_each):
            return UNKNOWN
        keys = tuple(for_each)
        lists = [self._values(for_each[k]) for k in keys]
        template = resolve(args["template"], r)
        if r.static and contains_unknown(template):
            return UNKNOWN
        permutations = (resolve(args.get("permutations", True), r)
                        if self.allow_permutations else True)
        if not isinstance(permutations, bool):
            raise self.error(f'"permutations" should be boolean type for {self.fn_name} '
                             f'function.')
        combos: Iterable[tuple[Any, ...]]
        if permutations:
            count = math.prod(len(lst) for lst in lists)
            combos = itertools.product(*lists)
        else:
            if len({len(lst) for lst in lists}) > 1:
                raise self.error(f"For {self.fn_name}, the length of for_each values should be "
                                 f"equal if no nested loop.")
            count = len(lists[0]) if lists else 0
            combos = zip(*lists)
        budget = Budget(self)
        # Each entry is a member (1) and, unless the template is a string (maybe ""), >= 1.
        if not budget.allows(1 + count * (1 if isinstance(template, str) else 2)):
            raise too_large(self)
        budget.charge(1 + count)
        return [self._replace(keys, combo, template, budget) for combo in combos]


class RepeatWithMap(Repeat):
    """newton ``repeat``: a for_each value may be a map (its keys)."""

    allow_map_values = True


class RepeatWithNestedLoop(RepeatWithMap):
    """pike ``repeat``: ``permutations`` (default true)."""

    allow_permutations = True


class MapMerge(Function):
    """``map_merge: [map, ...]`` (later keys win; a null member is an empty map), as Heat's
    ``MapMerge``: the arguments are checked when resolved."""

    def _usage(self) -> str:
        return (f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ {{ "key1": "val1" }}, {{ "key2": "val2" }} ]')

    def result(self, args: Any, r: Resolver) -> Any:
        if isinstance(args, str):
            args = list(args)  # a string is a sequence to Heat: its characters are not maps
        if not isinstance(args, list):
            raise self.error(self._usage())
        out: dict[Any, Any] = {}
        for m in args:
            if m is None:
                continue
            if not isinstance(m, dict):
                raise self.error("Incorrect arguments: Items to merge must be maps. "
                                 f"{repr(m)[:200]} is type {type(m)} instead of a dict")
            out.update(m)
        return out


class MapReplace(Function):
    """``map_replace: [map, {keys: {old: new}, values: {old: new}}]``, as Heat's
    ``MapReplace``: checked when resolved; a renamed key may not collide with a key of the
    input map (so swaps are refused) nor with one already output; a null map is empty; a value
    that cannot be a key (a list, a map) is kept."""

    EXAMPLE = ('"map_replace" : [ { "key1": "val1" }, {"keys": {"key1": "key2"}, '
               '"values": {"val1": "val2"}}]')

    def _map(self, m: Any) -> dict[Any, Any]:
        if m is None:
            return {}
        if isinstance(m, dict):
            return m
        raise self.error(f'Incorrect arguments: to "{self.fn_name}", arguments must be a '
                         f'list of maps. Example:  {self.EXAMPLE}')

    def result(self, args: Any, r: Resolver) -> Any:
        usage = f'Incorrect arguments to "{self.fn_name}" should be: {self.EXAMPLE}'
        if not isinstance(args, list) or not args:
            raise self.error(usage)
        mapping = self._map(args[0])
        if len(args) < 2:
            raise self.error(usage)
        spec = self._map(args[1])
        if len(args) > 2 or set(spec) - {"keys", "values"}:
            raise self.error(usage)
        keys = self._map(spec.get("keys", {}))
        values = self._map(spec.get("values", {}))
        out: dict[Any, Any] = {}
        for k, v in mapping.items():
            new_key = keys.get(k)
            if new_key is None:
                new_key = k
            elif new_key in mapping and new_key != k:
                raise self.error(f"key replacement {new_key} collides with a key in the "
                                 f"input map")
            elif new_key in out:
                raise self.error(f"key replacement {new_key} collides with a key in the "
                                 f"output map")
            try:
                out[new_key] = values.get(v, v)
            except TypeError:  # an unhashable value is kept
                out[new_key] = v
        return out


class ListConcat(Function):
    """``list_concat: [list, ...]``."""

    unique = False

    def _usage(self) -> str:
        return (f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list):
            raise self.error(self._usage())
        lists: list[list[Any]] = []
        for item in args:
            if item is None:
                continue
            if not isinstance(item, list):
                raise self.error(f"Incorrect arguments: Items to concat must be lists. "
                                 f"{_json(args)} contains an item that is not a list: "
                                 f"{_json(item)}")
            lists.append(item)
        budget = Budget(self)
        budget.charge(1 + sum(len(lst) for lst in lists))
        for lst in lists:
            for v in lst:
                budget.charge_value(v)
        if self.unique:
            seen = _Members()
            uniq: list[Any] = []
            for lst in lists:
                for v in lst:
                    if v not in seen:
                        seen.add(v)
                        uniq.append(v)
            return uniq
        return [v for lst in lists for v in lst]


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: first occurrence of each item kept."""

    unique = True


class Filter(Function):
    """``filter: [values_to_remove, list]``, as Heat's ``Filter``: two arguments when parsed;
    an empty list is returned as it is, no values to remove returns the list."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list):
            raise self.error(f'Argument to "{self.fn_name}" must be a list')
        if len(self.args) != 2:
            raise self.error(f'"{self.fn_name}" expected 2 arguments of the form '
                             f'[values, sequence] but got {len(self.args)} arguments instead')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error(f'Argument to "{self.fn_name}" must be a list')
        remove, seq = args
        if not seq:
            return seq
        if not isinstance(seq, list):
            raise self.error(f'"{self.fn_name}" only works with lists')
        if not remove:
            return seq
        if not isinstance(remove, list):
            raise self.error(f'"{self.fn_name}" filters a list of values')
        members = _Members(remove)
        return [v for v in seq if v not in members]
