"""``POST /stacks/preview`` in Heat's shape (``format_stack_preview``), as heat-tempest-plugin's
``test_preview`` checks it: "No description" for a template without one, each resource in
``format_stack_resource`` form (identities with stack id ``"None"``, null times, attributes,
properties), nested template resources and ResourceGroup members as lists, and the preview's
wording of a property error."""
from __future__ import annotations

TEMPLATE = """
heat_template_version: 2015-04-30
parameters:
  incomming:
    type: string
resources:
  one:
    type: OS::Heat::TestResource
    properties:
      value: fred
  two:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: incomming}
    depends_on: one
"""
NESTED = """
heat_template_version: 2015-04-30
parameters:
  value:
    type: string
resources:
  nested:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
"""
GROUP = """
heat_template_version: 2015-04-30
resources:
  fixed:
    type: OS::Heat::TestResource
  rg:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: nested.yaml
        properties:
          value: {get_attr: [fixed, output]}
"""


def _preview(client, **body):
    return client.post("/v1/admin/stacks/preview", json={"stack_name": "pv", **body})


def test_preview_is_heats_shape(client):
    resp = _preview(client, template=TEMPLATE, parameters={"incomming": "abc"},
                    disable_rollback=True)
    assert resp.status_code == 200, resp.get_json()
    stack = resp.get_json()["stack"]
    assert stack["template_description"] == "No description" and stack["id"] == "None"
    assert stack["parent"] is None and stack["parameters"]["OS::stack_id"] == "None"
    by_name = {r["resource_name"]: r for r in stack["resources"]}
    two = by_name["two"]
    assert two["resource_identity"] == {"tenant": "admin", "stack_name": "pv", "stack_id": "None",
                                        "path": "/resources/two"}
    assert two["stack_identity"]["path"] == "" and two["stack_identity"]["stack_id"] == "None"
    assert two["creation_time"] is None and two["updated_time"] is None
    assert "output" in two["attributes"] and two["properties"]["value"] == "abc"
    assert two["properties"]["fail"] is False and two["properties"]["wait_secs"] == 0
    assert (two["resource_action"], two["resource_status"]) == ("INIT", "COMPLETE")
    assert by_name["one"]["required_by"] == ["two"]


def test_preview_failure_is_worded_as_heats_preview(client):
    resp = _preview(client, template=TEMPLATE.replace("get_param: incomming", "get_param: missing"),
                    parameters={"incomming": "abc"})
    assert resp.status_code == 400
    assert ("Property error: : resources.two.properties.value: : The Parameter (missing) was "
            "not provided.") in resp.get_json()["error"]["message"]


def test_nested_and_group_members_are_listed(client):
    main = TEMPLATE.replace("type: OS::Heat::TestResource\n    properties:\n      value: fred",
                            "type: nested.yaml\n    properties:\n      value: fred")
    resp = _preview(client, template=main, files={"nested.yaml": NESTED}, parameters={"incomming": "abc"})
    assert resp.status_code == 200, resp.get_json()
    nested = resp.get_json()["stack"]["resources"][0]
    assert isinstance(nested, list)
    assert nested[0]["resource_name"] == "nested" and nested[0]["parent_resource"] == "one"
    assert nested[0]["stack_name"] == "pv-one" and nested[0]["properties"]["value"] == "fred"
    resp = _preview(client, template=GROUP, files={"nested.yaml": NESTED})
    assert resp.status_code == 200, resp.get_json()
    names: list[str] = []

    def walk(items):
        for item in items:
            names.append(item["resource_name"]) if isinstance(item, dict) else walk(item)
    walk(resp.get_json()["stack"]["resources"])
    assert sorted(names) == ["fixed", "nested", "nested"]
