"""OS::Heat::Stack and AWS::CloudFormation::Stack through the API over the real services
(SQLite, tasks in-process): the child stack is created from the inline template (or the
``TemplateURL`` of the files map) and its outputs are the parent's attributes."""
from __future__ import annotations

import json

import pytest
import yaml

HOT = "2018-08-31"
CHILD = yaml.safe_dump({
    "heat_template_version": HOT,
    "parameters": {"word": {"type": "string", "default": "plain"}},
    "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {
        "str_replace": {"template": "w=W", "params": {"W": {"get_param": "word"}}}}}}},
    "outputs": {"said": {"value": {"get_attr": ["v", "value"]}},
                "deep": {"value": {"a": [1, {"b": "c"}]}}}})


@pytest.fixture()
def real(client):  # type: ignore[no-untyped-def]
    client.application.config["SERVER_NAME"] = "127.0.0.1:8004"
    return client


def _create(real, name: str, template: dict, files: dict | None = None) -> str:  # type: ignore[no-untyped-def]
    resp = real.post("/v1/admin/stacks", json={"stack_name": name, "template": template,
                                               "files": files or {}})
    assert resp.status_code == 201, resp.get_json()
    return f"/v1/admin/stacks/{name}/{resp.get_json()['stack']['id']}"


def _outputs(real, base: str) -> tuple[dict, dict]:  # type: ignore[no-untyped-def]
    st = real.get(base).get_json()["stack"]
    return st, {o["output_key"]: o.get("output_value") for o in st["outputs"]}


def test_os_heat_stack_exposes_its_childs_outputs(real):
    base = _create(real, "parent", {"heat_template_version": HOT, "resources": {
        "s": {"type": "OS::Heat::Stack",
              "properties": {"template": CHILD, "parameters": {"word": "hello"},
                             "timeout": 5}}},
        "outputs": {"all": {"value": {"get_attr": ["s", "outputs"]}},
                    "one": {"value": {"get_attr": ["s", "outputs", "said"]}},
                    "path": {"value": {"get_attr": ["s", "outputs", "deep", "a", 1, "b"]}},
                    "name": {"value": {"get_attr": ["s", "stack_name"]}},
                    "ref": {"value": {"get_resource": "s"}}}})
    st, outs = _outputs(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    assert outs["one"] == "w=hello" and outs["path"] == "c"
    assert outs["all"] == {"said": "w=hello", "deep": {"a": [1, {"b": "c"}]}}
    res = real.get(f"{base}/resources/s").get_json()["resource"]
    assert outs["ref"] == res["physical_resource_id"]
    child = real.get(f"/v1/admin/stacks/{outs['name']}/{outs['ref']}").get_json()["stack"]
    assert child["stack_status"] == "CREATE_COMPLETE"
    assert child["timeout_mins"] == 5
    assert res["attributes"]["outputs"]["said"] == "w=hello"
    assert real.delete(base).status_code == 204
    assert real.get(f"/v1/admin/stacks/{outs['name']}/{outs['ref']}").get_json()["stack"][
        "stack_status"] == "DELETE_COMPLETE"


def test_os_heat_stack_whose_child_fails_is_heats_resource_in_error(real):
    bad = yaml.safe_dump({"heat_template_version": HOT, "resources": {
        "t": {"type": "OS::Heat::TestResource", "properties": {"fail": True}}}})
    base = _create(real, "parent-fails", {"heat_template_version": HOT, "resources": {
        "s": {"type": "OS::Heat::Stack", "properties": {"template": bad}}}})
    st, _ = _outputs(real, base)
    assert st["stack_status"] == "CREATE_FAILED"
    assert st["stack_status_reason"] == (
        'Resource CREATE failed: ResourceInError: resources.s: Went to status CREATE_FAILED '
        'due to "Resource CREATE failed: ValueError: resources.t: Test Resource failed t"')


def test_cfn_stack_reads_its_template_url_from_files_and_exposes_outputs(real):
    url = "https://example.com/child.yaml"
    base = _create(real, "cfn-parent", {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"S": {"Type": "AWS::CloudFormation::Stack",
                            "Properties": {"TemplateURL": url,
                                           "Parameters": {"word": "aws"}}}},
        "Outputs": {"Said": {"Value": {"Fn::GetAtt": ["S", "Outputs.said"]}},
                    "Ref": {"Value": {"Ref": "S"}}}}, files={url: CHILD})
    st, outs = _outputs(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    assert outs["Said"] == "w=aws"
    assert outs["Ref"].startswith("arn:openstack:heat::admin:stacks/cfn-parent-S-")
    res = real.get(f"{base}/resources/S").get_json()["resource"]
    assert res["attributes"]["Outputs.said"] == "w=aws"
    assert json.dumps(res["attributes"])


def test_resource_chain_makes_one_member_per_type_in_order(real):
    base = _create(real, "chain", {"heat_template_version": HOT, "resources": {
        "c": {"type": "OS::Heat::ResourceChain",
              "properties": {"resources": ["OS::Heat::RandomString", "OS::Heat::RandomString"],
                             "resource_properties": {"length": 7}}}},
        "outputs": {"refs": {"value": {"get_attr": ["c", "refs"]}},
                    "values": {"value": {"get_attr": ["c", "value"]}},
                    "first": {"value": {"get_attr": ["c", "resource.0", "value"]}}}})
    st, outs = _outputs(real, base)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    assert len(outs["refs"]) == 2 and all(len(v) == 7 for v in outs["values"])
    assert outs["refs"] == outs["values"]  # a RandomString's reference is its value
    assert outs["first"] == outs["values"][0]
    res = real.get(f"{base}/resources/c").get_json()["resource"]
    child = real.get(f"{base}/resources?nested_depth=1").get_json()["resources"]
    members = {r["resource_name"]: r for r in child if r.get("parent_resource") == "c"}
    assert set(members) == {"0", "1"}
    assert members["0"]["required_by"] == ["1"] and members["1"]["required_by"] == []
    assert res["physical_resource_id"]


def test_os_heat_stack_update_updates_its_child_in_place(real):
    def tmpl(word: str) -> dict:
        return {"heat_template_version": HOT, "resources": {
            "s": {"type": "OS::Heat::Stack",
                  "properties": {"template": CHILD, "parameters": {"word": word}}}},
            "outputs": {"one": {"value": {"get_attr": ["s", "outputs", "said"]}},
                        "ref": {"value": {"get_resource": "s"}}}}
    base = _create(real, "parent-up", tmpl("before"))
    _, outs = _outputs(real, base)
    assert outs["one"] == "w=before"
    resp = real.put(base, json={"template": tmpl("after")})
    assert resp.status_code == 202, resp.get_json()
    st, again = _outputs(real, base)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    assert again == {"one": "w=after", "ref": outs["ref"]}  # the same child, updated


def test_update_preview_of_a_stack_resource_and_a_chain(real):
    tmpl = {"heat_template_version": HOT, "resources": {
        "s": {"type": "OS::Heat::Stack",
              "properties": {"template": CHILD, "parameters": {"word": "a"}}},
        "c": {"type": "OS::Heat::ResourceChain",
              "properties": {"resources": ["OS::Heat::None"]}}}}
    base = _create(real, "preview", tmpl)
    tmpl["resources"]["s"]["properties"]["parameters"]["word"] = "b"
    tmpl["resources"]["c"]["properties"]["resources"] = ["OS::Heat::None", "OS::Heat::None"]
    resp = real.put(f"{base}/preview", json={"template": tmpl})
    assert resp.status_code == 200, resp.get_json()
    changes = resp.get_json()["resource_changes"]
    assert {r["resource_name"] for r in changes["updated"]} >= {"s", "c"}
