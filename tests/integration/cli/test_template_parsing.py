"""``stoker stack create -t FILE`` against the real Orchestration API: the CLI reads a template
with the API's YAML rules, so what the API refuses the CLI refuses with the same parse error
(one line per fault, exit 2) and what it accepts is created."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from app.cli.commands import cli

#: libyaml (the API's parser, as Heat's) refuses a lone surrogate escape; PyYAML's pure-Python
#: loader accepts it, and reads the unquoted version as a ``datetime.date``
LONE_SURROGATE = ('heat_template_version: 2018-08-31\n'
                  'description: "\\ud800"\n'
                  'resources: {}\n')


def run(url: str, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--url", url], catch_exceptions=False)


def test_a_template_the_api_refuses_is_refused_with_its_parse_error(app, url, tmp_path: Path):
    path = tmp_path / "f.yaml"
    path.write_text(LONE_SURROGATE)
    api = app.test_client().post("/v1/admin/stacks",
                                 json={"stack_name": "ls", "template": LONE_SURROGATE})
    assert api.status_code == 400
    reason = api.get_json()["error"]["message"].split("[root stack] ", 1)[1]
    res = run(url, "stack", "create", "-t", str(path), "ls")
    assert res.exit_code == 2
    assert " ".join(reason.split()) in res.output
    assert "found invalid Unicode character escape code" in res.output
    assert app.test_client().get("/v1/admin/stacks/ls").status_code == 404


def test_an_unquoted_version_date_is_sent_as_text(app, url, tmp_path: Path):
    path = tmp_path / "ok.yaml"
    path.write_text(LONE_SURROGATE.replace('"\\ud800"', '"\\u00e9t\\u00e9"'))
    res = run(url, "stack", "create", "-t", str(path), "ok")
    assert res.exit_code == 0, res.output
    assert app.test_client().get("/v1/admin/stacks/ok").status_code == 302
