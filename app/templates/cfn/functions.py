"""CloudFormation-only functions and the two CFN function tables.

More in docs/code/templates.md (app.templates.cfn.functions).
"""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from app.templates.functions import cfn, conditions
from app.templates.functions.base import Function, FunctionTable, Resolver
from app.templates.functions.core import GetAtt, ImportValue


class CfnGetAtt(GetAtt):
    """``Fn::GetAtt: [resource_name, attribute]``."""

    def _form_error(self) -> str:
        return f'Arguments to "{self.fn_name}" must be of the form [resource_name, attribute]'

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(self._form_error())
        super().check()


class FindInMap(Function):
    """``Fn::FindInMap: [map_name, key, value]`` over the template's ``Mappings``
    (bound per template with :meth:`bind`)."""

    mappings: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    @classmethod
    def bind(cls, mappings: Mapping[str, Any]) -> type[FindInMap]:
        """A subclass that looks names up in ``mappings``."""
        return type(cls.__name__, (cls,), {"mappings": mappings, "__doc__": cls.__doc__})

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form '
                             f'[map_name, key, value]')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 3:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form '
                             f'[map_name, key, value]')
        current: Any = self.mappings
        for key in args:
            try:
                current = current[key]
            except (KeyError, IndexError, TypeError):
                raise self.error(repr(key)) from None
        return current


class ParamRef(cfn.Ref):
    """``Ref`` inside ``Conditions``: parameters only."""

    def result(self, args: Any, r: Resolver) -> Any:
        if isinstance(args, str) and r.has_param(args):
            return r.param(args, self.path)
        raise self.error(f'The specified reference "{args}" (in unknown) is incorrect.')

    def refs(self):  # type: ignore[no-untyped-def]
        return iter(())


class CfnNot(Function):
    """``Fn::Not: [condition]``."""

    condition_function = True

    def _usage(self) -> str:
        return f'Arguments to "{self.fn_name}" must be of the form: [condition]'

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 1:
            raise self.error(self._usage())

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 1:
            raise self.error(self._usage())
        return not r.condition(args[0], self.path)


class CfnEquals(conditions.Equals):
    """``Fn::Equals: [value_1, value_2]``."""


class CfnAnd(conditions.And):
    """``Fn::And: [cond, cond, ...]``."""


class CfnOr(conditions.Or):
    """``Fn::Or: [cond, cond, ...]``."""


#: Heat's CfnTemplateBase functions, in the listing order of template_functions.json.
_BASE: dict[str, type[Function]] = {
    "Fn::FindInMap": FindInMap, "Fn::GetAZs": cfn.GetAZs, "Ref": cfn.Ref,
    "Fn::GetAtt": CfnGetAtt, "Fn::Select": cfn.Select, "Fn::Join": cfn.CfnJoin,
    "Fn::Split": cfn.Split, "Fn::Replace": cfn.CfnReplace, "Fn::Base64": cfn.Base64,
    "Fn::MemberListToMap": cfn.MemberListToMap, "Fn::ResourceFacade": cfn.CfnResourceFacade}

HEAT_2012: FunctionTable = MappingProxyType(dict(_BASE))
#: AWSTemplateFormatVersion adds ``Fn::If`` and AWS's ``Fn::ImportValue`` (Heat has no exports)
AWS_2010: FunctionTable = MappingProxyType({**_BASE, "Fn::If": conditions.If,
                                           "Fn::ImportValue": ImportValue})
AWS_2010_CONDITIONS: FunctionTable = MappingProxyType({
    "Fn::Equals": CfnEquals, "Ref": ParamRef, "Fn::FindInMap": FindInMap, "Fn::Not": CfnNot,
    "Fn::And": CfnAnd, "Fn::Or": CfnOr})
NO_CONDITIONS: FunctionTable = MappingProxyType({})


def bind_mappings(table: FunctionTable, mappings: Mapping[str, Any]) -> FunctionTable:
    """``table`` with its ``Fn::FindInMap`` looking names up in ``mappings`` (frozen)."""
    if "Fn::FindInMap" not in table:
        return table
    return MappingProxyType({**table, "Fn::FindInMap": FindInMap.bind(mappings)})
