"""What every storm test asserts once its stack settled, through the API: the stack is
CREATE_COMPLETE, no resource is IN_PROGRESS, each resource was created once (one CREATE_COMPLETE
event each), and each chain's generated value reached its end unchanged (a RandomString created
twice, or a link created again from a newer value, would show)."""
from __future__ import annotations

from collections import Counter
from typing import Any

from tests.storms.conftest import Storm


def chains(width: int, depth: int, wait: float) -> dict[str, Any]:
    """``width`` chains: a RandomString ``rs<i>`` whose value is passed along ``depth``
    TestResources ``c<i>_<k>`` (each taking ``wait`` s to create)."""
    res: dict[str, Any] = {}
    for i in range(width):
        res[f"rs{i}"] = {"type": "OS::Heat::RandomString", "properties": {"length": 24}}
        for k in range(depth):
            prev = ["rs" + str(i), "value"] if k == 0 else [f"c{i}_{k - 1}", "output"]
            res[f"c{i}_{k}"] = {"type": "OS::Heat::TestResource",
                                "properties": {"value": {"get_attr": prev}, "wait_secs": wait}}
    return {"heat_template_version": "2018-08-31", "resources": res,
            "outputs": {**{f"end{i}": {"value": {"get_attr": [f"c{i}_{depth - 1}", "output"]}}
                           for i in range(width)},
                        **{f"rs{i}": {"value": {"get_attr": [f"rs{i}", "value"]}}
                           for i in range(width)}}}


def assert_created_once(storm: Storm, stack_id: str, template: dict[str, Any]) -> None:
    st = storm.stack(stack_id)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    resources = storm.get(storm.path(stack_id) + "/resources").json()["resources"]
    assert {r["resource_name"] for r in resources} == set(template["resources"])
    assert [r["resource_name"] for r in resources
            if r["resource_status"] != "CREATE_COMPLETE"] == []
    events = storm.get(storm.path(stack_id) + "/events?limit=1000").json()["events"]
    created = Counter(e["resource_name"] for e in events
                      if e["resource_status"] == "CREATE_COMPLETE"
                      and e["resource_name"] in template["resources"])
    assert dict(created) == {name: 1 for name in template["resources"]}, created
    outputs = {o["output_key"]: o["output_value"] for o in st["outputs"]}
    ends = {k: v for k, v in outputs.items() if k.startswith("end")}
    assert ends
    for key, value in ends.items():
        generated = outputs["rs" + key.removeprefix("end")]
        assert value == generated and len(value) == 24, (key, value, generated)


def assert_clean_outage(storm: Storm, since: float) -> None:
    """Every answer of the API from ``since`` on: 2xx, or a 503 in Heat's fault shape."""
    for _t, status, body in [s for s in storm.probe.seen if s[0] >= since]:
        if status < 500:
            continue
        assert status == 503, (status, body)
        assert body["code"] == 503 and body["title"] == "Service Unavailable", body
        assert body["error"]["type"] and body["error"]["message"], body
