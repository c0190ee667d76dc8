"""Registry and schemas: every registered type's schema equals Heat 27's resource_types.json."""
from __future__ import annotations

from typing import Any

import pytest

from app.resource_types import registry
from app.resource_types.base import Resource
from app.resource_types.heat import NoneResource, RandomString, TestResource, Value
from app.resource_types.schema import strip_descriptions

HEAT_TYPES = ["OS::Heat::None", "OS::Heat::RandomString", "OS::Heat::TestResource",
              "OS::Heat::Value"]


def test_types_sorted_and_include_heat_types() -> None:
    names = registry.types()
    assert names == sorted(names)
    assert set(HEAT_TYPES) <= set(names)


def test_get_known_and_unknown() -> None:
    assert registry.get("OS::Heat::None") is NoneResource
    assert registry.get("OS::Heat::Value") is Value
    assert registry.get("OS::Heat::RandomString") is RandomString
    assert registry.get("OS::Heat::TestResource") is TestResource
    assert registry.get("OS::Nope::Nothing") is None
    assert registry.schema("OS::Nope::Nothing") is None
    assert registry.validation_schema("OS::Nope::Nothing", {}) is None


@pytest.mark.parametrize("type_name", registry.types())
def test_schema_matches_heat(type_name: str, heat_types: dict[str, Any]) -> None:
    ours = registry.schema(type_name)
    assert ours is not None
    theirs = heat_types[type_name]
    assert ours["resource_type"] == theirs["resource_type"] == type_name
    assert strip_descriptions(ours["properties"]) == theirs["properties"]
    assert strip_descriptions(ours["attributes"]) == theirs["attributes"]
    assert ours["support_status"] == theirs["support_status"]


@pytest.mark.parametrize("type_name", registry.types())
def test_every_entry_has_a_description(type_name: str) -> None:
    cls = registry.get(type_name)
    assert cls is not None and issubclass(cls, Resource)

    def walk(entries: dict[str, Any]) -> None:
        for name, entry in entries.items():
            if name != "*":
                assert entry.get("description"), f"{type_name}: {name} has no description"
            walk(entry.get("schema", {}))

    walk(cls.properties_schema)
    walk(cls.attributes_schema)


def test_schema_is_a_copy() -> None:
    first = registry.schema("OS::Heat::RandomString")
    assert first is not None
    first["properties"]["length"]["default"] = 1
    first["attributes"].clear()
    again = registry.schema("OS::Heat::RandomString")
    assert again is not None
    assert again["properties"]["length"]["default"] == 32
    assert "value" in again["attributes"]


def test_show_attribute_added_to_every_type() -> None:
    for name in registry.types():
        cls = registry.get(name)
        assert cls is not None
        assert cls.attributes_schema["show"]["type"] == "map"


def test_validation_schema_none_accepts_anything() -> None:
    assert registry.validation_schema("OS::Heat::None", {"a": 1}) is None


def test_validation_schema_value_is_typed_by_type() -> None:
    assert registry.validation_schema("OS::Heat::Value", {"value": 1})["value"]["type"] == "any"
    expected = {"string": "string", "number": "number", "comma_delimited_list": "list",
                "json": "map", "boolean": "boolean"}
    for hot_type, prop_type in expected.items():
        found = registry.validation_schema("OS::Heat::Value", {"value": 1, "type": hot_type})
        assert found is not None
        assert found["value"]["type"] == prop_type
        assert found["value"]["required"] is True
    # an unknown type keeps "any"; the allowed_values constraint on "type" reports it
    bad = registry.validation_schema("OS::Heat::Value", {"value": 1, "type": "integer"})
    assert bad is not None and bad["value"]["type"] == "any"
    # the class schema is never changed
    assert Value.properties_schema["value"]["type"] == "any"


def test_validation_schema_default_is_properties_schema() -> None:
    found = registry.validation_schema("OS::Heat::RandomString", {})
    assert found == RandomString.properties_schema
    assert found is not RandomString.properties_schema


def test_strip_descriptions_keeps_a_property_named_description() -> None:
    entries = {"description": {"type": "string", "description": "d"},
               "m": {"type": "map", "description": "x",
                     "schema": {"k": {"type": "string", "description": "y"}}}}
    assert strip_descriptions(entries) == {"description": {"type": "string"},
                                           "m": {"type": "map", "schema": {"k": {"type": "string"}}}}


def test_plugins_never_import_flask_sqlalchemy_or_celery() -> None:
    import ast
    from pathlib import Path

    import app.resource_types as package

    forbidden = {"flask", "flask_smorest", "sqlalchemy", "celery"}
    for path in Path(package.__path__[0]).glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert not roots & forbidden, f"{path.name} imports {roots & forbidden}"
