"""python-heatclient, unchanged, against the API (fake services): its requests go through a
keystoneauth session whose transport is the Flask app, so redirects, headers and bodies are
exactly what the client sees over HTTP."""
from __future__ import annotations

from typing import Any

import pytest
import requests
from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import session as ks_session
from requests.structures import CaseInsensitiveDict

from tests.unit.api.conftest import HOST, STACK_ID, STACK_NAME


class WSGIAdapter(requests.adapters.BaseAdapter):
    """A requests transport that hands every request to a WSGI app's test client."""

    def __init__(self, app: Any) -> None:
        super().__init__()
        self.client = app.test_client()

    def send(self, request: requests.PreparedRequest, **_kw: Any) -> requests.Response:
        resp = self.client.open(request.url, method=request.method,
                                headers=dict(request.headers), data=request.body)
        out = requests.Response()
        out.status_code = resp.status_code
        out.headers = CaseInsensitiveDict(dict(resp.headers))
        out._content = resp.data
        out.url = request.url
        out.request = request
        out.reason = resp.status.split(" ", 1)[1] if " " in resp.status else ""
        return out

    def close(self) -> None:
        pass


@pytest.fixture()
def heat(api: Any) -> Any:
    sess = ks_session.Session()
    sess.session.mount(HOST, WSGIAdapter(api.application))
    return heat_client.Client("1", endpoint=f"{HOST}/v1/admin", session=sess)


def test_stack_create(heat, world):
    world.stacks.clear()
    body = heat.stacks.create(stack_name=STACK_NAME, template={"heat_template_version":
                                                               "2018-08-31"},
                              parameters={"len": 16}, disable_rollback=True, tags="a,b")
    assert body["stack"]["id"] == STACK_ID
    assert world.called("create_stack")["tags"] == ["a", "b"]


def test_show_by_name_follows_the_lookup(heat):
    stack = heat.stacks.get(STACK_NAME)
    assert stack.id == STACK_ID and stack.stack_status == "CREATE_COMPLETE"
    assert {o["output_key"] for o in stack.outputs} == {"msg", "pw"}
    assert [s.stack_name for s in heat.stacks.list()] == [STACK_NAME, "anc1"]


def test_children_by_name(heat):
    assert [r.resource_name for r in heat.resources.list(STACK_NAME)] == ["rs", "v"]
    rs = heat.resources.get(STACK_NAME, "rs")
    assert rs.attributes == {"value": "Bi6VKIuu2jI8ieAe"}
    events = heat.events.list(STACK_NAME)
    assert len(events) == 6
    event = heat.events.get(STACK_NAME, "rs",
                            next(e.id for e in events if e.resource_name == "rs"))
    assert event.resource_name == "rs"
    assert heat.stacks.output_show(STACK_NAME, "pw")["output"]["output_value"] == \
        "Bi6VKIuu2jI8ieAe"
    assert len(heat.stacks.output_list(STACK_NAME)["outputs"]) == 2
    assert heat.stacks.template(STACK_NAME)["heat_template_version"] == "2018-08-31"
    assert "parameters" in heat.stacks.environment(STACK_NAME)
    assert isinstance(heat.stacks.files(STACK_NAME), dict)


def test_delete_by_name_follows_the_lookup_with_delete(heat, world):
    heat.stacks.delete(STACK_NAME)
    assert world.called("delete_stack")["stack_id"] == STACK_ID


def test_not_found_raises_heatclient_not_found(heat):
    with pytest.raises(heat_exc.HTTPNotFound) as err:
        heat.stacks.get("nosuch")
    assert "The Stack (nosuch) could not be found." in str(err.value)


def test_catalog_calls(heat):
    assert len(heat.template_versions.list()) == 13
    assert heat.resource_types.list()[0].resource_type == "AWS::AutoScaling::AutoScalingGroup"
    assert heat.stacks.validate(template={"heat_template_version": "2018-08-31"})[
        "Description"] == "anchor RandomString stack"
    info = heat.build_info.build_info()
    assert set(info) == {"api", "engine"}
