"""Hidden parameters (HOT ``hidden: true``) read ``******`` in a preview's ``parameters``, as
Heat's ``Parameter.__str__`` masks them (heat/engine/parameters.py); a parameter_defaults value
that is not hidden shows."""
from __future__ import annotations

from tests.integration.api.test_hidden_params import BODY


def test_preview_masks_hidden_parameters(client):
    resp = client.post("/v1/admin/stacks/preview", json={"stack_name": "pv", **BODY})
    assert resp.status_code == 200, resp.get_json()
    params = resp.get_json()["stack"]["parameters"]
    assert params["secret"] == "******" and params["plain"] == "shown"
