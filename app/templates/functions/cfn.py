"""The CloudFormation functions HOT 2013-05-23 still accepts.

As Heat's cfn functions: ``Ref`` (a parameter's value, else a resource's reference id),
``Fn::Select: [index, collection]`` (out of range -> ``""``), ``Fn::Join: [delim, [strings]]``,
``Fn::Split: [delim, string]``, ``Fn::Replace: [{placeholder: value}, template]``,
``Fn::Base64: string`` (identity), ``Fn::MemberListToMap: [key_name, value_name, list]``,
``Fn::GetAZs`` and ``Fn::ResourceFacade``. ``Fn::Join``, ``Fn::Split`` and ``Fn::Replace`` are
bounded as their HOT counterparts (:mod:`app.templates.functions.limits`).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from app.templates.functions.base import Function, Path, Resolver
from app.templates.functions.limits import check_size, split_size
from app.templates.functions.strings import Join, Replace


class Ref(Function):
    """``Ref: name``. A list or map as the name is refused when parsed (Heat fails there with
    Python's "unhashable type"; Stoker says what it needs)."""

    def check(self) -> None:
        if isinstance(self.args, (list, dict)):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, str):
            raise self.error(f'Argument to "{self.fn_name}" must be a string')
        if r.has_param(args):
            return r.param(args, self.path)
        return r.ref(args, self.path)

    def refs(self) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
        if isinstance(self.args, str):
            yield self.args, None, self.path


class Select(Function):
    """``Fn::Select: [index, collection]``, as Heat's cfn ``Select``: ``""`` for an empty or
    null collection or an index out of range (a negative index counts from the end); a
    string collection is read as JSON (``'"Fn::Select": <JSON error>'``); a map needs a string
    index, a list an integer (integer text is one)."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form '
                             f'[index, collection]')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form '
                             f'[index, collection]')
        index, collection = args
        if collection == "":
            return ""
        if isinstance(collection, str):
            try:
                collection = json.loads(collection)
            except ValueError as exc:
                raise self.error(f'"{self.fn_name}": {exc}') from None
        if isinstance(collection, dict):
            if not isinstance(index, str):
                raise self.error(f'Index to "{self.fn_name}" must be a string')
            return collection.get(index, "")
        try:
            index = int(index)
        except (ValueError, TypeError):
            pass
        if isinstance(collection, list):
            if not isinstance(index, int):
                raise self.error(f'Index to "{self.fn_name}" must be an integer')
            try:
                return collection[index]
            except IndexError:
                return ""
        if collection is None:
            return ""
        raise self.error(f"Arguments to {self.fn_name} not fully resolved")


class CfnJoin(Join):
    """``Fn::Join: [delim, [strings]]``."""

    example = '"{0}" : [ " ", [ "str1", "str2"]]'


class Split(Function):
    """``Fn::Split: [delim, string]``, as Heat's cfn ``Split``."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be: '
                             f'"{self.fn_name}" : [ ",", "str1,str2"]]')

    def result(self, args: Any, r: Resolver) -> Any:
        delim, text = args
        if not isinstance(delim, str):
            raise self.error(f"Delimiter for {self.fn_name} must be string")
        if not isinstance(text, str):
            raise self.error(f"String to split must be string; got {type(text)}")
        if delim:
            check_size(self, split_size(text, delim))
        try:
            return text.split(delim)
        except ValueError as exc:
            raise self.error(str(exc)) from None


class CfnReplace(Replace):
    """``Fn::Replace: [{placeholder: value}, template]``, as Heat's cfn ``Replace``."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be: '
                             f'{{"{self.fn_name}": [ {{"$var1": "foo", "%var2%": "bar"}}, '
                             f'"$var1 is %var2%"]}}')
        if not isinstance(self.args[0], (dict, Function)):
            raise self.error(f'"{self.fn_name}" parameters must be a mapping')

    def result(self, args: Any, r: Resolver) -> Any:
        return super().result({"params": args[0], "template": args[1]}, r)


class Base64(Function):
    """``Fn::Base64: string`` -> the string (Heat does not encode)."""

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, str):
            raise self.error(f'"{self.fn_name}" argument must be a string')
        return args


class MemberListToMap(Function):
    """``Fn::MemberListToMap: [key_name, value_name, [".member.N.key=value", ...]]``, as
    Heat's: every item must be ``key=value`` text. Heat reports an item without ``=`` with
    Python's ``dict()`` error (a 400 that names no argument); Stoker says which item."""

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(f'Wrong Arguments try: "{self.fn_name}" : '
                             f'[ "Name", "Value", [ "member.1.Name=a", "member.1.Value=b" ] ]')

    def result(self, args: Any, r: Resolver) -> Any:
        keyname, valuename, members = args
        if not isinstance(members, list):
            raise self.error(f'Member list to "{self.fn_name}" must be a list')
        pairs: dict[str, dict[str, str]] = {}
        pattern = re.compile(r"\.member\.([0-9]+)\.(.*)")
        for i, item in enumerate(members):
            if not isinstance(item, str):
                raise self.error(f'Member list items of "{self.fn_name}" must be strings')
            key, eq, value = item.partition("=")
            if not eq:
                raise self.error(f'Member list item #{i} of "{self.fn_name}" must be '
                                 f'"<key>=<value>", got {item!r}')
            m = pattern.match(key)
            if m:
                pairs.setdefault(m.group(1), {})[m.group(2)] = value
        out: dict[str, str] = {}
        for entry in pairs.values():
            if keyname in entry and valuename in entry:
                out[entry[keyname]] = entry[valuename]
        return out


class GetAZs(Function):
    """``Fn::GetAZs: region`` -> the availability zones (the resolver's; default ["nova"])."""

    def result(self, args: Any, r: Resolver) -> Any:
        return ["nova"]


class CfnResourceFacade(Function):
    """``Fn::ResourceFacade: Metadata|DeletionPolicy|UpdatePolicy``."""

    KEYS: ClassVar[Mapping[str, str]] = MappingProxyType({
        "Metadata": "metadata", "DeletionPolicy": "deletion_policy",
        "UpdatePolicy": "update_policy"})

    def check(self) -> None:
        if not isinstance(self.args, str) or self.args not in self.KEYS:
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be one of: '
                             f'{", ".join(self.KEYS)}')

    def result(self, args: Any, r: Resolver) -> Any:
        return r.facade(self.KEYS[args], self.path)
