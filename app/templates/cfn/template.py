"""The CloudFormation template format: ``AWSTemplateFormatVersion: 2010-09-09`` and
``HeatTemplateFormatVersion: 2012-12-12``.

More in docs/code/templates.md (app.templates.cfn.template).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from app import errors
from app.templates.cfn import functions as cfn_fns
from app.templates.cfn.duplicates import duplicate_keys
from app.templates.cfn.parameters import parse_cfn_schema
from app.templates.conditions import parse_section as parse_conditions
from app.templates.functions import conditions as cond_fns
from app.templates.functions.base import FunctionTable, parse
from app.templates.identity import StackIdentity
from app.templates.loader import Loaded
from app.templates.parsed import RawOutput, Template, export_name
from app.templates.resources import RawResource, check_resource_name, depends_on_names
from app.templates.versions import HotVersion, condition_table

REGION = "ap-southeast-1"
_BASE_SECTIONS = ("Description", "Mappings", "Parameters", "Resources", "Outputs")
_BASE_RES_KEYS = ("Type", "Properties", "Metadata", "DependsOn", "DeletionPolicy",
                  "UpdatePolicy", "UpdateReplacePolicy", "Description")
_REPLACE_POLICIES = MappingProxyType({"Delete": "Delete", "Retain": "Retain",
                                      "Snapshot": "Snapshot"})
#: AWS's DeletionPolicy values (RetainExceptOnCreate is AWS's, beyond Heat)
_POLICIES = MappingProxyType({**_REPLACE_POLICIES,
                              "RetainExceptOnCreate": "RetainExceptOnCreate"})
#: HOT-internal key for each CFN resource key (the snippet handed to the shared code).
_RES_INTERNAL = {"Type": "type", "Properties": "properties", "Metadata": "metadata",
                 "DependsOn": "depends_on", "DeletionPolicy": "deletion_policy",
                 "UpdatePolicy": "update_policy", "Description": "description",
                 "Condition": "condition", "UpdateReplacePolicy": "update_replace_policy"}


@dataclass(frozen=True)
class CfnFormat:
    """What differs between the two CFN versions."""

    key: str
    date: str
    functions: FunctionTable
    condition_functions: FunctionTable
    conditions: bool

    @property
    def sections(self) -> frozenset[str]:
        extra = ("Conditions",) if self.conditions else ()
        return frozenset((self.key,) + _BASE_SECTIONS + extra)

    @property
    def resource_keys(self) -> tuple[str, ...]:
        return _BASE_RES_KEYS + (("Condition",) if self.conditions else ())

    @property
    def output_keys(self) -> tuple[str, ...]:
        return ("Value", "Description") + (("Condition", "Export") if self.conditions else ())


FORMATS: Mapping[str, CfnFormat] = MappingProxyType({
    "AWSTemplateFormatVersion": CfnFormat("AWSTemplateFormatVersion", "2010-09-09",
                                          cfn_fns.AWS_2010, cfn_fns.AWS_2010_CONDITIONS, True),
    "HeatTemplateFormatVersion": CfnFormat("HeatTemplateFormatVersion", "2012-12-12",
                                           cfn_fns.HEAT_2012, cfn_fns.NO_CONDITIONS, False),
})


@dataclass
class CfnTemplate(Template):
    """A parsed CFN-format template (see module doc); ``mappings`` is the ``Mappings``
    section."""

    mappings: dict[str, Any] = field(default_factory=dict)

    def locate(self, exc: errors.TemplateError) -> errors.TemplateError:
        """As :meth:`Template.locate`, with the path (and the message's dotted path) in CFN's
        section and key names, as Heat prints them (``Resources.V.Properties.p``)."""
        if exc.path:
            old, new = tuple(exc.path), cfn_path(tuple(exc.path))
            if new != old:
                for n in range(min(len(old), 3), 0, -1):
                    before = errors.format_path(old[:n])
                    if before in exc.message:
                        after = errors.format_path(new[:n])
                        exc.message = exc.message.replace(before, after, 1)
                        exc.args = (exc.message,)
                        break
                exc.path = new
        return super().locate(exc)

    def pseudo_parameters(self, identity: StackIdentity) -> dict[str, Any]:
        """``AWS::StackId`` (Heat's ARN), ``AWS::StackName``, ``AWS::Region``."""
        arn = (f"arn:openstack:heat::{identity.project_id}:stacks/{identity.stack_name}/"
               f"{identity.stack_id}")
        return {"AWS::StackId": arn, "AWS::StackName": identity.stack_name,
                "AWS::Region": REGION}


_TOP = {"resources": "Resources", "outputs": "Outputs", "parameters": "Parameters",
        "conditions": "Conditions"}
_UNDER = {"Resources": {"properties": "Properties", "metadata": "Metadata", "type": "Type",
                       "condition": "Condition", "depends_on": "DependsOn",
                       "deletion_policy": "DeletionPolicy", "update_policy": "UpdatePolicy",
                       "update_replace_policy": "UpdateReplacePolicy"},
          "Outputs": {"value": "Value", "condition": "Condition"}}


def cfn_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """A path built by the shared (HOT-named) code, in CFN's names:
    ``("resources", "V", "properties", "p")`` -> ``("Resources", "V", "Properties", "p")``."""
    if not path or path[0] not in _TOP:
        return path
    top = _TOP[path[0]]
    out = [top, *path[1:]]
    if len(out) > 2 and out[2] in _UNDER.get(top, {}):
        out[2] = _UNDER[top][out[2]]
    return tuple(out)


def _table_version(fmt: CfnFormat, mappings: Mapping[str, Any]) -> HotVersion:
    """A :class:`HotVersion` carrying the CFN tables, so shared code (conditions, ``if``,
    deletion policies) works unchanged."""
    conds = cfn_fns.bind_mappings(fmt.condition_functions, mappings)
    fns = dict(cfn_fns.bind_mappings(fmt.functions, mappings))
    if "Fn::If" in fns:
        inline: dict[str, Any] = {n: cond_fns.InvalidInContext for n in fns}
        inline.update(conds)
        fns["Fn::If"] = cond_fns.If.bind(MappingProxyType(inline))
    return HotVersion(
        date=fmt.date, functions=MappingProxyType(fns), condition_functions=conds,
        sections=fmt.sections, resource_keys=frozenset(fmt.resource_keys),
        output_keys=frozenset(fmt.output_keys), deletion_policies=_POLICIES,
        param_keys=frozenset({"type", "label", "description", "default", "hidden",
                              "constraints"}),
        constraint_keys=frozenset({"length", "range", "allowed_values", "allowed_pattern",
                                   "description"}))


def _section(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.ValidationError(f"'{type(value).__name__}' object has no attribute 'items'",
                                     path=(key,), heat_type="AttributeError")
    return value


def _type_error(name: str, key: str, typename: str) -> errors.ValidationError:
    return errors.ValidationError(f"Resource {name} {key} type must be {typename}",
                                  path=("Resources", name, key))


def _is_fn(value: Any, table: FunctionTable) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in table


def _resource(name: str, snippet: Any, fmt: CfnFormat, hot: HotVersion) -> RawResource:
    base = ("Resources", name)
    if not isinstance(snippet, dict):
        raise errors.ValidationError(
            f'"Resources" must contain a map of resource maps. Found a '
            f"[<class '{type(snippet).__name__}'>] instead", path=base)
    for key in snippet:
        if key not in fmt.resource_keys:
            raise errors.ValidationError(f'"{key}" is not a valid keyword inside a resource '
                                         f'definition', path=base + (key,))
    if "Type" not in snippet:
        raise errors.ValidationError(f'Resource {name} is missing "Type"', path=base)
    rtype = snippet["Type"]
    if not isinstance(rtype, str):
        raise _type_error(name, "Type", "string")
    table = hot.functions
    for key in ("Properties", "Metadata", "UpdatePolicy"):
        value = snippet.get(key)
        if value is not None and not isinstance(value, dict):
            raise _type_error(name, key, "object")
    depends_on = depends_on_names(snippet.get("DependsOn"), ("Resources", name, "DependsOn"),
                                  "list or string")
    policy = snippet.get("DeletionPolicy")
    if isinstance(policy, str) and policy not in _POLICIES:
        raise errors.ValidationError(f'Invalid deletion policy "{policy}"',
                                     path=base + ("DeletionPolicy",))
    replace = snippet.get("UpdateReplacePolicy")
    if isinstance(replace, str) and replace not in _REPLACE_POLICIES:
        raise errors.ValidationError(f'Invalid update replace policy "{replace}"',
                                     path=base + ("UpdateReplacePolicy",))
    description = snippet.get("Description", "")
    if not isinstance(description, str):
        raise _type_error(name, "Description", "string")
    cond = snippet.get("Condition")
    if "Condition" in snippet and not isinstance(cond, (bool, str)):
        cond = parse(cond, condition_table(hot), base + ("Condition",))
    internal = {_RES_INTERNAL[k]: v for k, v in snippet.items()}
    props = snippet.get("Properties") or {}
    return RawResource(
        name=name, snippet=internal, type=rtype,
        properties=parse(props, table, base + ("Properties",)),
        metadata=parse(snippet.get("Metadata"), table, base + ("Metadata",)),
        depends_on=depends_on,
        deletion_policy=parse(policy, table, base + ("DeletionPolicy",)),
        update_policy=parse(snippet.get("UpdatePolicy"), table, base + ("UpdatePolicy",)),
        description=description, external_id=None, condition=cond,
        has_condition="Condition" in snippet,
        update_replace_policy=parse(replace, table, base + ("UpdateReplacePolicy",)))


def _outputs(section: dict[str, Any], fmt: CfnFormat, hot: HotVersion,
             warnings: list[str]) -> dict[str, RawOutput]:
    out: dict[str, RawOutput] = {}
    for name, spec in section.items():
        path = ("Outputs", name)
        if not isinstance(spec, dict) or "Value" not in spec:
            raise errors.ValidationError(f"Output validation error: {errors.format_path(path)}: "
                                         "Each output definition must contain a Value key.",
                                         path=path)
        extra = [k for k in spec if k not in fmt.output_keys]
        if extra:
            warnings.append(f"Outputs.{name}: unknown keys ignored: "
                            f"{', '.join(map(str, extra))}")
        has_cond = fmt.conditions and "Condition" in spec
        cond = spec.get("Condition") if has_cond else None
        if has_cond and not isinstance(cond, (bool, str)):
                cond = parse(cond, condition_table(hot), path + ("Condition",))
        export = export_name(spec, "Export", "Name", hot, path) \
            if "Export" in fmt.output_keys else None
        out[name] = RawOutput(name, parse(spec["Value"], hot.functions, path + ("Value",)),
                              spec.get("Description"), cond, has_cond, export)
    return out


def parse_cfn(loaded: Loaded, key: str, date: str, files: Mapping[str, str] | None,
              source: Any = None) -> CfnTemplate:
    """Parse a loaded CFN-format template (``key``/``date`` as :func:`versions.detect` gave).

    :param source: the original text, used only to list YAML duplicate keys as warnings.
    :raises errors.TemplateError: sections, parameters, resources, outputs, functions (Heat's
        messages; paths use the CFN section names, e.g. ``Resources.V.Properties``).
    """
    raw: dict[str, Any] = loaded.data
    fmt = FORMATS[key]
    for section in raw:
        if section not in fmt.sections:
            raise errors.ValidationError(f"The template section is invalid: {section}",
                                         path=(str(section),))
    warnings: list[str] = []
    if isinstance(source, (str, bytes)):
        warnings.extend(f"duplicate key {k!r} at line {line}: Heat keeps the last value"
                        for k, line in duplicate_keys(source))
    mappings = _section(raw, "Mappings")
    hot = _table_version(fmt, mappings)
    desc = raw.get("Description", "No description")
    if not isinstance(desc, str):
        warnings.append("Description is not a string; Heat accepts it and ignores it")
        desc = str(desc)
    schemas = {str(n): parse_cfn_schema(str(n), spec, hot)
               for n, spec in _section(raw, "Parameters").items()}
    resources: dict[str, RawResource] = {}
    for rname, snippet in _section(raw, "Resources").items():
        if not isinstance(rname, str):
            raise errors.ValidationError(f"Resource name {rname!r} must be a string",
                                         path=("Resources", str(rname)))
        check_resource_name(rname)
        resources[rname] = _resource(rname, snippet, fmt, hot)
    conditions = parse_conditions(raw.get("Conditions"), hot) if fmt.conditions else {}
    return CfnTemplate(
        version=(key, date), description=desc, raw=raw, files=dict(files or {}), hot=hot,
        parameters=schemas, parameter_groups=None, conditions=conditions,
        resources=resources, outputs=_outputs(_section(raw, "Outputs"), fmt, hot, warnings),
        warnings=warnings, locations=loaded.locations, mappings=dict(mappings))
