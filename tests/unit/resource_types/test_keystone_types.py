"""Heat 27's update and validation rules of the OS::Keystone::* plugins, without a cloud:
which changes replace (a Region's ``id``, a Project's ``parent``, a Role's ``domain``), which
are made in place (``description`` included, though resource_types.json lost it), and the
``roles`` checks of Heat's KeystoneRoleAssignmentMixin."""
from __future__ import annotations

import pytest

from app import errors
from app.resource_types import registry
from app.resource_types.base import UpdateReplace


def _plugin(type_name: str, props: dict) -> object:
    cls = registry.get(type_name)
    return cls("r", cls.validated_properties(props, ("resources", "r", "properties")))


@pytest.mark.parametrize(("type_name", "old", "new"), [
    ("OS::Keystone::Region", {"id": "a"}, {"id": "b"}),
    ("OS::Keystone::Project", {"parent": "p1"}, {"parent": "p2"}),
    ("OS::Keystone::Role", {"domain": "d1"}, {"domain": "d2"}),
])
def test_these_changes_replace(type_name: str, old: dict, new: dict) -> None:
    plugin = _plugin(type_name, old)
    with pytest.raises(UpdateReplace):
        plugin.update_diff(type(plugin).validated_properties(new, ("resources", "r", "properties")))


@pytest.mark.parametrize(("type_name", "old", "new", "changed"), [
    ("OS::Keystone::Project", {"description": "a"}, {"description": "b", "enabled": False},
     {"description": "b", "enabled": False}),
    ("OS::Keystone::Region", {"id": "a", "description": "x"}, {"id": "a", "description": "y"},
     {"description": "y"}),
    ("OS::Keystone::User", {"groups": ["g1"]}, {"groups": ["g2"], "roles": [{"role": "r", "project": "p"}]},
     {"groups": ["g2"], "roles": [{"role": "r", "project": "p"}]}),
    ("OS::Keystone::Domain", {"description": "a"}, {"description": "b"}, {"description": "b"}),
])
def test_these_changes_are_made_in_place(type_name: str, old: dict, new: dict, changed: dict) -> None:
    plugin = _plugin(type_name, old)
    got = plugin.update_diff(type(plugin).validated_properties(new, ("resources", "r", "properties")))
    assert got == changed


@pytest.mark.parametrize(("roles", "message"), [
    ([{"role": "member", "project": "p", "domain": "d"}],
     "Cannot define the following properties at the same time: project, domain."),
    ([{"role": "member"}], "Either project or domain must be specified for role member"),
])
@pytest.mark.parametrize("type_name", ["OS::Keystone::User", "OS::Keystone::Group",
                                       "OS::Keystone::UserRoleAssignment",
                                       "OS::Keystone::GroupRoleAssignment"])
def test_a_role_needs_exactly_one_of_project_and_domain(type_name: str, roles: list, message: str) -> None:
    props = {"roles": roles}
    if type_name.endswith("UserRoleAssignment"):
        props["user"] = "u"
    if type_name.endswith("GroupRoleAssignment"):
        props["group"] = "g"
    with pytest.raises(errors.ValidationError) as err:
        _plugin(type_name, props).validate()
    assert str(err.value) == message


def test_an_assignment_refers_to_itself_by_name() -> None:
    plugin = _plugin("OS::Keystone::UserRoleAssignment", {"user": "u", "roles": []})
    assert plugin.get_reference_id() == "r" and plugin.show_resource() is None
