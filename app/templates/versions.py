"""HOT versions: names, aliases, sections, resource keys and frozen function tables.

Each version's tables are derived from the previous version's and frozen
(:class:`types.MappingProxyType`), as Heat's ``heat/engine/hot/template.py`` classes do by
inheritance; a function removed in a version maps to :class:`~.functions.base.Removed` (an error
naming the version); a name absent from a table is plain data. The listing (``/template_versions``
and ``.../functions``) omits removed functions, as Heat does.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from app import errors
from app.templates.functions import cfn, collections, conditions, core, strings, yaql_fn
from app.templates.functions.base import Function, Removed

HOT_KEY = "heat_template_version"
CFN_KEYS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")
CFN_VERSIONS = {"AWSTemplateFormatVersion": "2010-09-09",
                "HeatTemplateFormatVersion": "2012-12-12"}

ALIASES = MappingProxyType({"newton": "2016-10-14", "ocata": "2017-02-24", "pike": "2017-09-01",
                            "queens": "2018-03-02", "rocky": "2018-08-31",
                            "wallaby": "2021-04-16"})

FnTable = Mapping[str, type[Function]]


@dataclass(frozen=True)
class HotVersion:
    """Everything that differs between HOT versions (all tables frozen)."""

    date: str
    functions: FnTable
    condition_functions: FnTable
    sections: frozenset[str]
    resource_keys: frozenset[str]
    output_keys: frozenset[str]
    deletion_policies: Mapping[str, str]
    param_keys: frozenset[str]
    constraint_keys: frozenset[str]
    aliases: tuple[str, ...] = field(default=())

    @property
    def has_conditions(self) -> bool:
        """Whether the version has the ``conditions`` section (newton+)."""
        return "conditions" in self.sections

    @cached_property
    def condition_table(self) -> FnTable:
        """The table of the ``conditions`` section and inline conditions: the condition
        functions, every other function of the version marked invalid there. Built once."""
        table: dict[str, type[Function]] = {n: conditions.InvalidInContext
                                            for n in self.functions}
        table.update(self.condition_functions)
        return MappingProxyType(table)

    def listed_functions(self, with_condition_func: bool = False) -> list[str]:
        """Function names as Heat's ``/template_versions/{v}/functions`` lists them."""
        names = [n for n, f in self.functions.items() if not issubclass(f, Removed)]
        if with_condition_func:
            names += [n for n in self.condition_functions if n not in self.functions]
        return names


def _derive(base: Mapping[str, type[Function]], add: Mapping[str, type[Function]] | None = None,
            remove: tuple[str, ...] = (), before: Mapping[str, str] | None = None) -> FnTable:
    """``base`` plus ``add`` (new names appended, or placed before ``before[name]`` so listings
    keep Heat's order), with ``remove`` names marked :class:`Removed`; frozen."""
    table = dict(base)
    for name, fn in (add or {}).items():
        anchor = (before or {}).get(name)
        if anchor in table and name not in table:
            items = list(table.items())
            idx = [k for k, _ in items].index(anchor)
            table = dict(items[:idx] + [(name, fn)] + items[idx:])
        else:
            table[name] = fn
    for name in remove:
        table[name] = Removed
    return MappingProxyType(table)


_POLICIES = MappingProxyType({"Delete": "Delete", "Retain": "Retain", "Snapshot": "Snapshot"})
_POLICIES_LOWER = MappingProxyType({**_POLICIES, "delete": "Delete", "retain": "Retain",
                                    "snapshot": "Snapshot"})
#: Stoker's own HOT version adds CloudFormation's RetainExceptOnCreate (kept on a later delete,
#: deleted when the operation that created it rolls back)
_POLICIES_STOKER = MappingProxyType({**_POLICIES_LOWER,
                                     "RetainExceptOnCreate": "RetainExceptOnCreate"})
#: ``update_replace_policy``'s values (what a replacement does with the resource it replaced)
REPLACE_POLICIES = _POLICIES_LOWER
_SECTIONS = frozenset({HOT_KEY, "description", "parameter_groups", "parameters", "resources",
                       "outputs"})
_RES_KEYS = frozenset({"type", "properties", "metadata", "depends_on", "deletion_policy",
                       "update_policy", "description"})
_PARAM_KEYS = frozenset({"type", "label", "description", "default", "hidden", "constraints",
                         "immutable"})
_CONSTRAINTS = frozenset({"length", "range", "allowed_values", "allowed_pattern",
                          "custom_constraint", "description"})

F_2013: FnTable = MappingProxyType({
    "Fn::GetAZs": cfn.GetAZs, "get_param": core.GetParam, "get_resource": core.GetResource,
    "Ref": cfn.Ref, "get_attr": core.GetAttThenSelect, "Fn::Select": cfn.Select,
    "Fn::Join": cfn.CfnJoin, "list_join": strings.Join, "Fn::Split": cfn.Split,
    "str_replace": strings.Replace, "Fn::Replace": cfn.CfnReplace, "Fn::Base64": cfn.Base64,
    "Fn::MemberListToMap": cfn.MemberListToMap, "resource_facade": core.ResourceFacade,
    "Fn::ResourceFacade": cfn.CfnResourceFacade, "get_file": core.GetFile})
_REMOVED_2014 = ("Fn::GetAZs", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
                 "Fn::MemberListToMap", "Fn::ResourceFacade", "Ref")
F_2014 = _derive({"get_attr": core.GetAtt, "get_file": core.GetFile, "get_param": core.GetParam,
                  "get_resource": core.GetResource, "list_join": strings.Join,
                  "resource_facade": core.ResourceFacade, "str_replace": strings.Replace,
                  "Fn::Select": cfn.Select}, remove=_REMOVED_2014)
F_2015_04 = _derive(F_2014, {"repeat": collections.Repeat, "digest": strings.Digest},
                    before={"repeat": "resource_facade"})
F_2015_10 = _derive(F_2015_04, {"get_attr": core.GetAttAllAttributes,
                                "list_join": strings.JoinMultiple, "str_split": strings.StrSplit,
                                "str_replace": strings.ReplaceJson},
                    remove=("Fn::Select",))
F_2016_04 = _derive(F_2015_10, {"map_merge": collections.MapMerge})
F_NEWTON = _derive(F_2016_04, {"repeat": collections.RepeatWithMap,
                               "yaql": yaql_fn.Yaql,
                               "map_replace": collections.MapReplace, "if": conditions.If})
F_OCATA = _derive(F_NEWTON, {"filter": collections.Filter,
                             "str_replace_strict": strings.ReplaceJsonStrict})
F_PIKE = _derive(F_OCATA, {"repeat": collections.RepeatWithNestedLoop,
                           "make_url": strings.MakeURL, "list_concat": collections.ListConcat,
                           "str_replace_vstrict": strings.ReplaceJsonVeryStrict,
                           "list_concat_unique": collections.ListConcatUnique,
                           "contains": conditions.Contains})
F_WALLABY = _derive(F_PIKE, {"if": conditions.IfNullable})

C_NEWTON: FnTable = MappingProxyType({"get_param": core.GetParam, "equals": conditions.Equals,
                                      "not": conditions.Not, "and": conditions.And,
                                      "or": conditions.Or})
C_PIKE = _derive(C_NEWTON, {"yaql": yaql_fn.Yaql, "contains": conditions.Contains})
_NONE: FnTable = MappingProxyType({})


def _bind_if(fns: FnTable, cond: FnTable) -> FnTable:
    """Give the version's ``if`` its condition table (for inline conditions)."""
    if_cls = fns.get("if")
    if if_cls is None or not issubclass(if_cls, conditions.If):
        return fns
    ctable: dict[str, type[Function]] = {n: conditions.InvalidInContext for n in fns}
    ctable.update(cond)
    return _derive(fns, {"if": if_cls.bind(MappingProxyType(ctable))})


def _v(date: str, fns: FnTable, cond: FnTable = _NONE, *, conditions_ok: bool = False,
       lower: bool = False, external_id: bool = False, modulo: bool = False,
       tags: bool = False, guards: bool = False) -> HotVersion:
    fns = _bind_if(fns, cond)
    return HotVersion(
        date=date, functions=fns, condition_functions=cond,
        sections=_SECTIONS | ({"conditions"} if conditions_ok else set()),
        resource_keys=_RES_KEYS | ({"condition"} if conditions_ok else set())
        | ({"external_id"} if external_id else set())
        | ({"update_replace_policy"} if guards else set()),
        output_keys=frozenset({"value", "description"} | ({"condition"} if conditions_ok
                                                          else set())
                              | ({"export"} if guards else set())),
        deletion_policies=_POLICIES_STOKER if guards
        else _POLICIES_LOWER if lower else _POLICIES,
        param_keys=_PARAM_KEYS | ({"tags"} if tags else set()),
        constraint_keys=_CONSTRAINTS | ({"modulo"} if modulo else set()),
        aliases=tuple(a for a, d in ALIASES.items() if d == date))


HOT_VERSIONS: Mapping[str, HotVersion] = MappingProxyType({v.date: v for v in (
    _v("2013-05-23", F_2013),
    _v("2014-10-16", F_2014),
    _v("2015-04-30", F_2015_04),
    _v("2015-10-15", F_2015_10),
    _v("2016-04-08", F_2016_04),
    _v("2016-10-14", F_NEWTON, C_NEWTON, conditions_ok=True, lower=True, external_id=True),
    _v("2017-02-24", F_OCATA, C_NEWTON, conditions_ok=True, lower=True, external_id=True,
       modulo=True),
    _v("2017-09-01", F_PIKE, C_PIKE, conditions_ok=True, lower=True, external_id=True,
       modulo=True),
    _v("2018-03-02", F_PIKE, C_PIKE, conditions_ok=True, lower=True, external_id=True,
       modulo=True, tags=True),
    _v("2018-08-31", F_PIKE, C_PIKE, conditions_ok=True, lower=True, external_id=True,
       modulo=True, tags=True),
    _v("2021-04-16", F_WALLABY, C_PIKE, conditions_ok=True, lower=True, external_id=True,
       modulo=True, tags=True),
)})


#: Stoker's own HOT version, not Heat's: wallaby (2021-04-16) plus ``deletion_policy:
#: RetainExceptOnCreate``, the resource key ``update_replace_policy``, the function
#: ``import_value`` and the output key ``export`` (cross-stack exports). Heat does not know it;
#: Heat's versions (above, and what ``/template_versions`` lists) refuse both as Heat does.
STOKER_VERSION = "stoker-2026-12-01"
F_STOKER = _derive(F_WALLABY, {"import_value": core.ImportValue})
STOKER_VERSIONS: Mapping[str, HotVersion] = MappingProxyType({STOKER_VERSION: _v(
    STOKER_VERSION, F_STOKER, C_PIKE, conditions_ok=True, lower=True, external_id=True,
    modulo=True, tags=True, guards=True)})


def condition_table(version: HotVersion) -> FnTable:
    """The table used in the ``conditions`` section (:attr:`HotVersion.condition_table`)."""
    return version.condition_table


def _choices() -> str:
    return ", ".join(list(HOT_VERSIONS) + list(ALIASES))


def detect(raw: Mapping[str, Any]) -> tuple[str, str]:
    """Return ``(key, normalised version)`` for a loaded template.

    :raises errors.BadRequest: no version key ("Template format version not found.").
    :raises errors.TemplateError: InvalidTemplateVersion (unknown or ambiguous version).
    """
    present = [k for k in (HOT_KEY,) + CFN_KEYS if k in raw]
    if not present:
        raise errors.BadRequest("Template not in valid format: Template format version not "
                                "found.")
    if len(present) > 1:
        raise errors.TemplateError(
            f"The template version is invalid: Ambiguous versions ({', '.join(present)})",
            heat_type="InvalidTemplateVersion")
    key = present[0]
    value = raw[key]
    if key == HOT_KEY:
        text = str(value)
        date = ALIASES.get(text, text)
        if date not in HOT_VERSIONS and date not in STOKER_VERSIONS:
            raise errors.TemplateError(
                f'The template version is invalid: "{key}: {text}". "{key}" should be one of: '
                f"{_choices()}", heat_type="InvalidTemplateVersion", path=(key,))
        return key, date
    expected = CFN_VERSIONS[key]
    if str(value) != expected:
        raise errors.TemplateError(
            f'The template version is invalid: "{key}: {value}". "{key}" should be one of: '
            f"{expected}", heat_type="InvalidTemplateVersion", path=(key,))
    return key, expected


def hot_version(date_or_alias: str) -> HotVersion:
    """The :class:`HotVersion` for a date or release alias. :raises KeyError: unknown."""
    date = ALIASES.get(date_or_alias, date_or_alias)
    return STOKER_VERSIONS[date] if date in STOKER_VERSIONS else HOT_VERSIONS[date]
