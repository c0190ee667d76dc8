"""Resource names as Heat 27 checks them: ``Resource.__init__`` refuses a name containing "/"
with ``StackValidationFailed`` 'Resource name may not contain "/"' (it would break the
``.../resources/{name}`` URLs), on every path that builds the stack: create, validate, preview
(validate wraps the engine's error as ``HTTPBadRequest``, as heat-api does)."""
from __future__ import annotations

from typing import Any

import pytest

HOT = {"heat_template_version": "2018-08-31",
       "resources": {"a/b": {"type": "OS::Heat::None"}}}
CFN = {"AWSTemplateFormatVersion": "2010-09-09",
       "Resources": {"a/b": {"Type": "OS::Heat::None"}}}


@pytest.mark.parametrize("template", [HOT, CFN], ids=["hot", "cfn"])
@pytest.mark.parametrize("path", ["/v1/admin/stacks", "/v1/admin/validate",
                                  "/v1/admin/stacks/preview"])
def test_slash_in_resource_name_is_refused(client: Any, template: dict[str, Any],
                                           path: str) -> None:
    resp = client.post(path, json={"stack_name": "slash", "template": template})
    assert resp.status_code == 400, resp.get_json()
    body = resp.get_json()
    assert body["code"] == 400 and body["title"] == "Bad Request"
    # validate answers the engine's errors as HTTPBadRequest (heat-api's validate_template)
    assert body["error"]["type"] == ("HTTPBadRequest" if path.endswith("/validate")
                                     else "StackValidationFailed")
    assert body["error"]["message"] == 'Resource name may not contain "/"'
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
