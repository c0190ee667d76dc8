"""``get_resource`` whose argument is a function (``{get_resource: {get_param: which}}``), over
the real services (SQLite, tasks in-process): as Heat's ``GetResource.dependencies``, the
resource it names is a dependency, so it is created first and its reference is read; a name
that is no resource of the stack is Heat's InvalidTemplateReference at create."""
from __future__ import annotations

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"which": {"type": "string", "default": "a"}},
    "resources": {
        "b": {"type": "OS::Heat::Value",
              "properties": {"value": {"get_resource": {"get_param": "which"}}}},
        "a": {"type": "OS::Heat::RandomString"},
    },
    "outputs": {"b": {"value": {"get_attr": ["b", "value"]}},
                "a": {"value": {"get_resource": "a"}}},
}


def test_the_named_resource_is_created_first_and_its_reference_read(client):
    resp = client.post("/v1/t1/stacks", json={"stack_name": "dyn", "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_json()
    stack = client.get(resp.headers["Location"]).get_json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    outs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert outs["b"] == outs["a"] and outs["a"]
    events = client.get(resp.headers["Location"] + "/events?sort_dir=asc").get_json()["events"]
    done = [e["resource_name"] for e in events if e["resource_status"] == "CREATE_COMPLETE"]
    assert done.index("a") < done.index("b")


def test_a_name_that_is_no_resource_is_refused_and_nothing_is_created(client):
    resp = client.post("/v1/t1/stacks", json={"stack_name": "dyn", "template": TEMPLATE,
                                              "parameters": {"which": "nope"}})
    assert resp.status_code == 400, resp.get_json()
    error = resp.get_json()["error"]
    assert error["type"] == "InvalidTemplateReference"
    assert 'The specified reference "nope"' in error["message"]
    assert client.get("/v1/t1/stacks").get_json()["stacks"] == []
