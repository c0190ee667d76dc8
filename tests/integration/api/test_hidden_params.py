"""Hidden parameters (HOT ``hidden: true``, CFN ``NoEcho``) read ``******`` wherever Heat masks
them, through the real services (SQLite, in-process engine):

- stack show and preview ``parameters`` (``Parameter.__str__``, heat/engine/parameters.py);
- ``GET .../environment``: the ``parameters`` and ``parameter_defaults`` sections, for every
  parameter the stack's templates (files included) declare hidden (heat/engine/service.py
  ``get_environment``);
- a nested stack's own show, when its template declares the parameter hidden;
- CFN ``DescribeStacks`` ``Parameters`` (the same ``format_stack``).

Outputs and resource properties are not masked by Heat (a recorded Heat 27.0.1 run shows the
output value in clear), so they are not here either."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.models import Stack, read_session

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


def _create(client: Any, name: str = "hid") -> str:
    resp = client.post("/v1/admin/stacks", json={"stack_name": name, **BODY})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.headers["Location"])


def test_stack_show_masks_hidden_parameters(client):
    href = _create(client)
    params = client.get(href).get_json()["stack"]["parameters"]
    assert params["secret"] == "******" and params["deflt"] == "******"
    assert params["plain"] == "shown"


def test_environment_show_masks_parameters_and_parameter_defaults(client):
    href = _create(client)
    env = client.get(f"{href}/environment").get_json()
    assert env["parameters"] == {"secret": "******"}
    # deflt is hidden in the stack's template, pw in the nested template (files): both masked
    assert env["parameter_defaults"] == {"deflt": "******", "pw": "******", "plain": "shown"}
    assert SECRET not in str(env)


def test_a_nested_stack_shows_its_hidden_parameter_masked(client):
    href = _create(client)
    stack_id = href.rsplit("/", 1)[1]
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == stack_id)).scalar_one()
    shown = client.get(f"/v1/admin/stacks/{child.name}/{child.id}").get_json()["stack"]
    assert shown["parameters"]["pw"] == "******"
    env = client.get(f"/v1/admin/stacks/{child.name}/{child.id}/environment").get_json()
    assert env["parameter_defaults"]["pw"] == "******"
    # as Heat: the child masks what ITS templates declare hidden; "deflt" is not declared by
    # inner.yaml, so Heat's get_environment shows it as it is
    assert env["parameter_defaults"]["deflt"] == SECRET


def test_stack_list_never_carries_parameter_values(client):
    _create(client)
    listed = client.get("/v1/admin/stacks").get_data(as_text=True)
    assert SECRET not in listed


def test_no_log_line_carries_a_hidden_value(client, caplog):
    import logging
    with caplog.at_level(logging.DEBUG):
        href = _create(client, "logged")
        client.get(href)
        client.get(f"{href}/environment")
        client.get(f"{href}/events")
    assert caplog.records and SECRET not in caplog.text
