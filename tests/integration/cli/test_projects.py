"""``stoker stack ...`` acts in one project, the ``<tenant>`` of its endpoint (``STOKER_TENANT``
or ``--url``), against the real Orchestration API in noauth mode (a werkzeug server on a
loopback port over the ``app`` fixture). Heat's noauth takes the project from
``X-Auth-Project`` only, and an admin's plain list holds every project's stacks while a name is
looked up in the caller's project alone: the CLI sends its project as that header and lists
that project's stacks, so what ``stack list`` shows, ``stack show NAME`` finds."""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner

from app.cli.commands import cli
from tests.fixtures.stacks import GREETING


@pytest.fixture()
def web_in_demo(app: Any) -> str:
    """A stack ``web`` of project ``demo`` (made as Heat's noauth makes one: the header)."""
    resp = app.test_client().post("/v1/demo/stacks", headers={"X-Auth-Project": "demo"}, json={
        "stack_name": "web", "template": {"heat_template_version": "2018-08-31",
                                          "resources": {"r": {"type": "OS::Heat::None"}}}})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.get_json()["stack"]["id"])


def run(*args: str, **env: str) -> Any:
    return CliRunner(env=env).invoke(cli, list(args), catch_exceptions=False)


def _projects(app: Any) -> dict[str, str]:
    listed = app.test_client().get("/v1/admin/stacks?global_tenant=true").get_json()["stacks"]
    return {s["stack_name"]: s["project"] for s in listed}


def test_the_url_s_project_lists_and_shows_its_stacks(app, url, web_in_demo):
    demo = url.replace("/v1/admin", "/v1/demo")
    listed = run("stack", "list", "-f", "json", "--url", demo)
    assert listed.exit_code == 0, listed.output
    assert '"stack_name": "web"' in listed.output
    shown = run("stack", "show", "web", "-f", "json", "--url", demo)
    assert shown.exit_code == 0, shown.output
    assert f'"id": "{web_in_demo}"' in shown.output


def test_stoker_tenant_is_the_project_of_every_command(app, url, web_in_demo, tmp_path: Path):
    port = str(urlsplit(url).port)
    env = {"STOKER_API_PORT": port, "STOKER_TENANT": "demo", "STOKER_API_URL": ""}
    shown = run("stack", "show", "web", "-f", "json", **env)
    assert shown.exit_code == 0, shown.output
    assert f'"id": "{web_in_demo}"' in shown.output
    (tmp_path / "t.yaml").write_text(GREETING)
    made = run("stack", "create", "-t", str(tmp_path / "t.yaml"), "made", "--wait", **env)
    assert made.exit_code == 0, made.output
    assert _projects(app) == {"web": "demo", "made": "demo"}


def test_another_project_s_stack_is_neither_listed_nor_shown(app, url, web_in_demo):
    assert run("stack", "create", "-t", _template(app), "mine", "--url", url).exit_code == 0
    listed = run("stack", "list", "-f", "json", "--url", url)
    assert listed.exit_code == 0, listed.output
    assert '"stack_name": "mine"' in listed.output and '"web"' not in listed.output
    shown = run("stack", "show", "web", "--url", url)
    assert (shown.exit_code, shown.output.strip()) == (
        2, "stoker: error: HTTP 404 EntityNotFound: The Stack (web) could not be found.")


def test_all_projects_lists_every_project_s_stacks_with_their_project(app, url, web_in_demo):
    assert run("stack", "create", "-t", _template(app), "mine", "--url", url).exit_code == 0
    listed = run("stack", "list", "--all-projects", "--url", url)
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    header = next(line for line in lines if "Stack Name" in line)
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == [
        "ID", "Stack Name", "Project", "Stack Status", "Creation Time", "Updated Time"]
    rows = {line.split("│")[2].strip(): line.split("│")[3].strip()
            for line in lines if line.count("│") == 7}
    assert rows == {"web": "demo", "mine": "admin"}


def _template(app: Any) -> str:
    path = Path(app.config["STOKER_SETTINGS"].data_dir) / "greeting.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GREETING)
    return str(path)
