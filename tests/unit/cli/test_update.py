"""``stoker stack update``: the body it sends is heatclient's."""
from __future__ import annotations

from pathlib import Path

from app.cli import files as cli_files
from tests.fixtures.stacks import GREETING

V1 = GREETING


def test_update_body_is_heatclients(tmp_path: Path):
    tpl = tmp_path / "t.yaml"
    tpl.write_text(V1)
    (tmp_path / "g.txt").write_text("from a file")
    body = cli_files.update_body(str(tpl), (), ("a=1",), ("greeting=g.txt",), 5, "disabled",
                                 "x,y", ("old",))
    assert body["template"]["resources"]["msg"]["type"] == "OS::Heat::TestResource"
    assert body["parameters"] == {"a": "1", "greeting": "from a file"}
    assert (body["timeout_mins"], body["disable_rollback"], body["tags"]) == (5, True, "x,y")
    assert body["clear_parameters"] == ["old"] and body["files"] == {}
    assert body["environment"] == {}
    kept = cli_files.update_body(None, (), ("a=1",))
    assert kept["template"] is None and "disable_rollback" not in kept
