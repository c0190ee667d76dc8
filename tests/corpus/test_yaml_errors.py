"""YAML errors worded as Heat words them, through the Orchestration API.

Heat parses with libyaml and, on an error, parses again with PyYAML's pure-Python SafeLoader to
report its wording with the snippet where the error occurred
(``heat.common.template_format.simple_parse``, ``heat.common.environment_format.parse``). The
expected bodies were recorded from the reference Heat 27.0.1 (../shared/reference-heat).
"""
from __future__ import annotations

from typing import Any

T = "heat_template_version: 2021-04-16\n"
SNIPPET = ("while parsing a flow sequence\n  in \"<unicode string>\", line 1, column 13:\n"
           "    parameters: [a\n                ^\nexpected ',' or ']', but got '<stream end>'\n"
           "  in \"<unicode string>\", line 2, column 1:\n    \n    ^")


def _error(client: Any, **body: Any) -> tuple[int, dict[str, Any]]:
    r = client.post("/v1/vt/stacks", json={"stack_name": "s", **body})
    return r.status_code, (r.get_json() or {}).get("error") or {}


def test_template_yaml_error_as_heat(client: Any) -> None:
    status, err = _error(client, template="heat_template_version: 2021-04-16\nresources: {a\n")
    assert (status, err["type"]) == (400, "HTTPBadRequest")
    assert err["message"] == (
        "Template not in valid format: Error parsing template [root stack] while parsing a "
        "flow mapping\n  in \"<unicode string>\", line 2, column 12:\n    resources: {a\n"
        "               ^\nexpected ',' or '}', but got '<stream end>'\n"
        "  in \"<unicode string>\", line 3, column 1:\n    \n    ^")


def test_body_environment_yaml_error_as_heat(client: Any) -> None:
    status, err = _error(client, template=T, environment="parameters: [a\n")
    assert (status, err["type"], err["message"]) == (
        400, "HTTPBadRequest", f"Environment not in valid format: {SNIPPET}")


def test_environment_file_yaml_error_names_the_file(client: Any) -> None:
    """Heat: 400 ``ValueError`` without a message; Stoker names the file and gives the
    parser's wording."""
    status, err = _error(client, template=T, environment_files=["e.yaml"],
                         files={"e.yaml": "parameters: [a\n"})
    assert (status, err["type"], err["message"]) == (400, "ValueError",
                                                     f"Error parsing e.yaml: {SNIPPET}")
