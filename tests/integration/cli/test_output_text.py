"""``stoker stack output-show`` against the real Orchestration API: a value holding a lone
surrogate (a parameter's ``"\\udc00"`` escape, which the API keeps) is shown with that character
escaped in the table, as ``-f json`` shows it, never a traceback."""
from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from app.cli.commands import cli

TEMPLATE = {"heat_template_version": "2018-08-31",
            "parameters": {"p": {"type": "string"}},
            "resources": {"r": {"type": "OS::Heat::None"}},
            "outputs": {"o": {"value": {"get_param": "p"}, "description": "d\udc01"}}}


def run(url: str, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--url", url], catch_exceptions=False)


def test_an_output_with_a_lone_surrogate_is_shown_escaped(app, url) -> None:
    created = app.test_client().post("/v1/admin/stacks", json={
        "stack_name": "sur", "template": TEMPLATE, "parameters": {"p": "a\udc00b"}})
    assert created.status_code == 201, created.get_json()
    as_json = run(url, "stack", "output-show", "sur", "o", "-f", "json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.output)["output_value"] == "a\udc00b"
    table = run(url, "stack", "output-show", "sur", "o")
    assert table.exit_code == 0, table.output
    assert "a\\udc00b" in table.output and "d\\udc01" in table.output
    shown = run(url, "stack", "show", "sur")
    assert shown.exit_code == 0 and "a\\udc00b" in shown.output
