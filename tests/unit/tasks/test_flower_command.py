"""``stoker up --flower``: Flower's command line and environment from the settings (loopback and
an open API when no authentication is configured; credentials asked for when it is)."""
from __future__ import annotations

import io
import sys

from app import config
from app.cli import up as cli_up
from app.tasks import flower


def test_the_embedded_default_listens_on_loopback_port_5555_with_an_open_api():
    argv, env = flower.command(config.load({}))
    assert argv[:3] == [sys.executable, "-m", "app.tasks.flower"]
    assert "--port=5555" in argv and "--address=127.0.0.1" in argv
    assert env == {"FLOWER_UNAUTHENTICATED_API": "true"}


def test_basic_auth_or_oauth_closes_the_api():
    argv, env = flower.command(config.load({"STOKER_FLOWER_BASIC_AUTH": "ops:pw",
                                            "STOKER_API_HOST": "0.0.0.0"}))
    assert "--basic-auth=ops:pw" in argv and "--address=0.0.0.0" in argv and env == {}
    argv, env = flower.command(config.load({"STOKER_FLOWER_AUTH": r".*@example\.com"}))
    assert r"--auth=.*@example\.com" in argv and env == {}


def test_stoker_up_runs_flower_only_when_asked(tmp_path):
    settings = config.load({}, data_dir=str(tmp_path), flower_port=5601)
    names = [p.name for p in cli_up.procfile(settings, sandbox=False)]
    assert "flower" not in names
    procs = {p.name: p for p in cli_up.procfile(settings, sandbox=False, flower=True)}
    assert "--port=5601" in procs["flower"].argv
    assert procs["flower"].env == {"FLOWER_UNAUTHENTICATED_API": "true"}


def test_a_procs_own_environment_is_added_to_the_supervisors(tmp_path):
    sup = cli_up.Supervisor({"PATH": "/usr/bin:/bin", "A": "1"}, io.StringIO())
    proc = sup.start(cli_up.Proc("env", ["/usr/bin/env"], env={"B": "2"}))
    assert proc.popen is not None and proc.popen.wait(10) == 0
    sup.stop(1)
    out = sup.out.getvalue()
    assert "A=1" in out and "B=2" in out
