"""Hidden parameters (HOT ``hidden: true``) read ``******`` in a preview's ``parameters``, as
Heat's ``Parameter.__str__`` masks them (heat/engine/parameters.py); a parameter_defaults value
that is not hidden shows."""
from __future__ import annotations

SECRET = "s3cr3t-value"
T = {"heat_template_version": "2018-08-31",
     "parameters": {"secret": {"type": "string", "hidden": True},
                    "plain": {"type": "string", "default": "visible"},
                    "deflt": {"type": "string", "hidden": True, "default": "x"}},
     "resources": {"v": {"type": "OS::Heat::Value",
                         "properties": {"value": {"get_param": "secret"}}},
                   "inner": {"type": "inner.yaml",
                             "properties": {"pw": {"get_param": "secret"}}}}}
INNER = ("heat_template_version: 2018-08-31\n"
         "parameters:\n  pw: {type: string, hidden: true}\n"
         "resources:\n  w: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}\n")
BODY = {"template": T, "files": {"inner.yaml": INNER}, "parameters": {"secret": SECRET},
        "environment": {"parameter_defaults": {"deflt": SECRET, "pw": SECRET,
                                               "plain": "shown"}}}


def test_preview_masks_hidden_parameters(client):
    resp = client.post("/v1/admin/stacks/preview", json={"stack_name": "pv", **BODY})
    assert resp.status_code == 200, resp.get_json()
    params = resp.get_json()["stack"]["parameters"]
    assert params["secret"] == "******" and params["plain"] == "shown"
