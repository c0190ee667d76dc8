"""The registry of resource types: type name -> plugin class.

More in docs/code/resource_types.md (app.resource_types.registry).
"""
from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from app.resource_types import schema as s
from app.resource_types._dependencies import with_implicit
from app.resource_types.base import Resource

_NOT_PLUGINS = frozenset({"base", "names", "registry", "schema"})
_lock = threading.Lock()
_types: Mapping[str, type[Resource]] | None = None
_hidden: Mapping[str, type[Resource]] = MappingProxyType({})


def _load() -> Mapping[str, type[Resource]]:
    """Import every plugin module once; O(modules). Thread-safe.

    :raises ImportError: a plugin module does not import.
    :raises RuntimeError: two modules map the same type name.
    """
    global _types, _hidden
    if _types is not None:
        return _types
    with _lock:
        if _types is None:
            import app.resource_types as package

            found: dict[str, type[Resource]] = {}
            hidden: dict[str, type[Resource]] = {}
            for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
                if info.name in _NOT_PLUGINS or info.name.startswith("_"):
                    continue
                module = importlib.import_module(f"{package.__name__}.{info.name}")
                hidden.update(getattr(module, "hidden_resource_mapping", dict)())
                mapping = getattr(module, "resource_mapping", None)
                if mapping is None:
                    continue
                for type_name, cls in mapping().items():
                    if type_name in found and found[type_name] is not cls:
                        raise RuntimeError(f"resource type {type_name} is defined twice "
                                           f"({found[type_name].__module__}, {cls.__module__})")
                    found[type_name] = cls
            _hidden = MappingProxyType(hidden)
            _types = MappingProxyType(dict(sorted(found.items())))
    return _types


def get(type_name: str) -> type[Resource] | None:
    """The plugin class for ``type_name`` (e.g. ``"OS::Heat::RandomString"``; a HIDDEN one
    too), ``None`` if unknown."""
    found = _load().get(type_name)
    return found if found is not None else _hidden.get(type_name)


def types() -> list[str]:
    """Every registered type name, sorted."""
    return list(_load())


def schema(type_name: str, hidden: bool = False) -> dict[str, Any] | None:
    """The type's schema as Heat's ``GET /resource_types/{type}`` (and ``resource_types.json``)::

        {"resource_type": "OS::Heat::Value",
         "properties": {"value": {"type": "any", "required": true, ...}, ...},
         "attributes": {"value": {...}, "show": {"type": "map", ...}},
         "support_status": {"status": "SUPPORTED", "version": "7.0.0", ...}}

    A fresh deep copy (callers may mutate it); ``None`` for an unknown type, and for a HIDDEN
    one unless ``hidden`` (templates may use those; the API does not show them).
    """
    cls = get(type_name) if hidden else _load().get(type_name)
    if cls is None:
        return None
    return {"resource_type": type_name,
            "properties": s.copy_schema(cls.properties_schema),
            "attributes": s.copy_schema(cls.attributes_schema),
            "support_status": s.copy_schema(cls.support_status)}


def validation_schema(type_name: str, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The properties schema to validate ``values`` of ``type_name`` against: ``None`` when the
    type accepts any properties (OS::Heat::None) or is unknown. See
    :meth:`Resource.validation_schema`."""
    cls = get(type_name)
    if cls is None:
        return None
    found = cls.validation_schema(values)
    return None if found is None else s.copy_schema(found)


def implicit_dependencies(resources: Mapping[str, Any],
                          requires: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The stack graph ``requires`` ({name: names it requires}) with the plugins' implicit
    requirements added (Heat's ``add_dependencies``; see :mod:`app.resource_types._dependencies`).
    ``resources``: ``{name: ResourceDefinition}``."""
    return with_implicit(resources, requires, get)
