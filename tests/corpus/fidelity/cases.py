"""The fidelity cases: small templates of our own, one behaviour each, grouped by area. Each
names the Heat function whose behaviour it follows (``cites``); the outcome is not written here:
``record.py`` asks the real Heat 27.0.1 and stores its answer in ``vectors/<area>.json``.

Areas: ``parameters`` (type coercion of number / json / comma_delimited_list / boolean values
given as strings, other notations or other JSON types; constraints on coerced values),
``functions`` (argument validation of intrinsic functions: what Heat refuses at validation),
``url_map`` (make_url, map_merge, map_replace at their edges), ``cfn_lists`` (Fn::Select,
Fn::Join, Fn::Split, Fn::FindInMap... given malformed members; Fn::GetAZs is left out: its
answer is the cloud's, and the reference Heat has none), ``nested``
(provider templates and groups validated at the parent's create).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Case:
    id: str
    about: str
    cites: str
    template: str
    parameters: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    environments: list[str] = field(default_factory=list)

    def as_vector(self) -> dict[str, Any]:
        return {"id": self.id, "about": self.about, "cites": self.cites,
                "template": self.template, "files": self.files,
                "environments": self.environments, "parameters": self.parameters}


def hot(body: str, version: str = "2021-04-16") -> str:
    return f"heat_template_version: {version}\n{body}"


def _j(value: Any) -> str:
    return json.dumps(value)


# -- parameters ------------------------------------------------------------------------------
P_NUMBER = "heat.engine.parameters.NumberParam (value -> int, else float; strutils)"
P_JSON = "heat.engine.parameters.JsonParam.parse (str -> json.loads; map/list kept)"
P_LIST = "heat.engine.parameters.CommaDelimitedListParam.parse"
P_BOOL = "heat.engine.parameters.BooleanParam (oslo strutils.bool_from_string strict)"
P_CONS = "heat.engine.constraints.Range/Length/AllowedValues/AllowedPattern.validate"


def _param_case(i: str, ptype: str, value: Any, cites: str, extra: str = "") -> Case:
    body = (f"parameters:\n  p:\n    type: {ptype}\n{extra}"
            "outputs:\n  v: {value: {get_param: p}}\n")
    return Case(f"param-{ptype.replace('_', '-')}-{i}",
                f"{ptype} parameter given {value!r}", cites, hot(body), {"p": value})


def _param_default_case(i: str, ptype: str, default: Any, cites: str) -> Case:
    body = (f"parameters:\n  p:\n    type: {ptype}\n    default: {_j(default)}\n"
            "outputs:\n  v: {value: {get_param: p}}\n")
    return Case(f"param-default-{ptype.replace('_', '-')}-{i}",
                f"{ptype} parameter with the default {default!r}", cites, hot(body))


def parameters() -> list[Case]:
    out: list[Case] = []
    numbers = {"int-str": "42", "float-str": "1.5", "exp-str": "1e3", "neg-str": "-7",
               "space-str": " 3 ", "hex-str": "0x10", "word": "abc", "empty": "",
               "inf": "inf", "nan": "nan", "underscore": "1_000", "int": 42, "float": 2.5,
               "bool": True, "list": [1], "plus": "+5", "exp-neg": "2.5E-2",
               "big": "12345678901234567890", "trailing-dot": "5.", "zero-float": "0.0"}
    for i, v in numbers.items():
        out.append(_param_case(i, "number", v, P_NUMBER))
    jsons = {"map-str": '{"a": 1}', "list-str": "[1, 2]", "null-str": "null",
             "string-str": '"s"', "number-str": "1", "bad": "{not json", "map": {"a": [1]},
             "list": [1, "x"], "empty": "", "int": 5, "nested-str": '{"a": {"b": [true]}}'}
    for i, v in jsons.items():
        out.append(_param_case(i, "json", v, P_JSON))
    lists = {"plain": "a,b,c", "spaces": " a , b ", "empty": "", "doubled": "a,,b",
             "trailing": "a,b,", "list": ["x", "y"], "list-nums": [1, 2], "int": 5,
             "json-str": '["x", "y"]', "single": "one", "map": {"a": 1}}
    for i, v in lists.items():
        out.append(_param_case(i, "comma_delimited_list", v, P_LIST))
    bools = {"true": "true", "True": "True", "yes": "yes", "one": "1", "on": "on",
             "t": "t", "y": "y", "false": "false", "no": "no", "zero": "0", "off": "off",
             "maybe": "maybe", "bool": True, "int": 1, "empty": "", "bool-false": False}
    for i, v in bools.items():
        out.append(_param_case(i, "boolean", v, P_BOOL))
    strings = {"int": 5, "list": ["a"], "map": {"a": 1}, "bool": False}
    for i, v in strings.items():
        out.append(_param_case(i, "string", v, "heat.engine.parameters.StringParam"))
    defaults = [("number", "exp", "1e2"), ("number", "word", "ten"), ("number", "str", "7"),
                ("json", "str", '{"k": "v"}'), ("json", "bad", "[1,"),
                ("json", "list", [1, 2]), ("boolean", "yes", "yes"),
                ("boolean", "word", "sure"), ("boolean", "int", 0),
                ("comma_delimited_list", "list", ["a", "b"]),
                ("comma_delimited_list", "str", "a, b"), ("string", "int", 3),
                ("number", "bool", False)]
    for t, i, d in defaults:
        out.append(_param_default_case(i, t, d, P_NUMBER if t == "number" else P_JSON
                                       if t == "json" else P_BOOL if t == "boolean"
                                       else P_LIST))
    cons = [
        ("range-min-edge", "number", "1", "    constraints: [{range: {min: 1, max: 3}}]\n"),
        ("range-max-edge", "number", "3", "    constraints: [{range: {min: 1, max: 3}}]\n"),
        ("range-over", "number", "3.01", "    constraints: [{range: {min: 1, max: 3}}]\n"),
        ("range-under", "number", "0.99", "    constraints: [{range: {min: 1, max: 3}}]\n"),
        ("range-exp", "number", "2e0", "    constraints: [{range: {max: 2}}]\n"),
        ("allowed-float-int", "number", "1.0", "    constraints: [{allowed_values: [1, 2]}]\n"),
        ("allowed-num-str", "number", "2", "    constraints: [{allowed_values: ['2']}]\n"),
        ("length-list", "comma_delimited_list", "a,b,c",
         "    constraints: [{length: {max: 2}}]\n"),
        ("length-json", "json", '{"a": 1, "b": 2}', "    constraints: [{length: {min: 3}}]\n"),
        ("allowed-list", "comma_delimited_list", "a,z",
         "    constraints: [{allowed_values: [a, b]}]\n"),
        ("allowed-list-ok", "comma_delimited_list", "b,a",
         "    constraints: [{allowed_values: [a, b]}]\n"),
        ("pattern-num", "number", "12", "    constraints: [{allowed_pattern: '[0-9]'}]\n"),
        ("pattern-str-partial", "string", "ab1", "    constraints: [{allowed_pattern: '[a-z]+'}]\n"),
        ("length-str-edge", "string", "abc", "    constraints: [{length: {min: 3, max: 3}}]\n"),
        ("range-on-string", "string", "5", "    constraints: [{range: {min: 1}}]\n"),
        ("length-on-number", "number", "5", "    constraints: [{length: {min: 1}}]\n"),
        ("bool-allowed", "boolean", "yes", "    constraints: [{allowed_values: [true]}]\n"),
        ("modulo-ok", "number", "4", "    constraints: [{modulo: {step: 2, offset: 0}}]\n"),
        ("modulo-bad", "number", "5", "    constraints: [{modulo: {step: 2, offset: 0}}]\n"),
        ("modulo-str", "number", "6.0", "    constraints: [{modulo: {step: 3, offset: 0}}]\n"),
    ]
    for i, t, v, c in cons:
        out.append(_param_case(f"constraint-{i}", t, v, P_CONS, c))
    out.append(Case("param-hidden-number", "a hidden number parameter shows ******", P_NUMBER,
                    hot("parameters:\n  p: {type: number, hidden: true}\n"
                        "outputs:\n  v: {value: {get_param: p}}\n"), {"p": "8"}))
    out.append(Case("param-json-get-param-path", "get_param into a json parameter given as a "
                    "string", P_JSON, hot("parameters:\n  p: {type: json}\n"
                                          "outputs:\n  v: {value: {get_param: [p, a, 1]}}\n"),
                    {"p": '{"a": [10, 20]}'}))
    out.append(Case("param-list-get-param-index", "get_param index into a comma_delimited_list "
                    "given as a string", P_LIST,
                    hot("parameters:\n  p: {type: comma_delimited_list}\n"
                        "outputs:\n  v: {value: {get_param: [p, 1]}}\n"), {"p": "x, y"}))
    out.append(Case("param-number-to-property", "a number parameter given as a string feeds "
                    "an integer property", P_NUMBER,
                    hot("parameters:\n  p: {type: number}\nresources:\n  r:\n"
                        "    type: OS::Heat::RandomString\n    properties: {length: {get_param: p}}\n"
                        "outputs:\n  v: {value: {get_param: p}}\n"), {"p": "4.0"}))
    out.append(Case("param-unknown-given", "a parameter the template does not declare",
                    "heat.engine.parameters.Parameters.validate (UnknownUserParameter)",
                    hot("parameters:\n  p: {type: string, default: x}\n"), {"q": "1"}))
    out.append(Case("param-type-unknown", "an unknown parameter type",
                    "heat.engine.hot.parameters.HOTParamSchema.from_dict",
                    hot("parameters:\n  p: {type: integer, default: 1}\n")))
    return out


# -- functions -------------------------------------------------------------------------------
HOT_FN = "heat.engine.hot.functions"


def _in_resource(i: str, snippet: str, cites: str, version: str = "2021-04-16",
                 params: str = "") -> Case:
    body = (params + "resources:\n  r:\n    type: OS::Heat::Value\n"
            f"    properties:\n      value: {snippet}\n"
            "outputs:\n  v: {value: {get_attr: [r, value]}}\n")
    return Case(f"fn-{i}", f"{snippet} in a resource property ({version})",
                f"{HOT_FN}.{cites}", hot(body, version))


def _in_output(i: str, snippet: str, cites: str, version: str = "2021-04-16",
               params: str = "") -> Case:
    body = (params + "resources:\n  r: {type: OS::Heat::None}\n"
            f"outputs:\n  v: {{value: {snippet}}}\n")
    return Case(f"fn-out-{i}", f"{snippet} in an output ({version})", f"{HOT_FN}.{cites}",
                hot(body, version))


def functions() -> list[Case]:
    r = _in_resource
    o = _in_output
    return [
        r("get-param-int", "{get_param: 5}", "GetParam.result"),
        r("get-param-empty-list", "{get_param: []}", "GetParam.result"),
        r("get-param-unknown", "{get_param: nope}", "GetParam.result"),
        r("get-param-map-arg", "{get_param: {a: b}}", "GetParam.result"),
        r("get-resource-list", "{get_resource: [r]}", "GetResource.validate"),
        r("get-resource-self", "{get_resource: r}", "GetResource (dependency on itself)"),
        r("get-attr-one-arg", "{get_attr: [r]}", "GetAttThenSelect._parse_args"),
        r("get-attr-string", "{get_attr: r}", "GetAtt._parse_args"),
        r("get-attr-unknown-res", "{get_attr: [zz, value]}", "GetAtt.validate"),
        o("get-attr-none-unknown", "{get_attr: [r, whatever]}", "GetAtt.validate"),
        o("get-attr-empty", "{get_attr: []}", "GetAtt._parse_args"),
        r("str-replace-params-list", "{str_replace: {template: x, params: [a]}}",
          "Replace._parse_args"),
        r("str-replace-no-template", "{str_replace: {params: {a: b}}}",
          "Replace._parse_args"),
        r("str-replace-list-args", "{str_replace: [x, {a: b}]}", "Replace._parse_args"),
        r("str-replace-extra-key", "{str_replace: {template: x, params: {}, other: 1}}",
          "Replace._parse_args"),
        r("str-replace-template-int", "{str_replace: {template: 5, params: {a: b}}}",
          "Replace.result"),
        r("str-replace-param-list-value", "{str_replace: {template: a, params: {a: [1]}}}",
          "Replace.result"),
        r("str-replace-param-null", "{str_replace: {template: a, params: {a: null}}}",
          "Replace.result"),
        r("str-replace-param-num", "{str_replace: {template: a-b, params: {a: 1, b: 2.5}}}",
          "Replace.result"),
        r("str-replace-strict-missing",
          "{str_replace_strict: {template: abc, params: {z: 1}}}", "ReplaceJson strict"),
        r("str-replace-vstrict-empty",
          "{str_replace_vstrict: {template: abc, params: {a: ''}}}", "ReplaceJsonVStrict"),
        r("list-join-one-arg", "{list_join: [',']}", "Join._parse_args"),
        r("list-join-delim-int", "{list_join: [1, [a, b]]}", "Join.result"),
        r("list-join-not-list", "{list_join: [',', abc]}", "JoinMultiple.result"),
        r("list-join-map-member", "{list_join: [',', [a, {b: c}]]}", "JoinMultiple.result"),
        r("list-join-null-member", "{list_join: [',', [a, null]]}", "JoinMultiple.result"),
        r("list-join-num-member", "{list_join: [',', [a, 1]]}", "JoinMultiple.result"),
        r("list-join-many-lists", "{list_join: [',', [a], [b, c]]}", "JoinMultiple.result"),
        r("list-join-old-many", "{list_join: [',', [a], [b]]}", "Join.result", "2015-04-30"),
        r("repeat-no-for-each", "{repeat: {template: x}}", "Repeat._parse_args"),
        r("repeat-no-template", "{repeat: {for_each: {'%a%': [1]}}}", "Repeat._parse_args"),
        r("repeat-for-each-list", "{repeat: {for_each: [1], template: x}}",
          "Repeat._parse_args"),
        r("repeat-values-not-list", "{repeat: {for_each: {'%a%': b}, template: '%a%'}}",
          "Repeat.result"),
        r("repeat-permutations-false",
          "{repeat: {for_each: {'%a%': [1, 2], '%b%': [x, y]}, template: '%a%%b%', "
          "permutations: false}}", "RepeatWithNestedLoop"),
        r("repeat-permutations-uneven",
          "{repeat: {for_each: {'%a%': [1, 2], '%b%': [x]}, template: '%a%%b%', "
          "permutations: false}}", "RepeatWithNestedLoop"),
        r("digest-bad-alg", "{digest: [sha3, x]}", "Digest.validate_usage"),
        r("digest-one-arg", "{digest: [sha256]}", "Digest.validate_usage"),
        r("digest-value-int", "{digest: [md5, 5]}", "Digest.validate_usage"),
        r("str-split-one-arg", "{str_split: [',']}", "StrSplit._parse_args"),
        r("str-split-value-list", "{str_split: [',', [a]]}", "StrSplit.result"),
        r("str-split-index-out", "{str_split: [',', 'a,b', 5]}", "StrSplit.result"),
        r("str-split-index-str", "{str_split: [',', 'a,b', '1']}", "StrSplit.result"),
        r("map-merge-not-list", "{map_merge: {a: b}}", "MapMerge.result"),
        r("map-merge-list-member", "{map_merge: [{a: 1}, [b]]}", "MapMerge.result"),
        r("map-merge-null-member", "{map_merge: [{a: 1}, null]}", "MapMerge.result"),
        r("list-concat-not-list", "{list_concat: abc}", "ListConcat.result"),
        r("list-concat-member-str", "{list_concat: [[a], b]}", "ListConcat.result"),
        r("list-concat-unique-dupes", "{list_concat_unique: [[a, b], [b, a, c]]}",
          "ListConcatUnique"),
        r("list-concat-null-member", "{list_concat: [[a], null]}", "ListConcat.result"),
        r("contains-one-arg", "{contains: [a]}", "Contains._parse_args"),
        r("contains-not-seq", "{contains: [a, 5]}", "Contains.result"),
        r("contains-str-seq", "{contains: [b, abc]}", "Contains.result"),
        r("filter-not-list", "{filter: [null, abc]}", "Filter.result"),
        r("filter-one-arg", "{filter: [[a]]}", "Filter._parse_args"),
        r("filter-values-str", "{filter: [a, [a, b]]}", "Filter.result"),
        r("equals-one-arg", "{if: [{equals: [a]}, y, n]}", "Equals (condition function)"),
        r("if-two-args", "{if: [true, y]}", "If._read_args"),
        r("if-unknown-cond", "{if: [nocond, y, n]}", "If.validate"),
        r("yaql-no-expression", "{yaql: {data: {}}}", "Yaql._parse_args"),
        r("yaql-bad-expression", "{yaql: {expression: '$.data.', data: {}}}",
          "Yaql.validate"),
        r("yaql-expr-int", "{yaql: {expression: 5, data: {}}}", "Yaql.validate"),
        r("yaql-data-not-map", "{yaql: {expression: '$.data', data: 5}}", "Yaql.result"),
        r("get-file-missing", "{get_file: 'missing.txt'}", "GetFile.result"),
        r("get-file-int", "{get_file: 5}", "GetFile.result"),
        r("resource-facade-bad", "{resource_facade: name}", "ResourceFacade.validate"),
        r("resource-facade-top", "{resource_facade: metadata}", "ResourceFacade.result"),
        r("removed-fn-old", "{list_concat: [[a], [b]]}", "HOT 2016-10-14 function table",
          "2016-10-14"),
        r("removed-get-file-new", "{Fn::Select: [0, [a]]}", "HOT function table (CFN removed)"),
        r("unknown-fn-lookalike", "{str_replce: {template: a, params: {}}}",
          "hot.template (a one-key map is not a function)"),
        r("two-key-fn-map", "{get_param: a, str_replace: b}",
          "hot.template (a map with two keys is data)"),
        o("output-list-join-bad", "{list_join: [1, 2]}", "Join.result"),
        o("output-str-split-bad", "{str_split: [1, 2]}", "StrSplit.result"),
        o("output-map-merge-bad", "{map_merge: [1]}", "MapMerge.result"),
        o("output-repeat-bad", "{repeat: {for_each: 1, template: 1}}", "Repeat._parse_args"),
        o("output-get-param-unknown", "{get_param: nope}", "GetParam.result"),
        o("output-digest-bad", "{digest: [sha1024, x]}", "Digest.validate_usage"),
        o("output-equals-bad", "{if: [{equals: a}, y, n]}", "Equals._read_args"),
        o("output-yaql-bad", "{yaql: {expression: '$.'}}", "Yaql._parse_args"),
        o("output-contains-bad", "{contains: a}", "Contains._parse_args"),
        o("output-get-attr-res-unknown", "{get_attr: [nope, x]}", "GetAtt.validate"),
    ]


# -- make_url / map_merge / map_replace ------------------------------------------------------
def url_map() -> list[Case]:
    mu = "MakeURL"

    def url(i: str, args: str) -> Case:
        return _in_output(f"make-url-{i}", f"{{make_url: {args}}}", f"{mu}.result")

    def mm(i: str, snippet: str, cites: str) -> Case:
        return _in_output(i, snippet, cites)

    return [
        url("ipv6-bare", "{scheme: http, host: '::1', port: 80, path: /x}"),
        url("ipv6-bracketed", "{scheme: http, host: '[::1]', path: /x}"),
        url("ipv6-full", "{scheme: https, host: 'fe80::1:2:3', port: 8443}"),
        url("ipv6-zone", "{scheme: http, host: 'fe80::1%eth0'}"),
        url("ipv4", "{scheme: http, host: 10.0.0.1, port: 80, path: a/b}"),
        url("port-str", "{scheme: http, host: h, port: '8080'}"),
        url("port-bad-str", "{scheme: http, host: h, port: eighty}"),
        url("port-zero", "{scheme: http, host: h, port: 0}"),
        url("port-too-big", "{scheme: http, host: h, port: 65536}"),
        url("port-max", "{scheme: http, host: h, port: 65535}"),
        url("port-negative", "{scheme: http, host: h, port: -1}"),
        url("port-float", "{scheme: http, host: h, port: 80.5}"),
        url("no-scheme", "{host: h, path: /p}"),
        url("no-host", "{scheme: file, path: /etc/hosts}"),
        url("unknown-key", "{scheme: http, host: h, user: me}"),
        url("not-map", "[http, h]"),
        url("query-map", "{scheme: http, host: h, query: {a: 'b c', d: 'e&f'}}"),
        url("query-not-map", "{scheme: http, host: h, query: 'a=b'}"),
        url("query-value-list", "{scheme: http, host: h, query: {a: [1, 2]}}"),
        url("fragment", "{scheme: http, host: h, path: p, fragment: 'sec 1'}"),
        url("path-no-slash", "{scheme: http, host: h, path: 'a b'}"),
        url("path-int", "{scheme: http, host: h, path: 5}"),
        url("host-int", "{scheme: http, host: 5}"),
        url("scheme-int", "{scheme: 5, host: h}"),
        url("empty", "{}"),
        url("host-with-port", "{scheme: http, host: 'h:99', port: 80}"),
        mm("map-merge-collision", "{map_merge: [{a: 1, b: 2}, {a: 3}, {b: null}]}",
           f"{HOT_FN}.MapMerge.result"),
        mm("map-merge-nested-no-deep", "{map_merge: [{a: {x: 1}}, {a: {y: 2}}]}",
           f"{HOT_FN}.MapMerge.result"),
        mm("map-merge-empty-list", "{map_merge: []}", f"{HOT_FN}.MapMerge.result"),
        mm("map-merge-int-keys", "{map_merge: [{1: a}, {'1': b}]}",
           f"{HOT_FN}.MapMerge.result"),
        mm("map-replace-keys", "{map_replace: [{a: 1, b: 2}, {keys: {a: c}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-key-collision", "{map_replace: [{a: 1, b: 2}, {keys: {a: b}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-keys-swap", "{map_replace: [{a: 1, b: 2}, {keys: {a: b, b: a}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-keys-merge", "{map_replace: [{a: 1, b: 2}, {keys: {a: z, b: z}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-values", "{map_replace: [{a: 1, b: x}, {values: {1: one, x: ex}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-values-str-key", "{map_replace: [{a: 1}, {values: {'1': one}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-both", "{map_replace: [{a: 1}, {keys: {a: b}, values: {1: 2}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-bad-key", "{map_replace: [{a: 1}, {kees: {a: b}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-not-map", "{map_replace: [[a], {keys: {}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-one-arg", "{map_replace: [{a: 1}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-keys-not-map", "{map_replace: [{a: 1}, {keys: [a]}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-unhashable-value", "{map_replace: [{a: [1]}, {values: {x: y}}]}",
           f"{HOT_FN}.MapReplace.result"),
        mm("map-replace-missing-key", "{map_replace: [{a: 1}, {keys: {zz: b}}]}",
           f"{HOT_FN}.MapReplace.result"),
    ]


# -- CFN list functions ----------------------------------------------------------------------
CFN_FN = "heat.engine.cfn.functions"


def _cfn_out(i: str, snippet: str, cites: str, extra: str = "") -> Case:
    body = ("AWSTemplateFormatVersion: '2010-09-09'\n" + extra +
            "Resources:\n  R: {Type: 'OS::Heat::None'}\n"
            f"Outputs:\n  V: {{Value: {snippet}}}\n")
    return Case(f"cfn-{i}", f"{snippet} (CFN)", f"{CFN_FN}.{cites}", body)


def _cfn_res(i: str, snippet: str, cites: str, extra: str = "") -> Case:
    body = ("AWSTemplateFormatVersion: '2010-09-09'\n" + extra +
            "Resources:\n  R:\n    Type: 'OS::Heat::Value'\n"
            f"    Properties:\n      value: {snippet}\n"
            "Outputs:\n  V: {Value: {'Fn::GetAtt': [R, value]}}\n")
    return Case(f"cfn-res-{i}", f"{snippet} in a property (CFN)", f"{CFN_FN}.{cites}", body)


def cfn_lists() -> list[Case]:
    c, rr = _cfn_out, _cfn_res
    maps = ("Mappings:\n  M:\n    k1: {a: x, b: [1, 2]}\n    k2: {a: y}\n")
    return [
        c("select-index-str", "{'Fn::Select': ['1', [a, b, c]]}", "Select.result"),
        c("select-out-of-range", "{'Fn::Select': [5, [a, b]]}", "Select.result"),
        c("select-negative", "{'Fn::Select': [-1, [a, b]]}", "Select.result"),
        c("select-index-word", "{'Fn::Select': [x, [a, b]]}", "Select.result"),
        c("select-map", "{'Fn::Select': [k, {k: v}]}", "Select.result"),
        c("select-map-missing", "{'Fn::Select': [z, {k: v}]}", "Select.result"),
        c("select-string", "{'Fn::Select': [0, abc]}", "Select.result"),
        c("select-one-arg", "{'Fn::Select': [0]}", "Select._parse_args"),
        c("select-not-list", "{'Fn::Select': abc}", "Select._parse_args"),
        c("select-null-list", "{'Fn::Select': [0, null]}", "Select.result"),
        c("select-float-index", "{'Fn::Select': [1.0, [a, b]]}", "Select.result"),
        c("select-json-str", "{'Fn::Select': [1, '[\"a\", \"b\"]']}", "Select.result"),
        c("join-num-member", "{'Fn::Join': [',', [a, 1]]}", "Join.result"),
        c("join-null-member", "{'Fn::Join': [',', [a, null]]}", "Join.result"),
        c("join-list-member", "{'Fn::Join': [',', [a, [b]]]}", "Join.result"),
        c("join-map-member", "{'Fn::Join': [',', [a, {b: c}]]}", "Join.result"),
        c("join-delim-int", "{'Fn::Join': [1, [a, b]]}", "Join.result"),
        c("join-not-list", "{'Fn::Join': [',', abc]}", "Join.result"),
        c("join-one-arg", "{'Fn::Join': [',']}", "Join._parse_args"),
        c("join-three-args", "{'Fn::Join': [',', [a], [b]]}", "Join._parse_args"),
        c("join-empty", "{'Fn::Join': [',', []]}", "Join.result"),
        c("split-basic", "{'Fn::Split': [',', 'a,b,,c']}", "Split.result"),
        c("split-not-str", "{'Fn::Split': [',', [a]]}", "Split.result"),
        c("split-delim-int", "{'Fn::Split': [1, 'a1b']}", "Split.result"),
        c("split-one-arg", "{'Fn::Split': [',']}", "Split._parse_args"),
        c("split-int-value", "{'Fn::Split': [',', 5]}", "Split.result"),
        c("findinmap-ok-list", "{'Fn::FindInMap': [M, k1, b]}", "FindInMap.result", maps),
        c("findinmap-missing-top", "{'Fn::FindInMap': [M, k9, a]}", "FindInMap.result", maps),
        c("findinmap-missing-second", "{'Fn::FindInMap': [M, k2, b]}", "FindInMap.result",
          maps),
        c("findinmap-no-map", "{'Fn::FindInMap': [N, k1, a]}", "FindInMap.result", maps),
        c("findinmap-two-args", "{'Fn::FindInMap': [M, k1]}", "FindInMap._parse_args", maps),
        c("findinmap-ref-key", "{'Fn::FindInMap': [M, {Ref: K}, a]}", "FindInMap.result",
          maps + "Parameters:\n  K: {Type: String, Default: k2}\n"),
        c("base64-int", "{'Fn::Base64': 5}", "Base64.result"),
        c("base64-list", "{'Fn::Base64': [a]}", "Base64.result"),
        c("replace-not-list", "{'Fn::Replace': abc}", "Replace._parse_args"),
        c("replace-map-second", "{'Fn::Replace': [{a: b}, {c: d}]}", "Replace.result"),
        c("replace-int-value", "{'Fn::Replace': [{'%a%': 1}, 'x%a%']}", "Replace.result"),
        c("member-list-to-map", "{'Fn::MemberListToMap': [Name, Value, "
          "['.member.0.Name=a', '.member.0.Value=1', '.member.1.Name=b', "
          "'.member.1.Value=2']]}", "MemberListToMap.result"),
        c("member-list-to-map-bad", "{'Fn::MemberListToMap': [Name, Value, [garbage]]}",
          "MemberListToMap.result"),
        c("member-list-to-map-not-list", "{'Fn::MemberListToMap': [Name, Value, x]}",
          "MemberListToMap._parse_args"),
        c("getatt-one", "{'Fn::GetAtt': [R]}", "GetAtt._parse_args"),
        c("getatt-string", "{'Fn::GetAtt': 'R.value'}", "GetAtt._parse_args"),
        c("ref-unknown", "{Ref: Nope}", "ResourceRef / ParamRef"),
        c("ref-list", "{Ref: [R]}", "ResourceRef"),
        rr("select-in-prop", "{'Fn::Select': ['9', [a]]}", "Select.result"),
        rr("join-in-prop", "{'Fn::Join': [',', [a, 2]]}", "Join.result"),
        rr("findinmap-in-prop", "{'Fn::FindInMap': [M, k9, a]}", "FindInMap.result", maps),
        rr("split-in-prop", "{'Fn::Split': [',', {a: b}]}", "Split.result"),
    ]


# -- nested and provider-template stacks -----------------------------------------------------
SR = "heat.engine.resources.stack_resource.StackResource.validate_nested_stack"
TR = "heat.engine.resources.template_resource.TemplateResource"
RG = "heat.engine.resources.openstack.heat.resource_group.ResourceGroup.validate"

CHILD = hot("parameters:\n  n: {type: number, default: 1, constraints: [{range: {min: 1, "
            "max: 3}}]}\n  s: {type: string, default: x, constraints: [{allowed_values: "
            "[x, y]}]}\nresources:\n  v: {type: OS::Heat::Value, properties: {value: "
            "{get_param: s}}}\noutputs:\n  out: {value: {get_attr: [v, value]}}\n")
REQ_CHILD = hot("parameters:\n  must: {type: string}\nresources:\n  v: {type: "
                "OS::Heat::Value, properties: {value: {get_param: must}}}\n"
                "outputs:\n  out: {value: {get_attr: [v, value]}}\n")


def _provider(i: str, about: str, cites: str, props: str, child: str = CHILD,
              extra: str = "", outputs: str = "") -> Case:
    body = ("resources:\n  c:\n    type: child.yaml\n" + props + extra +
            (outputs or "outputs:\n  o: {value: {get_attr: [c, out]}}\n"))
    return Case(f"nested-{i}", about, cites, hot(body), files={"child.yaml": child})


def _group(i: str, about: str, definition: str, extra: str = "",
           files: dict[str, str] | None = None) -> Case:
    body = ("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
            f"      count: 2\n      resource_def: {definition}\n" + extra)
    return Case(f"nested-group-{i}", about, RG, hot(body), files=files or {})


def nested() -> list[Case]:
    p = _provider
    bad_res = hot("resources:\n  v: {type: OS::Heat::Value, properties: {nope: 1}}\n")
    bad_type = hot("resources:\n  v: {type: OS::Nope::Thing}\n")
    bad_fn = hot("resources:\n  v: {type: OS::Heat::Value, properties: {value: "
                 "{list_join: [1, 2]}}}\n")
    bad_out = hot("resources:\n  v: {type: OS::Heat::None}\noutputs:\n  x: {value: "
                  "{get_attr: [zz, a]}}\n")
    bad_ref = hot("resources:\n  v: {type: OS::Heat::Value, properties: {value: "
                  "{get_resource: zz}}}\n")
    bad_ver = "heat_template_version: 2099-01-01\nresources: {}\n"
    bad_section = hot("resourcez: {}\n")
    rand_child = hot("parameters:\n  len: {type: number, default: 8}\nresources:\n"
                     "  r: {type: OS::Heat::RandomString, properties: {length: "
                     "{get_param: len}}}\noutputs:\n  out: {value: {get_param: len}}\n")
    grandchild_parent = hot("resources:\n  gc: {type: grand.yaml}\n")
    grand_bad = hot("resources:\n  v: {type: OS::Heat::Value, properties: {valu: 1}}\n")
    loop = hot("resources:\n  again: {type: loop.yaml}\n")
    cases = [
        p("ok", "a provider template with good properties", TR,
          "    properties: {n: 2, s: y}\n"),
        p("range-over", "a property over the child parameter's range", SR,
          "    properties: {n: 4}\n"),
        p("range-str", "a number property given as a string inside the range", SR,
          "    properties: {n: '2'}\n"),
        p("range-str-over", "a number property given as a string over the range", SR,
          "    properties: {n: '9'}\n"),
        p("number-word", "a number property that is not a number", TR,
          "    properties: {n: many}\n"),
        p("allowed-bad", "a string property outside allowed_values", SR,
          "    properties: {s: z}\n"),
        p("unknown-prop", "a property the provider template has no parameter for", TR,
          "    properties: {zz: 1}\n"),
        p("missing-required", "a required property (parameter without default) missing", TR,
          "", REQ_CHILD),
        p("required-given", "the required property given", TR,
          "    properties: {must: here}\n", REQ_CHILD),
        p("required-null", "a required property given as null", TR,
          "    properties: {must: null}\n", REQ_CHILD),
        p("update-policy-map", "update_policy on a template resource", TR,
          "    update_policy: {batch: 1}\n"),
        p("update-policy-list", "update_policy that is not a map", TR,
          "    update_policy: [batch]\n"),
        p("deletion-policy-bad", "an unknown deletion_policy", TR,
          "    deletion_policy: Keep\n"),
        p("child-bad-property", "the child's resource has an unknown property", SR, "",
          bad_res, outputs="outputs: {}\n"),
        p("child-unknown-type", "the child's resource type is unknown", SR, "", bad_type,
          outputs="outputs: {}\n"),
        p("child-bad-function", "the child's function arguments are wrong", SR, "", bad_fn,
          outputs="outputs: {}\n"),
        p("child-bad-output", "the child's output references an unknown resource", SR, "",
          bad_out, outputs="outputs: {}\n"),
        p("child-bad-ref", "the child's get_resource names an unknown resource", SR, "",
          bad_ref, outputs="outputs: {}\n"),
        p("child-bad-version", "the child has an unknown template version", TR, "",
          bad_ver, outputs="outputs: {}\n"),
        p("child-bad-section", "the child has an unknown section", TR, "", bad_section,
          outputs="outputs: {}\n"),
        p("child-not-yaml", "the child is not a template", TR, "", "just: [text",
          outputs="outputs: {}\n"),
        p("attr-unknown", "get_attr of an output the child does not have", TR, "",
          outputs="outputs:\n  o: {value: {get_attr: [c, nope]}}\n"),
        p("rand-length-str", "a number property given as a string feeds the child", SR,
          "    properties: {len: '5'}\n", rand_child),
        Case("nested-grandchild-bad", "a grandchild template with an unknown property", SR,
             hot("resources:\n  c: {type: child.yaml}\n"),
             files={"child.yaml": grandchild_parent, "grand.yaml": grand_bad}),
        Case("nested-recursion", "a provider template that uses itself", SR,
             hot("resources:\n  c: {type: loop.yaml}\n"), files={"loop.yaml": loop}),
        Case("nested-missing-file", "a provider template not in the files map", TR,
             hot("resources:\n  c: {type: missing.yaml}\n")),
        Case("nested-registry-bad-prop", "a registry-mapped type with an unknown property",
             TR, hot("resources:\n  c:\n    type: My::Child\n    properties: {zz: 1}\n"),
             files={"child.yaml": CHILD},
             environments=["resource_registry:\n  My::Child: child.yaml\n"]),
        Case("nested-registry-range", "a registry-mapped type, property over range", SR,
             hot("resources:\n  c:\n    type: My::Child\n    properties: {n: 0}\n"),
             files={"child.yaml": CHILD},
             environments=["resource_registry:\n  My::Child: child.yaml\n"]),
        _group("unknown-type", "a group whose member type is unknown",
               "{type: OS::Nope::Member}"),
        _group("member-bad-prop", "a group whose members have an unknown property",
               "{type: OS::Heat::Value, properties: {nope: 1}}"),
        _group("member-missing-prop", "a group whose members lack a required property",
               "{type: OS::Heat::Value}"),
        _group("ok", "a group of values with the index substituted",
               "{type: OS::Heat::Value, properties: {value: 'v-%index%'}}",
               "outputs:\n  o: {value: {get_attr: [g, value]}}\n"),
        _group("provider-range", "a group of provider members over the child's range",
               "{type: child.yaml, properties: {n: 7}}", files={"child.yaml": CHILD}),
        _group("provider-ok", "a group of provider members",
               "{type: child.yaml, properties: {s: y}}",
               "outputs:\n  o: {value: {get_attr: [g, out]}}\n",
               files={"child.yaml": CHILD}),
        _group("def-extra-key", "a resource_def with an unknown key",
               "{type: OS::Heat::None, propertiez: {}}"),
        _group("def-no-type", "a resource_def without type", "{properties: {}}"),
        Case("nested-group-count-negative", "a group with a negative count", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: -1\n      resource_def: {type: OS::Heat::None}\n")),
        Case("nested-group-count-str", "a group count given as a numeric string", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n    properties:\n"
                 "      count: '3'\n      resource_def: {type: OS::Heat::None}\n")),
        Case("nested-group-update-policy", "a group update_policy with an unknown key", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
                 "    update_policy: {rolling_updatez: {}}\n    properties:\n"
                 "      count: 1\n      resource_def: {type: OS::Heat::None}\n")),
        Case("nested-group-update-policy-bad-value", "a group rolling_update with a bad value",
             RG, hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
                     "    update_policy: {rolling_update: {max_batch_size: 0}}\n"
                     "    properties:\n      count: 1\n"
                     "      resource_def: {type: OS::Heat::None}\n")),
        Case("nested-group-update-policy-ok", "a group with a valid rolling_update", RG,
             hot("resources:\n  g:\n    type: OS::Heat::ResourceGroup\n"
                 "    update_policy: {rolling_update: {max_batch_size: 2, pause_time: 1}}\n"
                 "    properties:\n      count: 1\n"
                 "      resource_def: {type: OS::Heat::None}\n")),
        Case("nested-cfn-image-mapped-missing",
             "a CFN template whose mapped image key does not exist", CFN_FN + ".FindInMap",
             "AWSTemplateFormatVersion: '2010-09-09'\nParameters:\n  Arch: {Type: String, "
             "Default: arm}\nMappings:\n  Images:\n    x86: {Image: cirros}\nResources:\n"
             "  Server:\n    Type: 'OS::Heat::Value'\n    Properties:\n      value: "
             "{'Fn::FindInMap': [Images, {Ref: Arch}, Image]}\n"),
        Case("nested-autoscaling-unknown", "an autoscaling group whose member type is unknown",
             "heat.engine.resources.openstack.heat.autoscaling_group.AutoScalingResourceGroup",
             hot("resources:\n  asg:\n    type: OS::Heat::AutoScalingGroup\n    properties:\n"
                 "      min_size: 1\n      max_size: 2\n"
                 "      resource: {type: OS::Nope::Member}\n")),
    ]
    return cases


AREAS = {"parameters": parameters(), "functions": functions(), "url_map": url_map(),
         "cfn_lists": cfn_lists(), "nested": nested()}
