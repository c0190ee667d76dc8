"""``stoker stack ...`` / ``stoker validate`` against a fake API: requests, rendering, exit codes
and the one-line errors."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli.commands import cli
from tests.unit.cli.conftest import STACK_ID, FakeApi

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  len: {type: number, default: 10}
resources:
  rs:
    type: OS::Heat::RandomString
    properties:
      length: {get_param: len}
outputs:
  pw: {value: {get_attr: [rs, value]}}
"""


@pytest.fixture()
def tpl(tmp_path: Path) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    return path


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def _event(i: int, name: str, status: str, reason: str = "state changed") -> dict[str, Any]:
    return {"id": f"ev{i}", "event_time": f"2026-11-29T08:06:0{i}Z", "resource_name": name,
            "logical_resource_id": name, "resource_status": status,
            "resource_status_reason": reason, "physical_resource_id": "x", "links": []}


def _resource(name: str, status: str) -> dict[str, Any]:
    return {"resource_name": name, "resource_status": status, "resource_type": "OS::Heat::None",
            "physical_resource_id": f"{name}-id", "updated_time": "2026-11-29T08:06:07Z"}


def test_create_posts_heatclient_body(fake_api: FakeApi, tpl: Path) -> None:
    res = run("stack", "create", "-t", str(tpl), "-P", "len=20", "--timeout", "5", "s1",
              "--url", fake_api.url)
    assert res.exit_code == 0, res.output
    _, path, body = next(r for r in fake_api.requests if r[0] == "POST")
    assert path == "/v1/admin/stacks"
    assert body["stack_name"] == "s1" and body["parameters"] == {"len": "20"}
    assert body["timeout_mins"] == 5 and body["disable_rollback"] is True
    assert body["template"]["resources"]["rs"]["type"] == "OS::Heat::RandomString"
    assert body["files"] == {} and body["environment"] == {}
    assert STACK_ID in res.output and "CREATE_COMPLETE" in res.output


def test_create_wait_complete_prints_events_and_outputs(fake_api: FakeApi, tpl: Path) -> None:
    fake_api.statuses = ["CREATE_IN_PROGRESS", "CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    fake_api.resources = [_resource("rs", "CREATE_COMPLETE")]
    fake_api.events = [_event(1, "s1", "CREATE_IN_PROGRESS", "Stack CREATE started"),
                       _event(2, "rs", "CREATE_IN_PROGRESS"), _event(3, "rs", "CREATE_COMPLETE")]
    fake_api.outputs = [{"output_key": "pw", "output_value": "Bi6VKIuu", "description": "the pw"}]
    res = run("stack", "create", "-t", str(tpl), "s1", "--wait", "--url", fake_api.url)
    assert res.exit_code == 0, res.output
    assert "[rs]: CREATE_COMPLETE" in res.output
    assert res.output.count("[rs]: CREATE_IN_PROGRESS") == 1  # each event once (marker)
    assert "Bi6VKIuu" in res.output and "Outputs" in res.output
    markers = [p for m, p, _ in fake_api.requests if "/events" in p and "marker=ev" in p]
    assert markers, "events are fetched after the last one seen"


def test_create_wait_failed_exits_1(fake_api: FakeApi, tpl: Path) -> None:
    fake_api.statuses = ["CREATE_IN_PROGRESS", "CREATE_FAILED"]
    fake_api.events = [_event(1, "rs", "CREATE_FAILED", "Error: boom")]
    res = run("stack", "create", "-t", str(tpl), "s1", "--wait", "--url", fake_api.url)
    assert res.exit_code == 1
    assert "CREATE_FAILED" in res.output and "Error: boom" in res.output


def test_create_wait_with_rollback_follows_the_rollback(fake_api: FakeApi, tpl: Path) -> None:
    fake_api.disable_rollback = False
    fake_api.statuses = ["CREATE_FAILED", "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"]
    res = run("stack", "create", "-t", str(tpl), "s1", "--wait", "--enable-rollback",
              "--url", fake_api.url)
    assert res.exit_code == 1
    assert "ROLLBACK_COMPLETE" in res.output
    body = next(b for m, _, b in fake_api.requests if m == "POST")
    assert body["disable_rollback"] is False


def test_create_conflict_is_one_line_exit_2(fake_api: FakeApi, tpl: Path) -> None:
    fake_api.create_fault = (409, "StackExists", "The Stack (s1) already exists.")
    res = run("stack", "create", "-t", str(tpl), "s1", "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output.strip() == ("stoker: error: HTTP 409 StackExists: "
                                  "The Stack (s1) already exists.")


def test_missing_template_file_exit_2(fake_api: FakeApi, tmp_path: Path) -> None:
    res = run("stack", "create", "-t", str(tmp_path / "none.yaml"), "s1", "--url", fake_api.url)
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "cannot read" in lines[0] and "none.yaml" in lines[0]
    assert not [r for r in fake_api.requests if r[0] == "POST"]


def test_bad_yaml_exit_2(fake_api: FakeApi, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources: {a: [\n")
    res = run("stack", "create", "-t", str(bad), "s1", "--url", fake_api.url)
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and "Error parsing template" in res.output


def test_bad_parameter_exit_2(fake_api: FakeApi, tpl: Path) -> None:
    res = run("stack", "create", "-t", str(tpl), "-P", "oops", "s1", "--url", fake_api.url)
    assert res.exit_code == 2 and "Malformed parameter(oops)" in res.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_api_exit_2(tpl: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1/admin"
    res = run("stack", "list", "--url", url)
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"stoker: error: cannot reach the Orchestration API at {url} "
        "(is `stoker up` running? set --url or STOKER_API_URL)"]


def test_url_from_environment(fake_api: FakeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STOKER_API_URL", fake_api.url)
    res = run("stack", "list")
    assert res.exit_code == 0, res.output
    assert "s1" in res.output


def test_bad_setting_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STOKER_API_PORT", "abc")
    res = run("stack", "list")
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "stoker: error: bad STOKER_* setting: invalid literal for int() with base 10: 'abc'"]


def test_default_endpoint_uses_port_and_tenant() -> None:
    from app import config
    s = config.load({"STOKER_API_PORT": "9999", "STOKER_TENANT": "demo"})
    assert s.api_endpoint == "http://127.0.0.1:9999/v1/demo"


@pytest.mark.parametrize("endpoint, project", [
    ("http://127.0.0.1:8004/v1/admin", "admin"), ("http://h/heat/v1/demo/", "demo"),
    ("http://h:1/v1/a%20b", "a b"), ("http://h:1/v1", None), ("http://h:1/", None)])
def test_the_client_s_project_is_the_endpoint_s_tenant(endpoint: str, project: str | None) -> None:
    from app.cli.client import Client
    client = Client(endpoint)
    assert (client.project, client.session.headers.get("X-Auth-Project")) == (project, project)


def test_show_not_found_exit_2(fake_api: FakeApi) -> None:
    res = run("stack", "show", "nosuch", "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output.strip() == ("stoker: error: HTTP 404 EntityNotFound: "
                                  "The Stack (nosuch) could not be found.")


def test_show_follows_lookup_redirect(fake_api: FakeApi) -> None:
    res = run("stack", "show", "s1", "-f", "json", "--url", fake_api.url)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["id"] == STACK_ID
    assert ("GET", f"/v1/admin/stacks/s1/{STACK_ID}", None) in fake_api.requests


def test_list_table(fake_api: FakeApi) -> None:
    res = run("stack", "list", "--url", fake_api.url)
    assert res.exit_code == 0 and STACK_ID in res.output and "CREATE_COMPLETE" in res.output


def test_delete_wait_until_gone(fake_api: FakeApi) -> None:
    """After DELETE the stack answers 404: that is DELETE_COMPLETE."""
    fake_api.gone_after_delete = True
    fake_api.resources = [_resource("a", "DELETE_IN_PROGRESS")]
    res = run("stack", "delete", "s1", "--wait", "-y", "--url", fake_api.url)
    assert res.exit_code == 0, res.output
    assert ("DELETE", f"/v1/admin/stacks/s1/{STACK_ID}", None) in fake_api.requests
    assert "DELETE_COMPLETE" in res.output


def test_delete_wait_failed_exits_1(fake_api: FakeApi) -> None:
    fake_api.statuses = ["CREATE_COMPLETE", "DELETE_IN_PROGRESS", "DELETE_FAILED"]
    res = run("stack", "delete", "s1", "--wait", "-y", "--url", fake_api.url)
    assert res.exit_code == 1 and "DELETE_FAILED" in res.output


def test_delete_without_wait(fake_api: FakeApi) -> None:
    res = run("stack", "delete", "s1", "-y", "--url", fake_api.url)
    assert res.exit_code == 0 and "Deleting stack s1" in res.output


def test_resource_and_event_lists(fake_api: FakeApi) -> None:
    fake_api.resources = [_resource("rs", "CREATE_COMPLETE")]
    fake_api.events = [_event(1, "rs", "CREATE_COMPLETE")]
    res = run("stack", "resource-list", "s1", "--url", fake_api.url)
    assert res.exit_code == 0 and "rs-id" in res.output
    res = run("stack", "event-list", "s1", "-f", "yaml", "--url", fake_api.url)
    assert res.exit_code == 0 and "resource_status: CREATE_COMPLETE" in res.output


def test_output_show(fake_api: FakeApi) -> None:
    fake_api.outputs = [{"output_key": "pw", "output_value": "secret", "description": "d"}]
    res = run("stack", "output-show", "s1", "pw", "-f", "json", "--url", fake_api.url)
    assert res.exit_code == 0 and json.loads(res.output)["output_value"] == "secret"
    res = run("stack", "output-show", "s1", "nope", "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output.strip() == "stoker: error: HTTP 404 NotFound: Specified output key nope not found."


def test_template_show(fake_api: FakeApi) -> None:
    res = run("stack", "template-show", "s1", "--url", fake_api.url)
    assert res.exit_code == 0 and "heat_template_version: '2018-08-31'" in res.output


def test_validate_ok_and_bad(fake_api: FakeApi, tmp_path: Path, tpl: Path) -> None:
    res = run("validate", "-t", str(tpl), "--url", fake_api.url)
    assert res.exit_code == 0 and "Description: ok" in res.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources: {x: {type: OS::Nope}}\n")
    res = run("validate", "-t", str(bad), "--first-error", "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output.strip() == ("stoker: error: HTTP 400 HTTPBadRequest: "
                                  "The Resource Type (OS::Nope) could not be found.")


def test_validate_lists_every_error_with_path_and_line(fake_api: FakeApi, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources: {x: {type: OS::Nope}}\n")
    res = run("validate", "-t", str(bad), "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "stoker: error: HTTP 400 2 error(s):",
        "  resources.x.type (line 2): The Resource Type (OS::Nope) could not be found.",
        "  resources.y.properties: Property error: resources.y.properties: Unknown Property z"]
    assert fake_api.requests[-1][1].endswith("validate?show_all_errors=true")


def test_non_json_error_body(fake_api: FakeApi) -> None:
    from app.cli.client import Client, CliError
    with pytest.raises(CliError, match=r"HTTP 500 <html>oops</html>"):
        Client(fake_api.url).request("GET", "boom")


def test_delete_wait_shows_only_new_events(fake_api: FakeApi) -> None:
    fake_api.events = [_event(1, "old", "CREATE_COMPLETE", "from the create")]
    fake_api.gone_after_delete = True
    res = run("stack", "delete", "s1", "--wait", "-y", "--url", fake_api.url)
    assert res.exit_code == 0, res.output
    assert "from the create" not in res.output
    assert any("marker=ev1" in p for m, p, _ in fake_api.requests if "/events" in p)


def test_not_a_heat_api(fake_api: FakeApi) -> None:
    url = fake_api.url.replace("/v1/admin", "/v1/odd")
    res = run("stack", "list", "--url", url)
    assert res.exit_code == 2
    assert res.output.strip() == (f"stoker: error: GET {url}/stacks answered without 'stacks': "
                                  "is this an Orchestration API v1 endpoint?")


def test_stack_drift_prints_a_readable_diff(fake_api: FakeApi) -> None:
    res = run("stack", "drift", "s1", "--url", fake_api.url)
    assert res.exit_code == 1, res.output
    assert res.output.splitlines() == [
        "Stack s1: DRIFTED (detected 2026-12-06T08:00:00Z; 1 in sync, 1 modified, 1 deleted, "
        "1 not checked)",
        "  MODIFIED    group/0 (OS::Neutron::SecurityGroup)",
        "      ~ /name: 'a' -> 'b'",
        '      + /rules/1: {"protocol": "udp"}',
        "  DELETED     port (OS::Neutron::Port)",
        "  NOT_CHECKED token (OS::Heat::RandomString): The live state of "
        "OS::Heat::RandomString resources cannot be read."]
    assert [m for m, p, _ in fake_api.requests if "/drift" in p] == ["POST", "GET"]


def test_export_list_shows_the_projects_exports(fake_api: FakeApi) -> None:
    res = run("export", "list", "--url", fake_api.url, "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == [{"name": "net-VpcId", "value": "vpc-1",
                                       "stack_id": STACK_ID, "stack_name": "s1",
                                       "output_key": "VpcId"}]
    table = run("export", "list", "--url", fake_api.url)
    assert table.exit_code == 0 and "net-VpcId" in table.output and "vpc-1" in table.output
    assert [p for m, p, _ in fake_api.requests if m == "GET"] == ["/v1/admin/exports"] * 2
