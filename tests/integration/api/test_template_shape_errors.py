"""Template mistakes where Heat 27.0.1 leaks Python's text (``'list' object has no attribute
'items'``, ``replace() argument 2 must be str, not int``) or where a body's number cannot be
read: POST /v1/{tenant}/stacks answers a 400 whose fault names the mistake in the template's
own words (Heat's style), never Python's internals."""
from __future__ import annotations

from typing import Any

V = "2018-08-31"


def _fault(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    resp = client.post("/v1/admin/stacks", json={"stack_name": "shape", **body})
    assert resp.status_code == 400, resp.get_data(as_text=True)
    return resp.get_json()["error"]


def test_resources_section_not_a_map(client: Any) -> None:
    err = _fault(client, {"template": {"heat_template_version": V, "resources": [1]}})
    assert err["type"] == "StackValidationFailed"
    assert err["message"] == ('The "resources" section must be a map of resource names to '
                              "resource definitions, not a list")


def test_outputs_and_parameters_sections_not_maps(client: Any) -> None:
    for key, word in (("outputs", "output"), ("parameters", "parameter")):
        err = _fault(client, {"template": {"heat_template_version": V, key: [1]}})
        assert err == {"type": "StackValidationFailed", "traceback": None,
                       "message": f'The "{key}" section must be a map of {word} names to '
                                  f"{word} definitions, not a list"}


def test_repeat_with_numbers_to_replace_in_a_string(client: Any) -> None:
    """Heat's ``Repeat._do_replacement`` calls ``str.replace`` with each for_each item, so a
    number fails (heat/engine/hot/functions.py): the same refusal, in the template's words."""
    repeat = {"repeat": {"for_each": {"<%x%>": [1, 2]}, "template": "a-<%x%>"}}
    err = _fault(client, {"template": {"heat_template_version": V, "resources": {
        "v": {"type": "OS::Heat::Value", "properties": {"value": repeat}}}}})
    assert err["type"] == "StackValidationFailed"
    assert err["message"] == ('Property error: resources.v.properties.value: The values of the '
                              '"for_each" argument to "repeat" must be lists of strings to '
                              'replace "<%x%>" in a string template; found a number')


def test_timeout_with_more_digits_than_python_reads(client: Any) -> None:
    """As heat-api's ``param_utils.extract_int`` answers the same number sent as a string."""
    head = '{"stack_name": "big", "template": {"heat_template_version": "2018-08-31"}, '
    for tail, message in (
            ('"timeout_mins": ' + "9" * 5000 + "}",
             "Only integer is acceptable by 'timeout_mins'."),
            ('"parameters": {"n": ' + "9" * 5000 + "}}",
             "A number in the request body has 5000 digits; at most 4300 can be read.")):
        resp = client.post("/v1/admin/stacks", data=head + tail, content_type="application/json")
        assert resp.status_code == 400
        assert resp.get_json()["error"] == {"type": "HTTPBadRequest", "traceback": None,
                                            "message": message}
