"""An environment file given with python-heatclient's ``-e`` arrives twice — merged into the
body's ``environment`` and by name in ``environment_files`` — so its ``event_sinks`` must not be
listed (and every event delivered) twice."""
from __future__ import annotations

from app.services import environments

T = {"heat_template_version": "2018-08-31",
     "parameters": {"p": {"type": "string", "default": "d"}},
     "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "p"}}}}}


def test_two_files_with_different_sinks_keep_both_in_order():
    files = {"a.yaml": "event_sinks: [{type: zaqar-queue, target: a}]",
             "b.yaml": "event_sinks: [{type: zaqar-queue, target: b}, "
                       "{type: zaqar-queue, target: a}]"}
    merged = environments.merge({"event_sinks": [{"type": "zaqar-queue", "target": "a"}]}, None,
                                ["a.yaml", "b.yaml"], files, T)
    assert [s["target"] for s in merged["event_sinks"]] == ["a", "b"]


def test_distinct_keeps_first_occurrences():
    assert environments.distinct([{"x": 1}, "p", {"x": 1}, "q", "p"]) == [{"x": 1}, "p", "q"]
    assert environments.distinct(None) == []
