"""``POST /validate`` checks what Heat's checks, through the Orchestration API.

Heat validates a template only (``EngineService.validate_template``:
``Stack.validate(validate_res_tmpl_only=True)``, ``strict_validate=False``): each resource's
``Resource.validate_template`` — its definition's structure, deletion and update policies, the
functions' arguments, property *names* (``Properties.validate(with_value=False)``) — and no
plugin's own checks, no property values (types, constraints, required ones, parameters they
read). Every answer below was recorded from the reference Heat 27.0.1
(../shared/reference-heat, REST API) for the same body.
"""
from __future__ import annotations

from typing import Any

import pytest

T = "heat_template_version: 2021-04-16\n"
R = T + "resources:\n  r:\n"

ACCEPTED = {
    "required-property-missing": R + "    type: OS::Heat::Value\n",
    "property-not-an-integer": R + "    type: OS::Heat::RandomString\n"
                                   "    properties: {length: x}\n",
    "property-out-of-range": R + "    type: OS::Heat::RandomString\n"
                                 "    properties: {length: 600}\n",
    "plugin-check": R + "    type: OS::Heat::RandomString\n    properties: {length: 2, "
                        "character_classes: [{class: digits, min: 5}]}\n",
    "get-file-missing": R + "    type: OS::Heat::Value\n"
                            "    properties: {value: {get_file: nope.txt}}\n",
    "group-count-negative": R + "    type: OS::Heat::ResourceGroup\n    properties:\n"
                                "      count: -1\n      resource_def: {type: OS::Heat::None}\n",
    "group-member-unknown": R + "    type: OS::Heat::ResourceGroup\n    properties:\n"
                                "      resource_def: {type: OS::Nope}\n",
}

REFUSED = {
    "unknown-property": (R + "    type: OS::Heat::Value\n    properties: {value: 1, nope: 2}\n",
                         "Property error: resources.r.properties: Unknown Property nope"),
    "function-arguments": (R + "    type: OS::Heat::Value\n    properties: {value: "
                           "{str_replace: {template: x, params: 1}}}\n",
                           'resources.r.properties.value.str_replace: "str_replace" '
                           'parameters must be a mapping'),
    "deletion-policy": (R + "    type: OS::Heat::Value\n    deletion_policy: Keep\n"
                        "    properties: {value: 1}\n", 'Invalid deletion policy "Keep"'),
    "provider-template-missing": (R + "    type: child.yaml\n",
                                  'Could not fetch remote template "child.yaml": Invalid URL '
                                  'scheme '),
}


#: Heat's validate answers 200 for these, and the create then refuses them: Stoker's validate
#: refuses them as the create would (a get_param of an undeclared parameter is reported at
#: validate: the behaviour wanted where Heat's is wrong).
BETTER_THAN_HEAT = {
    "get-param-undeclared": (R + "    type: OS::Heat::Value\n"
                             "    properties: {value: {get_param: nope}}\n",
                             "Property error: resources.r.properties.value: The Parameter "
                             "(nope) was not provided."),
}


@pytest.mark.parametrize("case", sorted(BETTER_THAN_HEAT))
def test_refused_where_heat_accepts_but_its_create_refuses(client: Any, case: str) -> None:
    template, message = BETTER_THAN_HEAT[case]
    r = client.post("/v1/vt/validate", json={"template": template})
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert (err["type"], err["message"]) == ("HTTPBadRequest", message)
    create = client.post("/v1/vt/stacks", json={"stack_name": "s", "template": template})
    assert create.status_code == 400 and create.get_json()["error"]["message"] == message


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_heat_accepts(client: Any, case: str) -> None:
    r = client.post("/v1/vt/validate", json={"template": ACCEPTED[case]})
    assert r.status_code == 200, r.get_data(as_text=True)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_heat_refuses(client: Any, case: str) -> None:
    template, message = REFUSED[case]
    r = client.post("/v1/vt/validate", json={"template": template})
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert (err["type"], err["message"]) == ("HTTPBadRequest", message)


def test_create_still_checks_values(client: Any) -> None:
    """Stack create validates with values (``strict_validate=True``): what /validate lets
    through is refused there, as Heat's create refuses it."""
    r = client.post("/v1/vt/stacks", json={"stack_name": "s",
                                           "template": ACCEPTED["property-out-of-range"]})
    assert r.status_code == 400
    assert r.get_json()["error"]["message"] == (
        "Property error: resources.r.properties.length: 600 is out of range "
        "(min: 1, max: 512)")


@pytest.mark.parametrize("child,why", [
    (R.replace("  r:", "  v:") + "    type: OS::Heat::Value\n",
     "Property value not assigned"),
    (R.replace("  r:", "  v:") + "    type: OS::Heat::RandomString\n"
     "    properties: {length: 600}\n", "length: 600 is out of range (min: 1, max: 512)"),
])
def test_a_child_stack_is_checked_by_names_at_the_parents_create(client: Any, child: str,
                                                                 why: str) -> None:
    """Heat checks a provider template's child at the parent's create as /validate does
    (``StackResource.validate_nested_stack``: ``strict_validate=False``), so a child
    resource's property values fail the child's create: Heat answers 201, then
    ``CREATE_FAILED`` "Resource CREATE failed: StackValidationFailed: resources.c: Property
    error: c.resources.v.properties...". (Heat's reason names the child's resource as
    ``c.resources.v``; Stoker's as ``resources.v``.)"""
    r = client.post("/v1/vt/stacks", json={"stack_name": "s", "files": {"child.yaml": child},
                                           "template": T + "resources:\n  c:\n"
                                                           "    type: child.yaml\n"})
    assert r.status_code == 201, r.get_data(as_text=True)
    sid = r.get_json()["stack"]["id"]
    s = client.get(f"/v1/vt/stacks/s/{sid}").get_json()["stack"]
    assert s["stack_status"] == "CREATE_FAILED"
    assert s["stack_status_reason"].startswith(
        "Resource CREATE failed: StackValidationFailed: resources.c: Property error: ")
    assert s["stack_status_reason"].endswith(why)
