"""``?show_all_errors=true`` lists every error of a template found in one pass, each with its
template path and (the template sent as text) its line; without it, ``POST /validate``, create
and update answer Heat's single-error fault, unchanged."""
from __future__ import annotations

import json
from typing import Any

import yaml

FIVE = """heat_template_version: 2018-08-31
parameters:
  size:
    type: number
    default: 1
resources:
  web:
    type: OS::Heat::RandomString
    properties:
      lenght: 8
  db:
    type: OS::Nova::NoSuchThing
  net:
    type: OS::Heat::Value
    properties:
      value: {get_resource: missing}
  cfg:
    type: OS::Heat::Value
    depends_on: [ghost]
    properties: {value: 1}
outputs:
  bad:
    value: {get_attr: [web, no_such_attribute]}
"""
#: (path, line, words of the message) of each of FIVE's errors, in template order
EXPECTED = [
    ("resources.web.properties", 10, "Unknown Property lenght"),
    ("resources.db.type", 12, "OS::Nova::NoSuchThing"),
    ("resources.net.properties.value", 16, '"missing"'),
    ("resources.cfg.depends_on", 19, '"ghost"'),
    ("outputs.bad.value.get_attr", 23, "no_such_attribute"),
]


def _listed(resp: Any) -> list[tuple[str, int, str]]:
    errors = resp.get_json()["error"]["errors"]
    assert all(set(e) == {"message", "type", "path", "line", "column"} for e in errors)
    return sorted((e["path"], e["line"], e["message"]) for e in errors)


def _matches(found: list[tuple[str, int, str]]) -> None:
    assert len(found) == len(EXPECTED), "\n".join(map(str, found))
    for (path, line, message), (want_path, want_line, words) in zip(
            sorted(found, key=lambda e: e[1]), EXPECTED):
        assert path.startswith(want_path), (path, want_path)
        assert line == want_line, (path, line)
        assert words in message, (words, message)


def test_validate_lists_the_five_errors_with_paths_and_lines(client: Any) -> None:
    resp = client.post("/v1/admin/validate?show_all_errors=true", json={"template": FIVE})
    assert resp.status_code == 400
    _matches(_listed(resp))
    default = client.post("/v1/admin/validate", json={"template": FIVE})
    assert resp.get_json()["error"]["message"] == default.get_json()["error"]["message"]


def test_the_default_response_is_heats_single_error_byte_for_byte(client: Any) -> None:
    default = client.post("/v1/admin/validate", json={"template": FIVE})
    asked_not = client.post("/v1/admin/validate?show_all_errors=false", json={"template": FIVE})
    assert default.status_code == asked_not.status_code == 400
    assert default.get_data() == asked_not.get_data()
    assert json.loads(default.get_data()) == {
        "code": 400, "title": "Bad Request",
        "explanation": "The server could not comply with the request since it is either "
                       "malformed or otherwise incorrect.",
        "error": {"type": "HTTPBadRequest", "traceback": None,
                  "message": "The Resource Type (OS::Nova::NoSuchThing) could not be found."}}


def test_a_template_sent_as_json_has_paths_without_lines(client: Any) -> None:
    as_json = {**yaml.safe_load(FIVE), "heat_template_version": "2018-08-31"}
    resp = client.post("/v1/admin/validate?show_all_errors=true", json={"template": as_json})
    errors = resp.get_json()["error"]["errors"]
    assert len(errors) == 5 and all(e["line"] is None and e["path"] for e in errors)


def test_a_valid_template_answers_as_without_the_parameter(client: Any) -> None:
    good = "heat_template_version: 2018-08-31\nresources:\n  v: {type: OS::Heat::Value, " \
           "properties: {value: 1}}\n"
    asked = client.post("/v1/admin/validate?show_all_errors=true", json={"template": good})
    plain = client.post("/v1/admin/validate", json={"template": good})
    assert asked.status_code == plain.status_code == 200
    assert asked.get_data() == plain.get_data()


def test_create_and_update_list_every_error_before_anything_is_written(client: Any) -> None:
    resp = client.post("/v1/admin/stacks?show_all_errors=true",
                       json={"stack_name": "five", "template": FIVE})
    assert resp.status_code == 400
    _matches(_listed(resp))
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
    plain = client.post("/v1/admin/stacks", json={"stack_name": "five", "template": FIVE})
    assert plain.status_code == 400 and "errors" not in plain.get_json()["error"]
    assert plain.get_json()["error"]["message"] == resp.get_json()["error"]["message"]

    good = {"heat_template_version": "2018-08-31",
            "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
    href = client.post("/v1/admin/stacks",
                       json={"stack_name": "ok", "template": good}).headers["Location"]
    upd = client.put(href + "?show_all_errors=true", json={"template": FIVE})
    assert upd.status_code == 400
    _matches(_listed(upd))


def test_parameter_errors_are_each_listed(client: Any) -> None:
    tmpl = ("heat_template_version: 2018-08-31\nparameters:\n  a: {type: number}\n"
            "  b: {type: number}\nresources: {}\n")
    resp = client.post("/v1/admin/stacks?show_all_errors=true", json={
        "stack_name": "p", "template": tmpl, "parameters": {"a": "x", "b": "y", "c": 1}})
    messages = [e["message"] for e in resp.get_json()["error"]["errors"]]
    assert len(messages) == 3, messages
    assert any("(c)" in m for m in messages)
    assert any("'a' is invalid" in m for m in messages)
    assert any("'b' is invalid" in m for m in messages)


def test_structural_errors_of_several_resources_and_outputs_are_each_listed(client: Any) -> None:
    tmpl = """heat_template_version: 2018-08-31
resources:
  a:
    type: OS::Heat::Value
    propertees: {value: 1}
  b:
    properties: {value: 2}
  c:
    type: OS::Heat::Value
    properties: {value: {get_attr: [a, value]}}
    depends_on: [b]
outputs:
  o:
    valeu: 1
"""
    resp = client.post("/v1/admin/validate?show_all_errors=true", json={"template": tmpl})
    found = [(e["path"], e["line"], e["message"]) for e in resp.get_json()["error"]["errors"]]
    assert [p.split(".")[:2] for p, _, _ in found] == [
        ["resources", "a"], ["resources", "b"], ["outputs", "o"]], found
    assert [line for _, line, _ in found] == [5, 7, 14], found  # b: its definition's first line


def test_a_bad_field_or_parameter_type_hides_no_other_error(client: Any) -> None:
    """One pass finds every independent error: a bad ``deletion_policy`` (Heat: Delete,
    Retain, Snapshot) is its own error beside the resource's ``depends_on`` and ``get_param``
    errors, and a parameter of an unknown type (Heat's ``Invalid type``) beside the
    resources' errors."""
    tmpl = """heat_template_version: 2018-08-31
parameters:
  p: {type: strng}
resources:
  a:
    type: OS::Heat::Value
    deletion_policy: Bogus
    depends_on: nosuch
    properties: {value: {get_param: nope}}
"""
    resp = client.post("/v1/admin/validate?show_all_errors=true", json={"template": tmpl})
    assert resp.status_code == 400
    found = sorted((e["path"], e["line"]) for e in resp.get_json()["error"]["errors"])
    assert [p for p, _ in found] == ["parameters.p", "resources.a.deletion_policy",
                                     "resources.a.depends_on", "resources.a.properties.value"]
    assert [line for _, line in found] == [3, 7, 8, 9]
    messages = " | ".join(e["message"] for e in resp.get_json()["error"]["errors"])
    for words in ("Invalid type (strng)", 'Invalid deletion policy "Bogus"', '"nosuch"',
                  "(nope)"):
        assert words in messages, messages


def test_show_all_errors_is_a_boolean_flag(client: Any) -> None:
    """As every boolean flag (Heat's ``extract_bool``): anything but true/false is a 400,
    whether the template is valid or not."""
    good = "heat_template_version: 2018-08-31\nresources: {}\n"
    for value in ("maybe", "", "1"):
        for tmpl in (good, FIVE):
            resp = client.post(f"/v1/admin/validate?show_all_errors={value}",
                               json={"template": tmpl})
            assert resp.status_code == 400, (value, resp.get_json())
            assert "show_all_errors" in resp.get_json()["error"]["message"]
    made = client.post("/v1/admin/stacks?show_all_errors=maybe",
                       json={"stack_name": "flag", "template": good})
    assert made.status_code == 400
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
