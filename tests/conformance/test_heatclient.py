"""python-heatclient, unmodified, against the real Orchestration API over HTTP (a werkzeug
server on a loopback port; services and engine for real on SQLite, tasks run in-process).
Expected shapes and behaviours are Heat's (api-ref; ../shared/heat-reference/api-samples)."""
from __future__ import annotations

import pytest
from heatclient import exc

TEMPLATE = """
heat_template_version: 2018-08-31
description: conformance stack
parameters:
  len: {type: number, default: 10}
resources:
  rs:
    type: OS::Heat::RandomString
    properties: {length: {get_param: len}}
  v:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: "pw=$P", params: {$P: {get_attr: [rs, value]}}}}
  child: {type: child.yaml, properties: {greeting: {get_param: len}}}
outputs:
  pw: {description: the random string, value: {get_attr: [rs, value]}}
  msg: {value: {get_attr: [v, value]}}
  nested: {value: {get_attr: [child, said]}}
"""
CHILD = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string}
resources:
  n: {type: OS::Heat::None}
outputs:
  said: {value: {list_join: ["", ["hello ", {get_param: greeting}]]}}
"""
ENV = "parameters:\n  len: 16\n"


def test_heatclient_stack_life_cycle(heat):
    created = heat.stacks.create(stack_name="conf", template=TEMPLATE,
                                 files={"child.yaml": CHILD, "env.yaml": ENV},
                                 environment_files=["env.yaml"], parameters={"len": 12})
    sid = created["stack"]["id"]
    assert [s.stack_name for s in heat.stacks.list()] == ["conf"]

    st = heat.stacks.get("conf")  # by name: heatclient follows Heat's 302
    assert st.id == sid and st.stack_status == "CREATE_COMPLETE"
    assert st.description == "conformance stack"
    assert st.parameters["len"] == "16"  # the environment file wins over --parameter (Heat)
    outs = {o["output_key"]: o for o in st.outputs}
    pw = outs["pw"]["output_value"]
    assert len(pw) == 16 and outs["msg"]["output_value"] == f"pw={pw}"
    assert outs["nested"]["output_value"] == "hello 16"
    assert outs["pw"]["description"] == "the random string"

    res = {r.resource_name: r for r in heat.resources.list(sid)}
    assert set(res) == {"rs", "v", "child"}
    assert {r.resource_status for r in res.values()} == {"CREATE_COMPLETE"}
    assert res["rs"].required_by == ["v"]
    rs = heat.resources.get(sid, "rs")
    assert rs.attributes["value"] == pw and rs.resource_type == "OS::Heat::RandomString"

    events = heat.events.list(sid)
    assert any(e.resource_name == "conf" and e.resource_status == "CREATE_COMPLETE"
               for e in events)
    rs_events = heat.events.list(sid, resource_name="rs")
    assert {e.resource_status for e in rs_events} == {"CREATE_IN_PROGRESS", "CREATE_COMPLETE"}

    assert heat.stacks.output_show(sid, "msg")["output"]["output_value"] == f"pw={pw}"
    assert {o["output_key"] for o in heat.stacks.output_list(sid)["outputs"]} == \
        {"pw", "msg", "nested"}
    assert heat.stacks.template(sid)["description"] == "conformance stack"
    assert heat.stacks.environment(sid)["parameters"]["len"] == 16

    heat.stacks.delete(sid)
    gone = heat.stacks.get(sid)
    assert gone.stack_status == "DELETE_COMPLETE"
    assert heat.stacks.list() == [] or all(s.id != sid for s in heat.stacks.list())


def test_heatclient_errors_are_heat_faults(heat):
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get("nosuch")
    with pytest.raises(exc.HTTPBadRequest) as bad:
        heat.stacks.create(stack_name="bad", template={"heat_template_version": "2018-08-31",
                                                       "resources": {"x": {"type": "OS::Nope"}}})
    assert "OS::Nope" in str(bad.value)
    heat.stacks.create(stack_name="dup", template={"heat_template_version": "2018-08-31"})
    with pytest.raises(exc.HTTPConflict):
        heat.stacks.create(stack_name="dup", template={"heat_template_version": "2018-08-31"})
    assert [s.stack_name for s in heat.stacks.list()] == ["dup"]  # nothing half-written


def test_heatclient_validate_and_catalog(heat):
    body = heat.stacks.validate(template=TEMPLATE, files={"child.yaml": CHILD})
    assert body["Description"] == "conformance stack"
    assert body["Parameters"]["len"]["Default"] == 10
    versions = [v.version for v in heat.template_versions.list()]
    assert "heat_template_version.2021-04-16" in versions
    assert "OS::Heat::RandomString" in [t.resource_type for t in heat.resource_types.list()]
