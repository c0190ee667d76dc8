"""``POST /validate`` with nested templates, as heat-tempest-plugin's ``test_template_validate``
checks it: the template files used as types appear in the environment's ``resource_registry``
(Heat registers them as it meets them); ``show_nested`` adds ``NestedParameters``: for each
template resource its template's ``Description``, ``Parameters`` (``Value`` where the parent's
properties give one) and ``Type``, deeper levels nested the same way."""
from __future__ import annotations

NESTED = """
heat_template_version: 2014-10-16
description: the stack description
parameters:
  aparam:
    type: number
    default: 10
    description: the param description
resources:
  myres:
    type: OS::Heat::RandomString
"""
PARENT = """
heat_template_version: 2014-10-16
description: the parent template
parameters:
  pparam:
    type: number
    default: 5
    description: the param description
resources:
  nres:
    type: mynested.yaml
    properties:
      aparam: {get_param: pparam}
"""
APARAM = {"Default": 10, "Description": "the param description", "Label": "aparam",
          "NoEcho": "false", "Type": "Number"}
ENV = {"event_sinks": [], "parameter_defaults": {}, "parameters": {},
       "resource_registry": {"mynested.yaml": "mynested.yaml", "resources": {}}}


def test_nested_off_lists_the_file_type_in_the_registry(client):
    resp = client.post("/v1/admin/validate", json={"template": PARENT,
                                                   "files": {"mynested.yaml": NESTED}})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert "NestedParameters" not in body and body["Environment"] == ENV


def test_show_nested_gives_each_levels_parameters(client):
    middle = NESTED.replace("OS::Heat::RandomString", "mynested2.yaml")
    resp = client.post("/v1/admin/validate?show_nested=True", json={
        "template": PARENT, "files": {"mynested.yaml": middle, "mynested2.yaml": NESTED}})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["NestedParameters"] == {"nres": {
        "Description": "the stack description", "Parameters": {"aparam": {**APARAM, "Value": 5}},
        "Type": "mynested.yaml",
        "NestedParameters": {"myres": {"Description": "the stack description",
                                       "Parameters": {"aparam": APARAM},
                                       "Type": "mynested2.yaml"}}}}
    assert body["Environment"] == ENV


def test_nested_templates_resources_are_not_validated(client):
    """Heat's ``validate_res_tmpl_only``: the top level's property names are checked against
    the nested template's parameters, the nested template's own resources are not (create
    validates them); a nested file that does not parse still fails."""
    middle = NESTED.replace("OS::Heat::RandomString", "mynested2.yaml") + \
        "    properties:\n      length: {get_param: aparam}\n"
    files = {"mynested.yaml": middle, "mynested2.yaml": NESTED}
    resp = client.post("/v1/admin/validate?show_nested=True", json={"template": PARENT,
                                                                     "files": files})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["NestedParameters"]["nres"]["NestedParameters"]["myres"]["Type"] \
        == "mynested2.yaml"
    bad_top = PARENT.replace("aparam: {get_param: pparam}", "length: 3")
    resp = client.post("/v1/admin/validate", json={"template": bad_top, "files": files})
    assert resp.status_code == 400
    assert "Unknown Property length" in resp.get_json()["error"]["message"]
    resp = client.post("/v1/admin/validate", json={"template": PARENT,
                                                   "files": {"mynested.yaml": "[not: a template"}})
    assert resp.status_code == 400
