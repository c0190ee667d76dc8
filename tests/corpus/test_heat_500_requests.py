"""Requests where OpenStack Heat 27.0.1 answers an HTTP 500 (an exception it does not translate,
recorded against the reference Heat of ../shared/reference-heat through its REST API): Stoker
answers a clear 400 that names the problem instead, through the Orchestration API."""
from __future__ import annotations

from typing import Any

T = "heat_template_version: 2021-04-16\n"


def _refusal(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/v1/vt/stacks", json={"stack_name": "s", "template": T, **body})
    assert r.status_code == 400, r.get_data(as_text=True)
    assert client.get("/v1/vt/stacks").get_json()["stacks"] == []  # nothing half-written
    return r.get_json()["error"]


def test_environment_file_missing_from_files_map(client: Any) -> None:
    """Heat: 500 ``KeyError`` (``environment_util.merge_environments`` indexes ``files``).
    Stoker: a 400 ``HTTPBadRequest`` (a malformed request, as heat-api names one), not the
    ``ValueError`` of an environment's own content, naming the file."""
    err = _refusal(client, environment_files=["env.yaml"], files={"other.yaml": "{}"})
    assert err["type"] == "HTTPBadRequest"
    assert err["message"] == "File env.yaml not found in files map."


def test_environment_files_not_a_list(client: Any) -> None:
    """Heat: 500 ``KeyError`` (it iterates the string's characters as file names)."""
    err = _refusal(client, environment_files="env.yaml", files={"env.yaml": "{}"})
    assert err["type"] == "HTTPBadRequest"
    assert "environment_files" in err["message"]
