"""Resource names as Heat 27 checks them: ``Resource.__init__`` refuses only a name containing
"/", so a resource named "" previews."""
from __future__ import annotations

from typing import Any


def test_an_empty_resource_name_is_accepted_as_heat_accepts_it(client: Any) -> None:
    # Heat's Resource.__init__ checks only for "/": a resource named "" previews (and creates)
    template = {"heat_template_version": "2018-08-31",
                "resources": {"": {"type": "OS::Heat::None"}}}
    resp = client.post("/v1/admin/stacks/preview",
                       json={"stack_name": "empty", "template": template})
    assert resp.status_code == 200, resp.get_json()
    assert [r["resource_name"] for r in resp.get_json()["stack"]["resources"]] == [""]
