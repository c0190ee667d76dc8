"""Bodies for /validate and /template_versions match Heat's recorded samples."""
from __future__ import annotations

import json

import pytest

from app import errors
from app.templates import Environment, parse
from app.templates.api_bodies import (
    template_functions_body,
    template_versions_body,
    validate_body,
    validate_template,
)
from tests.unit.templates.nesting import HEAT_NESTING

from .conftest import SHARED, heat_type_schema

REF = (SHARED / "heat-reference").resolve()


def _sample(name: str) -> dict:
    text = (REF / "api-samples" / name).read_text()
    return json.loads("\n".join(line for line in text.splitlines() if not line.startswith("#")))


def test_template_versions_body_matches_heat() -> None:
    assert template_versions_body() == _sample("template_versions.txt")


@pytest.mark.parametrize("cond", [False, True])
def test_function_listings_match_heat(cond: bool) -> None:
    ref = json.loads((REF / "template_functions.json").read_text())
    for version, bodies in ref.items():
        want = [f["functions"] for f in
                bodies["with_condition_func" if cond else "functions"]["template_functions"]]
        got = [f["functions"] for f in template_functions_body(version, cond)
               ["template_functions"]]
        assert got == want, version


def test_function_listing_alias_and_unknown() -> None:
    assert template_functions_body("heat_template_version.wallaby") == \
        template_functions_body("heat_template_version.2021-04-16")
    with pytest.raises(errors.NotFound):
        template_functions_body("heat_template_version.2099-01-01")


def test_validate_body_matches_sample() -> None:
    tmpl = parse("heat_template_version: 2018-08-31\ndescription: anchor RandomString stack\n"
                 "parameters:\n  len: {type: number, default: 10}\n"
                 "resources:\n  r: {type: OS::Heat::RandomString, properties: "
                 "{length: {get_param: len}}}\n")
    assert validate_body(tmpl) == _sample("validate.txt")


def test_validate_template_constraints_groups_value() -> None:
    body = validate_template(
        "heat_template_version: 2018-08-31\n"
        "parameter_groups:\n- {label: g, parameters: [a]}\n"
        "parameters:\n"
        "  a: {type: string, label: A, hidden: true, constraints: "
        "[{length: {min: 1, max: 3}, description: short}, {allowed_values: [x, y]}]}\n"
        "  n: {type: number, constraints: [{range: {min: 0}}]}\n",
        params={"n": 3}, type_schema=heat_type_schema,
        nesting=HEAT_NESTING)
    assert body["Parameters"]["a"] == {
        "Type": "String", "Description": "", "NoEcho": "true", "Label": "A", "MinLength": 1,
        "MaxLength": 3, "AllowedValues": ["x", "y"], "ConstraintDescription": "short"}
    assert body["Parameters"]["n"]["Value"] == 3
    assert body["Parameters"]["n"]["MinValue"] == 0
    assert body["ParameterGroups"] == [{"label": "g", "parameters": ["a"]}]


def test_validate_needs_no_parameter_values_but_checks_types() -> None:
    text = "heat_template_version: 2018-08-31\nparameters:\n  p: {type: string}\n" \
           "resources:\n  r: {type: OS::Nope}\n"
    with pytest.raises(errors.TemplateError, match=r"The Resource Type \(OS::Nope\)"):
        validate_template(text, type_schema=heat_type_schema, nesting=HEAT_NESTING)


def test_validate_returns_warnings_on_request() -> None:
    body = validate_template("heat_template_version: 2018-08-31\ndescription:\n  resources:\n"
                             "    a: {type: OS::Heat::None}\n", with_warnings=True,
                             nesting=HEAT_NESTING)
    assert any("resources" in w for w in body["Warnings"])
    assert body["Environment"] == Environment().to_mapping()


def test_function_descriptions_are_heats() -> None:
    """Heat describes each function by its implementing class's docstring (compared by
    heat-tempest-plugin's API tests); older HOT versions keep their older classes' words."""
    from app.templates.api_bodies import template_functions_body
    newest = {f["functions"]: f["description"]
              for f in template_functions_body("heat_template_version.2021-04-16")["template_functions"]}
    assert newest["get_file"] == "A function for including a file inline."
    assert newest["list_join"] == "A function for joining one or more lists of strings."
    assert newest["repeat"] == "A function for iterating over a list of items or a dict of keys."
    old = {f["functions"]: f["description"]
           for f in template_functions_body("heat_template_version.2015-04-30")["template_functions"]}
    assert old["list_join"] == "A function for joining strings."
    assert old["repeat"] == "A function for iterating over a list of items."
    cfn = template_functions_body("AWSTemplateFormatVersion.2010-09-09", with_condition_func=True)
    described = {f["functions"]: f["description"] for f in cfn["template_functions"]}
    assert described["Fn::Base64"] == "A placeholder function for converting to base64."
    assert described["Fn::Or"] == "A function that acts as an OR operator on conditions."
