"""python-heatclient and the ``openstack`` CLI against the API for the list and resource
checks: stack list tag filters (``--tags`` / ``--tag-mode``), Heat's sort keys, marker paging,
``global_tenant`` / ``--long`` / ``--all-projects``, ``show_hidden`` / ``--hidden``, event
``sort_keys``, resource show ``with_attr``, resource metadata, a signal to a type that takes
none, and validate of a ``get_param`` of an undeclared parameter. Expected values are Heat's
(heat/api/openstack/v1/stacks.py ``_index``, heat/db/api.py ``_filter_and_page_query`` and
``_events_filter_and_page_query``, heat/engine/service.py ``resource_signal``,
heatclient/osc/v1/stack.py ``_list``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from heatclient import exc

from app import config

T = """
heat_template_version: 2018-08-31
resources:
  rs: {type: OS::Heat::RandomString, properties: {length: 6}}
  v:
    type: OS::Heat::Value
    metadata: {role: {get_attr: [rs, value]}}
    properties: {value: {get_attr: [rs, value]}}
"""


@pytest.fixture()
def hidden(db):  # type: ignore[no-untyped-def]
    """Heat's ``hidden_stack_tags`` set to ``hide-me`` (empty by default)."""
    previous = config.get()
    config.set_current(previous.replace(hidden_stack_tags="hide-me"))
    yield
    config.set_current(previous)


@pytest.fixture()
def stacks(heat, hidden):  # type: ignore[no-untyped-def]
    """``{name: id}`` of four stacks, created in this order: s0 (a, b), s1 (b), s2 (no tags),
    s3 (hide-me); s1 updated afterwards."""
    out = {}
    for name, tags in (("s0", "a,b"), ("s1", "b"), ("s2", None), ("s3", "hide-me")):
        kwargs = {"tags": tags} if tags else {}
        out[name] = heat.stacks.create(stack_name=name, template=T, **kwargs)["stack"]["id"]
    heat.stacks.update(out["s1"], template=T, existing=True)
    return out


def _names(heat, **kwargs):  # type: ignore[no-untyped-def]
    return [s.stack_name for s in heat.stacks.list(**kwargs)]


def test_tag_filters_hidden_sort_keys_and_marker_paging(heat, stacks):  # type: ignore[no-untyped-def]
    assert sorted(_names(heat)) == ["s0", "s1", "s2"]  # hidden without show_hidden
    assert sorted(_names(heat, show_hidden=True)) == ["s0", "s1", "s2", "s3"]
    assert _names(heat, tags="a,b") == ["s0"]
    assert sorted(_names(heat, tags_any="a,b")) == ["s0", "s1"]
    assert sorted(_names(heat, not_tags="a,b")) == ["s1", "s2"]
    assert _names(heat, not_tags_any="a,b") == ["s2"]
    # Heat's sort keys (creation_time, updated_time, stack_name, stack_status)
    assert _names(heat, sort_keys="creation_time", sort_dir="asc") == ["s0", "s1", "s2"]
    assert _names(heat, sort_keys="creation_time", sort_dir="desc") == ["s2", "s1", "s0"]
    # never-updated stacks sort last ascending (PostgreSQL's NULLS LAST for asc, as Heat's)
    assert _names(heat, sort_keys="updated_time", sort_dir="asc")[0] == "s1"
    assert _names(heat, sort_keys="stack_name", sort_dir="desc") == ["s2", "s1", "s0"]
    # paging by marker follows the order: the page after s0 in name order
    page = heat.stacks.list(sort_keys="stack_name", sort_dir="asc", limit=1,
                            marker=stacks["s0"])
    assert [s.stack_name for s in page] == ["s1"]
    with pytest.raises(exc.HTTPBadRequest):
        list(heat.stacks.list(sort_dir="sideways"))


def test_global_tenant_lists_every_project_for_admins(heat, stacks):  # type: ignore[no-untyped-def]
    """Another project's stack is listed with ``global_tenant``, each with its ``project``
    (noauth: heatclient's requests act in project admin, with the admin role)."""
    from app.context import RequestContext
    from app.services import stacks as stack_service
    stack_service.create_stack(RequestContext(tenant_id="beta"), stack_name="elsewhere",
                               template=T)
    assert "elsewhere" in _names(heat)  # an admin lists every project anyway (Heat's db api)
    listed = {s.stack_name: s for s in heat.stacks.list(global_tenant=True)}
    assert listed["elsewhere"].project == "beta"
    assert listed["s0"].project == "admin"


def test_events_sort_and_resource_with_attr_metadata_and_signal(heat, stacks):  # type: ignore[no-untyped-def]
    sid = stacks["s2"]
    written = [e.id for e in heat.events.list(sid, sort_dir="asc")]
    assert [e.id for e in heat.events.list(sid)] == written[::-1]  # newest first (Heat)
    assert [e.id for e in heat.events.list(sid, sort_keys="event_time")] == written
    # with_attr: the attribute resolved now; an unknown one is null
    rs = heat.resources.get(sid, "rs", with_attr=["value", "nope"])
    assert len(rs.attributes["value"]) == 6 and rs.attributes["nope"] is None
    # resource metadata: the template's, resolved
    assert heat.resources.metadata(sid, "v") == {"role": rs.attributes["value"]}
    assert heat.resources.metadata(sid, "rs") == {}
    # a signal to a type that takes none: Heat's 400 ResourceActionNotSupported, nothing changes
    n = len(list(heat.events.list(sid)))
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.resources.signal(sid, "rs", data={"x": 1})
    assert "signal is not supported for resource." in str(err.value)
    assert heat.resources.get(sid, "rs").resource_status == "CREATE_COMPLETE"
    assert len(list(heat.events.list(sid))) == n


def test_validate_reports_a_get_param_of_an_undeclared_parameter(heat):  # type: ignore[no-untyped-def]
    """Heat 27.0.1 answers 200 for this template (its validate never resolves the property);
    Stoker answers the 400 the create would."""
    bad = ("heat_template_version: 2018-08-31\nresources:\n  v:\n    type: OS::Heat::Value\n"
           "    properties: {value: {get_param: nope}}\n")
    with pytest.raises(exc.HTTPBadRequest) as err:
        heat.stacks.validate(template=bad)
    assert "The Parameter (nope) was not provided." in str(err.value)


def test_openstack_stack_list_long_tags_and_adopt(osc, heat, stacks, tmp_path: Path):  # type: ignore[no-untyped-def]
    """``openstack stack list --long`` (heatclient's OSC: global_tenant, the Stack Owner and
    Project columns) with ``--tags ... --tag-mode any`` and ``--hidden``; ``stack abandon`` /
    ``stack adopt`` with enable_stack_abandon / enable_stack_adopt; ``orchestration template
    validate`` of a get_param of an undeclared parameter fails as the create would."""
    rows = json.loads(osc("stack", "list", "--long", "--hidden", "--tags", "b,hide-me",
                          "--tag-mode", "any", "-f", "json"))
    assert sorted(r["Stack Name"] for r in rows) == ["s0", "s1", "s3"]
    assert {r["Project"] for r in rows} == {"admin"}
    assert "Stack Owner" in rows[0]
    config.set_current(config.get().replace(enable_stack_abandon=True,
                                            enable_stack_adopt=True))
    out = tmp_path / "abandon.json"
    osc("stack", "abandon", "s2", "--output-file", str(out))
    data = json.loads(out.read_text())
    assert data["name"] == "s2" and set(data["resources"]) == {"rs", "v"}
    shown = json.loads(osc("stack", "adopt", "-f", "json", "--adopt-file", str(out), "s2b"))
    assert shown["stack_name"] == "s2b"
    st = heat.stacks.get("s2b")
    assert (st.stack_status, st.stack_status_reason) == ("ADOPT_COMPLETE",
                                                         "Stack ADOPT completed successfully")
    rs = heat.resources.get("s2b", "rs")
    assert rs.physical_resource_id == data["resources"]["rs"]["resource_id"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources:\n  v:\n    type: "
                   "OS::Heat::Value\n    properties: {value: {get_param: nope}}\n")
    err = osc.fails("orchestration", "template", "validate", "-t", str(bad))
    assert "Property error: resources.v.properties.value: The Parameter (nope) was not " \
           "provided." in err
