"""Arguments the CLI cannot turn into a request: a malformed ``--url`` and a stack name that is
not valid text (a command-line argument that was not UTF-8) end with one line on stderr and
exit status 2, before any request, never a traceback."""
from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from app.cli.commands import cli
from tests.unit.cli.conftest import FakeApi


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("url", ["http://[::1", "http://[::1/v1/admin", "http://]x[/v1/admin"])
def test_a_malformed_url_is_one_line_exit_2(url: str) -> None:
    res = run("stack", "list", "--url", url)
    assert res.exit_code == 2
    assert res.output.startswith(f"stoker: error: invalid API URL {url}: ")
    assert len(res.output.splitlines()) == 1


@pytest.mark.parametrize("args", [["stack", "show", "\udcff"],
                                  ["stack", "output-show", "\udcff", "k"],
                                  ["stack", "delete", "a\udcffb"]])
def test_a_name_that_is_not_text_is_one_line_exit_2(fake_api: FakeApi, args: list[str]) -> None:
    res = run(*args, "--url", fake_api.url)
    assert res.exit_code == 2
    shown = args[2].encode("utf-8", "backslashreplace").decode("ascii")
    assert res.output == f"stoker: error: {shown} is not valid UTF-8 text\n"
    assert fake_api.requests == []


def test_an_output_key_that_is_not_text_is_one_line_exit_2(fake_api: FakeApi) -> None:
    res = run("stack", "output-show", "s1", "k\udcff", "--url", fake_api.url)
    assert res.exit_code == 2
    assert res.output == "stoker: error: k\\udcff is not valid UTF-8 text\n"


def test_a_url_that_is_not_text_is_one_line_exit_2() -> None:
    res = run("stack", "list", "--url", "http://127.0.0.1:9/v1/\udcff")
    assert res.exit_code == 2
    assert res.output == ("stoker: error: cannot send a request to "
                          "http://127.0.0.1:9/v1/\\udcff/stacks: a value in it is not valid "
                          "UTF-8 text\n")
