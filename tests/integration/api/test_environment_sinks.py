"""An environment file given with python-heatclient's ``-e`` arrives twice — merged into the
body's ``environment`` and by name in ``environment_files`` — so its ``event_sinks`` must not be
listed (and every event delivered) twice."""
from __future__ import annotations

from typing import Any

from heatclient.common import template_utils

from app.services import event_sinks

T = {"heat_template_version": "2018-08-31",
     "parameters": {"p": {"type": "string", "default": "d"}},
     "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "p"}}}}}
SINK = {"type": "zaqar-queue", "target": "q1"}
ENV = "parameters: {p: from-file}\nevent_sinks:\n  - {type: zaqar-queue, target: q1}\n"


def _heatclient_fields(tmp_path: Any) -> dict[str, Any]:
    path = tmp_path / "env.yaml"
    path.write_text(ENV)
    tracker: list[str] = []
    files, env = template_utils.process_multiple_environments_and_files(
        env_paths=[str(path)], env_list_tracker=tracker)
    return {"files": files, "environment": env, "environment_files": tracker}


class _Courier:
    """Stands in for a sink's courier: events are kept, never delivered."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, item: Any) -> None:
        self.items.append(item)


def test_heatclient_e_gives_one_sink_in_the_stored_environment(client, tmp_path, monkeypatch):
    kept = _Courier()
    monkeypatch.setattr(event_sinks, "courier", lambda sink: kept)
    fields = _heatclient_fields(tmp_path)
    assert fields["environment"]["event_sinks"] == [SINK] and fields["environment_files"]
    resp = client.post("/v1/admin/stacks", json={"stack_name": "sinks", "template": T, **fields})
    assert resp.status_code == 201, resp.get_json()
    href = resp.headers["Location"]
    env = client.get(f"{href}/environment").get_json()
    assert env["event_sinks"] == [SINK]
    assert env["parameters"] == {"p": "from-file"}
    stack_id = resp.get_json()["stack"]["id"]
    assert [sink.key for sink in event_sinks.stack_sinks(stack_id)] == [
        ("zaqar-queue", "admin", "q1")]
    ids = [body["id"] for body in kept.items]     # the one sink got each event once
    assert ids and len(ids) == len(set(ids))
    assert {body["payload"]["stack_id"] for body in kept.items} == {stack_id}
