"""Bad input found by trying to break the API: each a clear 4xx with Heat's fault body, and
nothing persisted."""
import pytest

BASE = "/v1/bad/stacks"
OK = {"heat_template_version": "2018-08-31"}


def _stack_count(client):
    return len(client.get(BASE).get_json()["stacks"])


@pytest.mark.parametrize("body, words", [
    ({"stack_name": "s", "template": [1, 2, 3]}, "not a JSON object or YAML mapping"),
    ({"stack_name": "s", "template": 5}, "not a JSON object or YAML mapping"),
    ({"stack_name": "s", "template": OK, "files": {"c.yaml": 5}}, "files map"),
    ({"stack_name": "s", "template": OK, "tags": {"a": 1}}, "tags"),
    ({"stack_name": "s", "template": {"heat_template_version": "2018-08-31", "resources": {
        "g": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 100000000, "resource_def": {"type": "OS::Heat::None"}}}}}},
     "Maximum resources per stack exceeded."),
    ({"stack_name": "s", "template": {"heat_template_version": "2018-08-31", "resources": {
        "g": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 2, "resource_def": {"type": "OS::Heat::RandomString",
                                         "properties": {"length": "x"}}}}}}},
     # Heat names the member of the group's one-member child template
     "resources.g<nested_stack>.resources[0].properties.length"),
    ({"stack_name": "s", "template": {"heat_template_version": "2018-08-31", "parameters": {
        "p": {"type": "string", "default": "x", "constraints": [{"allowed_pattern": "[a-"}]}}}},
     "allowed_pattern"),
    ({"stack_name": "s", "template": {"heat_template_version": "2018-08-31", "parameters": {
        "l": {"type": "comma_delimited_list"}}}, "parameters": {"l": {"a": 1}}},
     "comma-delimited list"),
    ({"stack_name": "s", "template": {"heat_template_version": "2018-08-31",
                                      "resources": ["a"]}}, "resources"),
])
def test_refused_with_a_clear_4xx_and_nothing_written(client, body, words):
    r = client.post(BASE, json=body)
    assert 400 <= r.status_code < 500, r.get_data(as_text=True)
    fault = r.get_json()
    assert set(fault) == {"code", "title", "explanation", "error"}
    assert words in fault["error"]["message"]
    assert _stack_count(client) == 0


def test_absurdly_deep_json_is_a_400_not_a_500(client):
    deep = "[" * 100000 + "]" * 100000
    r = client.post(BASE, data='{"stack_name": "s", "template": ' + deep + "}",
                    content_type="application/json")
    assert r.status_code == 400
    assert _stack_count(client) == 0


def test_preview_describes_resources_and_persists_nothing(client):
    tmpl = {"heat_template_version": "2018-08-31", "description": "pv",
            "parameters": {"n": {"type": "number", "default": 3}},
            "resources": {"rs": {"type": "OS::Heat::RandomString",
                                 "properties": {"length": {"get_param": "n"}}},
                          "v": {"type": "OS::Heat::Value",
                                "properties": {"value": {"get_attr": ["rs", "value"]}}}}}
    r = client.post("/v1/bad/stacks/preview", json={"stack_name": "pv", "template": tmpl})
    assert r.status_code == 200, r.get_json()
    st = r.get_json()["stack"]
    assert st["stack_name"] == "pv" and st["description"] == "pv"
    res = {x["resource_name"]: x for x in st["resources"]}
    # as Heat's preview: every property, the schema's defaults filled in
    assert res["rs"]["properties"]["length"] == 3 and res["rs"]["required_by"] == ["v"]
    assert res["rs"]["properties"]["character_classes"] == [{"class": "lettersdigits", "min": 1}]
    assert res["v"]["properties"] == {"value": None, "type": None}  # not known before rs exists
    assert {x["resource_status"] for x in res.values()} == {"COMPLETE"}
    assert _stack_count(client) == 0
    bad = client.post("/v1/bad/stacks/preview", json={"stack_name": "pv", "template": {
        "heat_template_version": "2018-08-31", "resources": {"x": {"type": "OS::Nope"}}}})
    assert bad.status_code == 400 and "OS::Nope" in bad.get_json()["error"]["message"]
