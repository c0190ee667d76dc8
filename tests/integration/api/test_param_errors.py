"""Parameter value errors read as Heat 27.0.1 words them. Recorded from the real Heat
(reference-heat, ``POST /stacks/preview``): Heat's own number and list messages carry Python's
text (``int() argument must be ...``, ``'dict' object has no attribute 'split'``), because
``NumberParam`` / ``CommaDelimitedListParam`` pass the exception's text on; Stoker gives the
same text, and never a repr of its own objects. PATCH with only undeclared parameters is
accepted (202) as Heat accepts it: ``_prepare_stack_updates`` drops parameters the template does
not declare (heat/engine/service.py), and the update completes with nothing changed."""
from __future__ import annotations

from typing import Any

import pytest

T = {"heat_template_version": "2018-08-31",
     "parameters": {"n": {"type": "number", "default": 1},
                    "l": {"type": "comma_delimited_list", "default": "a"}},
     "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "n"}}}}}


@pytest.mark.parametrize(("params", "message"), [
    ({"n": [1]}, "Parameter 'n' is invalid: int() argument must be a string, a bytes-like object "
                 "or a real number, not 'list'"),
    ({"n": "abc"}, "Parameter 'n' is invalid: could not convert string to float: 'abc'"),
    ({"l": {"a": 1}}, "Parameter 'l' is invalid: Value must be a comma-delimited list string: "
                      "'dict' object has no attribute 'split'"),
])
def test_messages_are_heats(client: Any, params: dict[str, Any], message: str) -> None:
    resp = client.post("/v1/admin/stacks/preview",
                       json={"stack_name": "p", "template": T, "parameters": params})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == message
    assert "<" not in message and "object at 0x" not in message


def test_patch_with_only_undeclared_parameters_is_accepted_and_changes_nothing(client: Any):
    resp = client.post("/v1/admin/stacks", json={"stack_name": "pt", "template": T,
                                                 "parameters": {"n": 3}})
    href = resp.headers["Location"]
    before = client.get(href).get_json()["stack"]["parameters"]
    patched = client.patch(href, json={"parameters": {"nosuch": 1}})
    assert patched.status_code == 202
    after = client.get(href).get_json()["stack"]
    assert after["stack_status"] == "UPDATE_COMPLETE"
    assert after["parameters"] == before and "nosuch" not in after["parameters"]
    # a PUT (not existing) with an undeclared parameter is Heat's 400 UnknownUserParameter
    put = client.put(href, json={"template": T, "parameters": {"nosuch": 1}})
    assert put.status_code == 400
    assert put.get_json()["error"]["message"] == "The Parameter (nosuch) was not defined in template."


def test_undeclared_parameters_of_an_update_as_heat_treats_them(client: Any):
    """heat/engine/service.py ``_prepare_stack_updates``: not existing, the environment's
    ``parameters`` (the body's ``parameters`` merged into them) are validated by
    ``Parameters._validate_user_parameters``: an undeclared one is 400 UnknownUserParameter;
    ``parameter_defaults`` are not user parameters and may name anything; existing (a PATCH,
    or ``existing: true`` on a PUT), the parameters the new template does not declare are
    dropped, new and kept alike."""
    href = client.post("/v1/admin/stacks", json={"stack_name": "und", "template": T}
                       ).headers["Location"]
    put = client.put(href, json={"template": T, "environment": {"parameters": {"zz": 1}}})
    assert put.status_code == 400
    assert put.get_json()["error"] == {"type": "UnknownUserParameter", "traceback": None,
                                       "message": "The Parameter (zz) was not defined in "
                                                  "template."}
    assert client.put(href, json={"template": T, "environment": {
        "parameter_defaults": {"zz": 1}}}).status_code == 202
    assert client.put(href, json={"template": T, "existing": True,
                                  "parameters": {"zz": 1, "n": 5}}).status_code == 202
    after = client.get(href).get_json()["stack"]
    assert after["stack_status"] == "UPDATE_COMPLETE"
    assert after["parameters"]["n"] == "5" and "zz" not in after["parameters"]
    env = client.get(f"{href}/environment").get_json()
    assert env["parameters"] == {"n": 5}
