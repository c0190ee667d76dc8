"""The ``create_checks`` and ``paths`` areas of the fidelity cases.

``create_checks``: a property whose value is only known at create (a ``get_attr``) and fails
its constraints then. Heat's ``Resource.create`` runs ``Properties.validate`` as the
``pre_func`` of ``_do_action``, inside ``_action_recorder``: the resource goes
CREATE_IN_PROGRESS, then CREATE_FAILED with ``ResourceFailure``'s text of the error, whose path
starts at the raw section name (``Properties.length``: the properties' ``error_prefix``, not
``Resource.validate_template``'s ``get_section_name``); ``create`` then re-raises it with the
resource's name in front (``r.Properties.length``), which is the stack's reason.

``paths``: ``HeatExceptionWithPath`` prints every all-digit path item as ``[n]`` (a resource
named ``0`` is ``resources[0]``, a list index ``character_classes[0]``). The outcomes are
recorded from the real Heat by ``record.py``.
"""
from __future__ import annotations

from tests.corpus.fidelity.cases import Case, hot

CREATE = "heat.engine.resource.Resource.create (pre_func=Properties.validate in _do_action)"
PATH = "heat.common.exception.HeatExceptionWithPath (an all-digit path item as [n])"

_VALUE = "  a: {{type: OS::Heat::Value, properties: {{value: {value}}}}}\n"


def _late(i: str, about: str, value: str, props: str, name: str = "r",
          rtype: str = "OS::Heat::RandomString", after: str = "") -> Case:
    body = ("resources:\n" + _VALUE.format(value=value)
            + f"  '{name}':\n    type: {rtype}\n    properties: {props}\n"
            "  z: {type: OS::Heat::Value, properties: {value: 1}}\n" + after)
    return Case(f"create-check-{i}", about, CREATE, hot(body))


def create_checks() -> list[Case]:
    late = _late
    attr = "{get_attr: [a, value]}"
    return [
        late("range-zero", "RandomString's length from an attribute that is 0 (below min 1)",
             "0", f"{{length: {attr}}}"),
        late("range-over", "RandomString's length from an attribute above its max 512",
             "513", f"{{length: {attr}}}"),
        late("not-integer", "RandomString's length from an attribute that is not a number",
             "abc", f"{{length: {attr}}}"),
        late("allowed", "Value's type (allowed_values) from an attribute not allowed",
             "bogus", f"{{value: 1, type: {attr}}}", rtype="OS::Heat::Value"),
        late("list-item", "a list item's map key (character_classes[0].class) from an "
             "attribute not allowed", "bogus",
             f"{{character_classes: [{{class: {attr}}}]}}"),
        late("list-second-item", "the second list item's min from an attribute below 1",
             "0", "{character_classes: [{class: digits}, {class: lowercase, min: "
             f"{attr}}}]}}"),
        late("dependent", "a resource depending on the one that fails is never started",
             "0", f"{{length: {attr}}}",
             after="  d: {type: OS::Heat::Value, properties: {value: {get_attr: "
                   "[r, value]}}}\n"),
        late("digit-name", "a resource named '0' failing at create", "0",
             f"{{length: {attr}}}", name="0"),
        late("value-typed", "Value typed number given an attribute that is not a number",
             "abc", f"{{type: number, value: {attr}}}", rtype="OS::Heat::Value"),
        *cfn_failures(),
    ]


_CFN = "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n"
RUNTIME = ("heat.common.exception.ResourceFailure (path [get_section_name('resources'), name]; "
           "heat.engine.cfn.template.CfnTemplate.get_section_name returns it as given)")


def cfn_failures() -> list[Case]:
    """A CFN stack's runtime failures: ``ResourceFailure`` asks the template for the section
    name of the literal ``'resources'``, which a CFN template gives back unchanged, so the
    reason reads ``resources.R`` as in HOT (only validation's paths read ``Resources``)."""
    return [
        Case("create-check-cfn-fail", "a CFN TestResource with fail: true", RUNTIME,
             _CFN + "  R:\n    Type: OS::Heat::TestResource\n    Properties: {fail: true}\n"),
        Case("create-check-cfn-range", "a CFN RandomString's length from an attribute that "
             "is 0", CREATE,
             _CFN + "  A: {Type: 'OS::Heat::Value', Properties: {value: 0}}\n"
             "  R:\n    Type: OS::Heat::RandomString\n"
             "    Properties: {length: {'Fn::GetAtt': [A, value]}}\n"),
        Case("create-check-cfn-group", "a CFN ResourceGroup whose member fails at create",
             RUNTIME, _CFN + "  G:\n    Type: OS::Heat::ResourceGroup\n    Properties:\n"
             "      count: 1\n      resource_def: {type: 'OS::Heat::TestResource', "
             "properties: {fail: true}}\n"),
    ]


def _refused(i: str, about: str, body: str, version: str = "2021-04-16") -> Case:
    return Case(f"path-{i}", about, PATH, hot(body, version))


def paths() -> list[Case]:
    p = _refused
    return [
        p("digit-resource", "a resource named '0' with a property out of range",
          "resources:\n  '0': {type: OS::Heat::RandomString, properties: {length: 0}}\n"),
        p("digit-resource-long", "a resource named '12' with an unknown property",
          "resources:\n  '12': {type: OS::Heat::Value, properties: {value: 1, nope: 2}}\n"),
        p("list-index", "a list item's bad map key (character_classes[0].class)",
          "resources:\n  r: {type: OS::Heat::RandomString, properties: "
          "{character_classes: [{class: bogus}]}}\n"),
        p("list-index-second", "the second list item's bad value",
          "resources:\n  r: {type: OS::Heat::RandomString, properties: "
          "{character_classes: [{class: digits}, {class: lowercase, min: 0}]}}\n"),
        p("list-index-digit-resource", "a list item's bad key in a resource named '3'",
          "resources:\n  '3': {type: OS::Heat::RandomString, properties: "
          "{character_sequences: [{sequence: abc, min: 0}]}}\n"),
        p("digit-resource-function", "a resource named '7' with a bad get_param",
          "resources:\n  '7': {type: OS::Heat::Value, properties: {value: {get_param: "
          "nope}}}\n"),
        p("digit-output-function", "an output named '0' with a bad get_attr",
          "resources:\n  r: {type: OS::Heat::Value, properties: {value: 1}}\n"
          "outputs:\n  '0': {value: {get_attr: [nope, value]}}\n"),
        p("digit-resource-not-map", "a resource named '5' whose properties are a list",
          "resources:\n  '5': {type: OS::Heat::Value, properties: [1]}\n"),
        Case("path-cfn-digit-resource", "a CFN resource named '0' with a property out of "
             "range", PATH, "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  '0':\n"
             "    Type: OS::Heat::RandomString\n    Properties: {length: 0}\n"),
    ]
