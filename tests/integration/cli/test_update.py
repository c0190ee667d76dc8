"""``stoker stack update`` against the real Orchestration API (a werkzeug server on a loopback
port over the ``app`` fixture: SQLite, tasks in-process): the body is heatclient's, PUT or PATCH
(``--existing``), ``--dry-run`` previews, ``--wait`` follows and exits 1 on failure."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli.commands import cli
from tests.fixtures.stacks import GREETING

V1 = GREETING
V2 = V1.replace("  old: {type: OS::Heat::None}", "  new: {type: OS::Heat::None}")
FAILING = V1.replace("{value: {get_param: greeting}}", "{value: boom, fail: true}")


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("v1", V1), ("v2", V2), ("failing", FAILING)):
        (tmp_path / f"{name}.yaml").write_text(text)
        out[name] = str(tmp_path / f"{name}.yaml")
    return out


def run(url: str, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--url", url], catch_exceptions=False)


def stack(app: Any, name: str) -> dict[str, Any]:
    client = app.test_client()
    found = client.get(f"/v1/admin/stacks/{name}")
    body = client.get(found.headers["Location"].split("localhost", 1)[-1]).get_json()
    return dict(body["stack"])


def outputs(app: Any, name: str) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in stack(app, name)["outputs"]}


def test_update_puts_the_new_template(app, url, files):
    assert run(url, "stack", "create", "-t", files["v1"], "s1").exit_code == 0
    res = run(url, "stack", "update", "s1", "-t", files["v2"], "-P", "greeting=hi")
    assert res.exit_code == 0, res.output
    assert "UPDATE_COMPLETE" in res.output and "s1" in res.output
    assert outputs(app, "s1")["msg"] == "hi"
    listed = run(url, "stack", "resource-list", "s1", "-f", "json")
    assert '"new"' in listed.output and '"old"' not in listed.output


def test_update_existing_patches_parameters_and_keeps_the_template(app, url, files):
    run(url, "stack", "create", "-t", files["v2"], "s2", "-P", "greeting=first")
    res = run(url, "stack", "update", "s2", "--existing", "-P", "greeting=patched", "--wait")
    assert res.exit_code == 0, res.output
    assert "[msg]: UPDATE_COMPLETE" in res.output and "patched" in res.output
    assert "[msg]: CREATE_COMPLETE" not in res.output  # only the update's events
    assert outputs(app, "s2")["msg"] == "patched"
    res = run(url, "stack", "update", "s2", "--existing", "--clear-parameter", "greeting",
              "--rollback", "enabled")
    assert res.exit_code == 0, res.output
    st = stack(app, "s2")
    assert st["parameters"]["greeting"] == "hello" and st["disable_rollback"] is False


def test_dry_run_shows_the_changes_and_updates_nothing(app, url, files):
    run(url, "stack", "create", "-t", files["v1"], "s3")
    res = run(url, "stack", "update", "s3", "-t", files["v2"], "--dry-run")
    assert res.exit_code == 0, res.output
    lines = {tuple(line.replace("│", " ").split()[:2]) for line in res.output.splitlines()
             if "OS::Heat" in line}
    assert ("added", "new") in lines and ("deleted", "old") in lines
    assert ("unchanged", "msg") in lines
    assert stack(app, "s3")["stack_status"] == "CREATE_COMPLETE"


def test_failed_update_with_wait_exits_1(app, url, files):
    run(url, "stack", "create", "-t", files["v1"], "s4")
    res = run(url, "stack", "update", "s4", "-t", files["failing"], "--wait")
    assert res.exit_code == 1, res.output
    assert "UPDATE_FAILED" in res.output and "Test Resource failed msg" in res.output


def test_errors_are_one_line_exit_2(app, url, files):
    res = run(url, "stack", "update", "s5", "-P", "a=b")
    assert res.exit_code == 2
    assert ("a template is required: give one with -t FILE, or use --existing to keep the "
            "stack's current template." in res.output)
    res = run(url, "stack", "update", "nosuch", "-t", files["v1"])
    assert res.exit_code == 2
    assert "HTTP 404 EntityNotFound: The Stack (nosuch) could not be found." in res.output
    run(url, "stack", "create", "-t", files["v1"], "s5")
    res = run(url, "stack", "update", "s5", "-t", files["v1"], "-P", "nope=1")
    assert res.exit_code == 2 and "UnknownUserParameter" in res.output
