"""The ``nulls`` area of the fidelity cases: a property given an explicit ``null``.

In Heat an explicit null counts as given (``Properties._resolve_user_value`` returns found=True
for any resolved value but the omitted-``if`` Ellipsis), and ``Property.get_value(None)`` turns
it into the type's default or zero value (``_get_string`` '', ``_get_integer`` /
``_get_number`` 0, ``_get_list`` [], ``_get_map`` {}, ``_get_bool`` False, ``any`` stays None),
whose constraints are then checked. A template resource's properties come from the provider
template's parameters without their defaults (``Schema.from_parameter``), and
``TemplateResource.child_params`` passes a given null's zero value to the child stack (a list
as its comma-joined text). The outcomes are recorded from the real Heat by ``record.py``.
"""
from __future__ import annotations

from tests.corpus.fidelity.cases import Case, hot

GET_VALUE = "heat.engine.properties.Property.get_value"
RESOLVE = "heat.engine.properties.Properties._resolve_user_value"
CHILD_PARAMS = "heat.engine.resources.template_resource.TemplateResource.child_params"
FROM_PARAM = "heat.engine.properties.Schema.from_parameter"
RG = "heat.engine.resources.openstack.heat.resource_group.ResourceGroup"


def _child(ptype: str, extra: str = "") -> str:
    return hot(f"parameters:\n  p: {{type: {ptype}{extra}}}\nresources:\n  v: {{type: "
               "OS::Heat::Value, properties: {value: {get_param: p}}}\n"
               "outputs:\n  out: {value: {get_attr: [v, value]}}\n")


def _nested(i: str, about: str, cites: str, child: str, props: str = "{p: null}",
            outputs: str = "outputs:\n  o: {value: {get_attr: [c, out]}}\n",
            before: str = "") -> Case:
    body = (f"resources:\n{before}  c:\n    type: child.yaml\n    properties: {props}\n"
            + outputs)
    return Case(f"null-nested-{i}", about, cites, hot(body), files={"child.yaml": child})


def _value(i: str, about: str, cites: str, props: str) -> Case:
    body = (f"resources:\n  r:\n    type: OS::Heat::Value\n    properties: {props}\n"
            "outputs:\n  v: {value: {get_attr: [r, value]}}\n")
    return Case(f"null-value-{i}", about, cites, hot(body))


def nulls() -> list[Case]:
    n = _nested
    v = _value
    false_cond = "conditions:\n  never: {equals: [1, 2]}\n"
    return [
        # plain resource types
        v("any-required", "OS::Heat::Value's required 'any' value given null", RESOLVE,
          "{value: null}"),
        v("string", "a Value typed string given null", GET_VALUE + " (_get_string)",
          "{type: string, value: null}"),
        v("number", "a Value typed number given null", GET_VALUE + " (_get_number)",
          "{type: number, value: null}"),
        v("list", "a Value typed comma_delimited_list given null",
          GET_VALUE + " (_get_list)", "{type: comma_delimited_list, value: null}"),
        v("json", "a Value typed json given null", GET_VALUE + " (_get_map)",
          "{type: json, value: null}"),
        v("boolean", "a Value typed boolean given null", GET_VALUE + " (_get_bool)",
          "{type: boolean, value: null}"),
        v("type-null", "Value's optional 'type' (allowed_values) given null: '' is checked",
          GET_VALUE + " + Schema.validate_constraints", "{value: 1, type: null}"),
        v("unknown-null", "an unknown property given null", "heat.engine.properties."
          "Properties.validate", "{value: 1, nope: null}"),
        Case("null-random-defaults", "RandomString's length (default 32) and "
             "character_classes (a list default) given null", GET_VALUE,
             hot("resources:\n  r:\n    type: OS::Heat::RandomString\n    properties: "
                 "{length: null, character_classes: null, salt: null}\n"
                 "outputs:\n  n: {value: {yaql: {expression: '$.data.len()', data: "
                 "{get_attr: [r, value]}}}}\n")),
        Case("null-if-omitted-required", "a required property whose 'if' omits it "
             "(Ellipsis: not given)", RESOLVE,
             hot(false_cond + "resources:\n  r:\n    type: OS::Heat::Value\n    "
                 "properties: {value: {if: [never, 1]}}\n")),
        Case("null-get-attr-value", "a required 'any' property given an attribute that "
             "is null", RESOLVE,
             hot("resources:\n  a: {type: OS::Heat::Value, properties: {value: null}}\n"
                 "  r:\n    type: OS::Heat::Value\n    properties: {value: {get_attr: "
                 "[a, value]}}\noutputs:\n  v: {value: {get_attr: [r, value]}}\n")),
        # provider templates: the property schema has no default; child_params passes zero
        n("string", "a provider's required string parameter given null", CHILD_PARAMS,
          _child("string")),
        n("string-default", "a provider's string parameter with a default given null",
          FROM_PARAM + " (no default) + " + CHILD_PARAMS, _child("string", ", default: d")),
        n("number", "a provider's number parameter given null", CHILD_PARAMS,
          _child("number")),
        n("number-default", "a provider's number parameter with a default given null",
          FROM_PARAM + " + " + CHILD_PARAMS, _child("number", ", default: 5")),
        n("list", "a provider's comma_delimited_list parameter given null",
          CHILD_PARAMS + " (an empty list is '')", _child("comma_delimited_list")),
        n("json", "a provider's json parameter given null", CHILD_PARAMS,
          _child("json")),
        n("json-default", "a provider's json parameter with a default given null",
          CHILD_PARAMS, _child("json", ", default: {a: 1}")),
        n("boolean", "a provider's boolean parameter given null", CHILD_PARAMS,
          _child("boolean")),
        n("boolean-default", "a provider's boolean parameter defaulting to true given "
          "null", CHILD_PARAMS, _child("boolean", ", default: true")),
        n("length", "a provider's string parameter with a length constraint given null",
          GET_VALUE + " (constraints of '')",
          _child("string", ", constraints: [{length: {min: 1}}]")),
        n("range", "a provider's number parameter with a range constraint given null",
          GET_VALUE + " (constraints of 0)",
          _child("number", ", default: 2, constraints: [{range: {min: 1}}]")),
        n("unknown", "a property the provider has no parameter for, given null",
          "heat.engine.properties.Properties.validate", _child("string", ", default: d"),
          "{zz: null}"),
        n("absent", "a provider's parameter with a default, not given (the default)",
          CHILD_PARAMS, _child("string", ", default: d"), "{}"),
        n("from-attr", "a provider's required parameter given an attribute that is null",
          CHILD_PARAMS, _child("string"), "{p: {get_attr: [a, value]}}",
          before="  a: {type: OS::Heat::Value, properties: {value: null}}\n"),
        # groups: each member's properties are its own (nulls included)
        Case("null-group-count", "a ResourceGroup count (default 1) given null",
             GET_VALUE + " (_get_integer)",
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: null\n      resource_def: {type: OS::Heat::None}\n"
                 "outputs:\n  o: {value: {yaql: {expression: '$.data.len()', data: "
                 "{get_attr: [g, refs]}}}}\n")),
        Case("null-group-member-value", "group members whose required value is null", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: 2\n      resource_def: {type: OS::Heat::Value, "
                 "properties: {value: null}}\noutputs:\n  o: {value: {get_attr: "
                 "[g, value]}}\n")),
        Case("null-group-member-typed", "group members typed number given null", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: 1\n      resource_def: {type: OS::Heat::Value, "
                 "properties: {type: number, value: null}}\noutputs:\n  o: {value: "
                 "{get_attr: [g, value]}}\n")),
        Case("null-group-provider", "group members of a provider template given null for "
             "a required parameter", RG + " + " + CHILD_PARAMS,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: 2\n      resource_def: {type: child.yaml, properties: "
                 "{p: null}}\n"),
             files={"child.yaml": _child("string")}),
        Case("null-group-provider-number", "group members of a provider template given "
             "null for a number parameter with a range", RG + " + " + GET_VALUE,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: 1\n      resource_def: {type: child.yaml, properties: "
                 "{p: null}}\n"),
             files={"child.yaml": _child("number", ", constraints: [{range: {min: 1}}]")}),
    ]
