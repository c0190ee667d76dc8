"""Heat's per-stack limits through the Orchestration API: ``max_template_size`` measures the
template a user sends (heat-api's ``InstantiationData.template`` ->
``template_format.validate_template_limit``), not the child template the engine builds for a
group (``ResourceGroup._assemble_nested`` hands its nested stack a Template, never text);
``max_resources_per_stack`` still counts a group's members with the rest of its root stack
(``StackResource._validate_nested_resources``: ``RequestLimitExceeded`` with
``StackResourceLimitExceeded.msg_fmt``, "Maximum resources per stack exceeded.")."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app import config

BASE = "/v1/lim/stacks"
HEAT_RESOURCE_LIMIT = "Request limit exceeded: Maximum resources per stack exceeded."


@pytest.fixture()
def limits(client: Any) -> Any:
    """Set this process's limits for the test (the API's services read the current settings)."""
    def set_limits(**values: int) -> None:
        config.set_current(config.get().replace(**values))
    return set_limits


def _group(count: int, extra: int = 0) -> dict[str, Any]:
    resources: dict[str, Any] = {"group": {"type": "OS::Heat::ResourceGroup", "properties": {
        "count": count, "resource_def": {"type": "OS::Heat::None"}}}}
    resources.update({f"n{i}": {"type": "OS::Heat::None"} for i in range(extra)})
    return {"heat_template_version": "2018-08-31", "resources": resources,
            "outputs": {"refs": {"value": {"get_attr": ["group", "refs"]}}}}


def _show(client: Any, name: str) -> dict[str, Any]:
    r = client.get(f"{BASE}/{name}")
    if r.status_code == 302:
        r = client.get(r.headers["Location"])
    assert r.status_code == 200, r.get_data(as_text=True)
    return dict(r.get_json()["stack"])


def test_a_sent_template_larger_than_max_template_size_is_refused(client: Any,
                                                                  limits: Any) -> None:
    limits(max_template_size=300)
    text = "heat_template_version: 2018-08-31\nresources:\n" + "".join(
        f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(12))
    assert len(text) > 300
    expected = (f"Request limit exceeded: Template size ({len(text)} bytes) exceeds maximum "
                f"allowed size (300 bytes).")
    for path, body in ((BASE, {"stack_name": "big", "template": text}),
                       ("/v1/lim/validate", {"template": text})):
        r = client.post(path, json=body)
        assert r.status_code == 400, r.get_data(as_text=True)
        err = r.get_json()["error"]
        assert (err["type"], err["message"]) == ("RequestLimitExceeded", expected)
    assert client.get(BASE).get_json()["stacks"] == []


def test_a_group_whose_generated_template_exceeds_max_template_size_is_created(
        client: Any, limits: Any) -> None:
    limits(max_template_size=1500)
    sent = _group(60)
    assert len(json.dumps(sent)) < 1500
    r = client.post(BASE, json={"stack_name": "g", "template": sent})
    assert r.status_code == 201, r.get_data(as_text=True)
    stack = _show(client, "g")
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    refs = stack["outputs"][0]["output_value"]
    assert len(refs) == 60
    group = client.get(f"{BASE}/g/{stack['id']}/resources/group").get_json()["resource"]
    child = next(link["href"] for link in group["links"] if link["rel"] == "nested")
    child_path = child[child.index("/v1/"):]
    generated = client.get(f"{child_path}/template").get_json()
    assert len(generated["resources"]) == 60
    assert len(json.dumps(generated)) > 1500


@pytest.mark.parametrize("count, others, created", [(9, 0, True), (10, 0, False),
                                                    (5, 4, True), (6, 4, False)])
def test_max_resources_per_stack_counts_the_group_with_its_stack(
        client: Any, limits: Any, count: int, others: int, created: bool) -> None:
    """Heat's total when the group makes its nested stack: the root stack's resources (the
    group itself and the others) plus the members."""
    limits(max_resources_per_stack=10)
    r = client.post(BASE, json={"stack_name": "g", "template": _group(count, others)})
    if created:
        assert r.status_code == 201, r.get_data(as_text=True)
        assert _show(client, "g")["stack_status"] == "CREATE_COMPLETE"
        return
    assert r.status_code == 400, r.get_data(as_text=True)
    err = r.get_json()["error"]
    assert (err["type"], err["message"]) == ("RequestLimitExceeded", HEAT_RESOURCE_LIMIT)
    assert client.get(BASE).get_json()["stacks"] == []


GROUP_FILE = """heat_template_version: 2018-08-31
parameters:
  count: {type: number}
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def: {type: OS::Heat::None}
"""


@pytest.mark.parametrize("count, status", [(3, "CREATE_COMPLETE"), (4, "CREATE_FAILED")])
def test_a_nested_group_counts_every_resource_of_its_root_stack(
        client: Any, limits: Any, count: int, status: str) -> None:
    """A group two levels down: its nested stack's members are counted with the root
    stack's 6 resources and the provider stack's group (Heat's ``total_resources`` of the
    root stack), which no check before the create can see: the create fails with Heat's
    message when 6 + 1 + count > 10."""
    limits(max_resources_per_stack=10)
    stack = _nested_group(client, count)
    assert stack["stack_status"] == status, stack["stack_status_reason"]
    if status == "CREATE_FAILED":
        assert "Maximum resources per stack exceeded." in stack["stack_status_reason"]


@pytest.mark.parametrize("count, status", [(3, "CREATE_COMPLETE"), (4, "CREATE_FAILED")])
def test_a_nested_group_counts_every_resource_of_its_root_stack_on_postgresql(
        pg_client: Any, count: int, status: str) -> None:
    """As on SQLite: the walk up to the root and the count down its tree are one recursive
    statement, which both databases run."""
    config.set_current(config.get().replace(max_resources_per_stack=10))
    stack = _nested_group(pg_client, count)
    assert stack["stack_status"] == status, stack["stack_status_reason"]
    if status == "CREATE_FAILED":
        assert "Maximum resources per stack exceeded." in stack["stack_status_reason"]


def _nested_group(client: Any, count: int) -> dict[str, Any]:
    """The stack ``deep`` as shown once its create of a group of ``count`` two levels down
    beside 5 resources ended."""
    template = {"heat_template_version": "2018-08-31", "resources": {
        "inner": {"type": "group.yaml", "properties": {"count": count}},
        **{f"n{i}": {"type": "OS::Heat::None"} for i in range(5)}}}
    r = client.post(BASE, json={"stack_name": "deep", "template": template,
                                "files": {"group.yaml": GROUP_FILE}})
    assert r.status_code == 201, r.get_data(as_text=True)
    return _show(client, "deep")
