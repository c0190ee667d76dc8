"""Resource names as Heat 27 checks them: ``Resource.__init__`` refuses a name containing "/"
with ``StackValidationFailed`` 'Resource name may not contain "/"' (it would break the
``.../resources/{name}`` URLs), on every path that builds the stack: create, validate, preview
(validate wraps the engine's error as ``HTTPBadRequest``, as heat-api does). A name no
database can store (a NUL character; more than the ``resource.name`` column's 255
characters) is refused the same way, on SQLite as on PostgreSQL (test_resource_names_pg)."""
from __future__ import annotations

from typing import Any

import pytest

NAMES = {"a/b": 'Resource name may not contain "/"',
         "a\x00b": "Resource name may not contain a NUL character (\\x00)",
         "n" * 256: f"Resource name {'n' * 256} must be 255 characters or less"}


def hot(name: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31",
            "resources": {name: {"type": "OS::Heat::None"}}}


def cfn(name: str) -> dict[str, Any]:
    return {"AWSTemplateFormatVersion": "2010-09-09",
            "Resources": {name: {"Type": "OS::Heat::None"}}}


@pytest.mark.parametrize("name", list(NAMES), ids=["slash", "nul", "long"])
@pytest.mark.parametrize("template", [hot, cfn], ids=["hot", "cfn"])
@pytest.mark.parametrize("path", ["/v1/admin/stacks", "/v1/admin/validate",
                                  "/v1/admin/stacks/preview"])
def test_a_resource_name_no_stack_can_hold_is_refused(client: Any, name: str, template: Any,
                                                      path: str) -> None:
    resp = client.post(path, json={"stack_name": "slash", "template": template(name)})
    assert resp.status_code == 400, resp.get_json()
    body = resp.get_json()
    assert body["code"] == 400 and body["title"] == "Bad Request"
    # validate answers the engine's errors as HTTPBadRequest (heat-api's validate_template)
    assert body["error"]["type"] == ("HTTPBadRequest" if path.endswith("/validate")
                                     else "StackValidationFailed")
    assert body["error"]["message"] == NAMES[name]
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []
