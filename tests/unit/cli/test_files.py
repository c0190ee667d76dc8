"""The request the CLI builds equals python-heatclient's for the same files (template_utils)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import files as cli_files

template_utils = pytest.importorskip("heatclient.common.template_utils")
heat_utils = pytest.importorskip("heatclient.common.utils")

MAIN = """\
heat_template_version: 2018-08-31
description: main
resources:
  cfg:
    type: OS::Heat::Value
    properties:
      value: {get_file: scripts/boot.sh}
  blob:
    type: OS::Heat::Value
    properties:
      value: {get_file: data/blob.bin}
  child:
    type: nested/child.yaml
  other:
    type: OS::Heat::None
  mapped:
    type: My::Mapped
  not_a_file:
    type: notes.txt
"""

CHILD = """\
heat_template_version: 2016-10-14
resources:
  leaf:
    type: OS::Heat::Value
    properties:
      value: {get_file: ../scripts/boot.sh}
  grand:
    type: grand.template
"""

GRAND = '{"heat_template_version": "2015-04-30", "resources": {"x": {"type": "OS::Heat::None"}}}'

ENV_A = """\
parameters:
  size: 1
parameter_defaults:
  flavor: small
resource_registry:
  My::Mapped: mapped.yaml
  OS::Alias: OS::Heat::None
  resources:
    child:
      hooks: pre-create
      My::Inner: inner.yaml
"""

ENV_B = """\
parameters:
  size: 2
  extra: {a: 1}
resource_registry:
  base_url: file:///base/
  My::Remote: remote.yaml
"""

MAPPED = "heat_template_version: 2013-05-23\nresources: {}\n"
INNER = "heat_template_version: wallaby\nresources: {}\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "boot.sh").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "blob.bin").write_bytes(bytes(range(256)))
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "child.yaml").write_text(CHILD)
    (tmp_path / "nested" / "grand.template").write_text(GRAND)
    (tmp_path / "main.yaml").write_text(MAIN)
    envs = tmp_path / "envs"
    envs.mkdir()
    (envs / "a.yaml").write_text(ENV_A)
    (envs / "mapped.yaml").write_text(MAPPED)
    (envs / "inner.yaml").write_text(INNER)
    (envs / "b.yaml").write_text(ENV_B.replace("file:///base/", (envs / "remote").as_uri() + "/"))
    (envs / "remote").mkdir()
    (envs / "remote" / "remote.yaml").write_text(MAPPED)
    return tmp_path


def _text(files: dict[str, Any]) -> dict[str, str]:
    return {k: v.decode() if isinstance(v, bytes) else v for k, v in files.items()}


def test_template_files_equal_heatclient(tree: Path) -> None:
    path = str(tree / "main.yaml")
    files, template = cli_files.load_template(path)
    hc_files, hc_template = template_utils.process_template_path(path)
    assert files == _text(hc_files)
    assert template == hc_template
    boot = (tree / "scripts" / "boot.sh").as_uri()
    assert template["resources"]["cfg"]["properties"]["value"] == {"get_file": boot}
    assert template["resources"]["child"]["type"] == (tree / "nested" / "child.yaml").as_uri()
    assert template["resources"]["not_a_file"]["type"] == "notes.txt"
    assert template["heat_template_version"] == "2018-08-31"  # a string, not a date
    child = json.loads(files[(tree / "nested" / "child.yaml").as_uri()])
    assert child["resources"]["leaf"]["properties"]["value"]["get_file"] == boot
    assert (tree / "nested" / "grand.template").as_uri() in files


def test_relative_template_path(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    assert cli_files.load_template("main.yaml") == cli_files.load_template(str(tree / "main.yaml"))


def test_environments_equal_heatclient(tree: Path) -> None:
    paths = [str(tree / "envs" / "a.yaml"), str(tree / "envs" / "b.yaml")]
    files, env, urls = cli_files.load_environments(paths)
    tracker: list[str] = []
    hc_files, hc_env = template_utils.process_multiple_environments_and_files(
        env_paths=paths, env_list_tracker=tracker)
    assert files == _text(hc_files)
    assert env == hc_env
    assert urls == tracker == [Path(p).as_uri() for p in paths]
    assert env["parameters"] == {"size": 2, "extra": {"a": 1}}
    assert env["resource_registry"]["My::Mapped"] == (tree / "envs" / "mapped.yaml").as_uri()
    assert env["resource_registry"]["OS::Alias"] == "OS::Heat::None"
    inner = env["resource_registry"]["resources"]["child"]
    assert inner == {"hooks": "pre-create", "My::Inner": (tree / "envs" / "inner.yaml").as_uri()}
    assert (tree / "envs" / "remote" / "remote.yaml").as_uri() in files


def test_stack_body_equals_heatclient_fields(tree: Path) -> None:
    """The fields heatclient's ``stack create`` puts together (v1/shell.py do_stack_create)."""
    tpl = str(tree / "main.yaml")
    envs = [str(tree / "envs" / "a.yaml"), str(tree / "envs" / "b.yaml")]
    (tree / "key.pub").write_text("ssh-rsa AAA")
    body = cli_files.stack_body("s1", tpl, envs, ("a=1;b=2",), ("key=key.pub",), timeout=7,
                                enable_rollback=True, tags="x,y")
    tpl_files, template = template_utils.process_template_path(tpl)
    tracker: list[str] = []
    env_files, env = template_utils.process_multiple_environments_and_files(
        env_paths=envs, env_list_tracker=tracker)
    expected = {
        "stack_name": "s1", "disable_rollback": False,
        "parameters": {**heat_utils.format_all_parameters(["a=1;b=2"], ["key=key.pub"], tpl)},
        "template": template, "files": _text({**tpl_files, **env_files}), "environment": env,
        "environment_files": tracker, "tags": "x,y", "timeout_mins": 7,
    }
    expected["parameters"] = _text(expected["parameters"])
    assert body == expected


def test_body_without_environment_has_no_environment_files(tree: Path) -> None:
    body = cli_files.stack_body("s", str(tree / "nested" / "grand.template"))
    assert "environment_files" not in body and "timeout_mins" not in body and "tags" not in body
    assert body["environment"] == {} and body["files"] == {} and body["disable_rollback"] is True


@pytest.mark.parametrize("params", [["a=1"], ["a=1;b=x=y"], ["a=1", "a=2", "b=3;4"], []])
def test_parameters_equal_heatclient(params: list[str]) -> None:
    assert cli_files.format_parameters(params) == heat_utils.format_parameters(params)


def test_malformed_parameter() -> None:
    with pytest.raises(cli_files.RequestError, match=r"Malformed parameter\(nokey\)"):
        cli_files.format_parameters(["a=1", "nokey"])


def test_missing_template(tmp_path: Path) -> None:
    with pytest.raises(cli_files.RequestError, match="cannot read .*nope.yaml"):
        cli_files.load_template(str(tmp_path / "nope.yaml"))


def test_bad_yaml_template(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("heat_template_version: 2018-08-31\nresources: [a\n")
    with pytest.raises(cli_files.RequestError, match="Error parsing template .*bad.yaml"):
        cli_files.load_template(str(tmp_path / "bad.yaml"))


def test_not_a_template(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("resources: {}\n")
    with pytest.raises(cli_files.RequestError, match="Template format version not found"):
        cli_files.load_template(str(tmp_path / "t.yaml"))


def test_missing_get_file(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text("heat_template_version: 2018-08-31\noutputs:\n"
                                     "  o: {value: {get_file: gone.txt}}\n")
    with pytest.raises(cli_files.RequestError, match="cannot read .*gone.txt"):
        cli_files.load_template(str(tmp_path / "t.yaml"))


def test_environment_with_unknown_section(tmp_path: Path) -> None:
    (tmp_path / "e.yaml").write_text("paramters: {}\n")
    with pytest.raises(cli_files.RequestError, match='wrong section "paramters"'):
        cli_files.load_environments([str(tmp_path / "e.yaml")])
