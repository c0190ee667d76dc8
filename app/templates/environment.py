"""A minimal environment: ``parameters``, ``parameter_defaults``, ``resource_registry``.

As Heat's environment format; merging several environment files (merge strategies) and
resolving the registry (aliases, wildcards, template files) are a later issue and slot in here.
Unknown sections are Heat's 'environment has wrong section "x"'.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import loader
from app.templates.registry import Registry

SECTIONS = ("parameters", "parameter_defaults", "resource_registry", "encrypted_param_names",
            "event_sinks", "parameter_merge_strategies")


@dataclass
class Environment:
    """Environment sections (plain data)."""

    parameters: dict[str, Any] = field(default_factory=dict)
    parameter_defaults: dict[str, Any] = field(default_factory=dict)
    resource_registry: dict[str, Any] = field(default_factory=dict)
    event_sinks: list[Any] = field(default_factory=list)
    encrypted_param_names: list[str] = field(default_factory=list)
    parameter_merge_strategies: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | str | bytes | None) -> Environment:
        """Build from a loaded mapping (or YAML text).

        :raises errors.BadRequest: not a mapping, or an unknown section (Heat's messages).
        """
        if mapping is None:
            return cls()
        if isinstance(mapping, (str, bytes)):
            data = loader.load_text(mapping, what="environment").data
            if data is None:
                return cls()
            mapping = data
        if not isinstance(mapping, Mapping):
            raise errors.BadRequest("The environment is not a valid YAML mapping data type.",
                                    heat_type="ValueError")
        for key in mapping:
            if key not in SECTIONS:
                raise errors.BadRequest(f'environment has wrong section "{key}"',
                                        heat_type="ValueError")
        return cls(parameters=dict(mapping.get("parameters") or {}),
                   parameter_defaults=dict(mapping.get("parameter_defaults") or {}),
                   resource_registry=dict(mapping.get("resource_registry") or {}),
                   event_sinks=list(mapping.get("event_sinks") or []),
                   encrypted_param_names=list(mapping.get("encrypted_param_names") or []),
                   parameter_merge_strategies=dict(
                       mapping.get("parameter_merge_strategies") or {}))

    def registry(self) -> Registry:
        """The loaded ``resource_registry`` (:mod:`app.templates.registry`); built on first use.

        :raises errors.BadRequest: a malformed entry, hook or restricted action."""
        cached = self.__dict__.get("_registry")
        if cached is None or cached[0] is not self.resource_registry:
            cached = (self.resource_registry, Registry.from_mapping(self.resource_registry))
            self.__dict__["_registry"] = cached
        return cached[1]

    def resolve_type(self, resource_name: str | None, type_name: str, *,
                     known: Callable[[str], bool] | None = None) -> tuple[str, str | None]:
        """``(effective_type, template_key | None)`` for a resource's type through the registry
        (aliases, ``OS::Heat::None``, wildcards, per-resource entries, template files); see
        :meth:`app.templates.registry.Registry.resolve`. :raises errors.ValidationError:"""
        found = self.registry().resolve(type_name, resource_name, known=known)
        return found.effective_type, found.template

    def to_mapping(self) -> dict[str, Any]:
        """As Heat shows an environment (``/validate``'s ``Environment``)."""
        registry = dict(self.resource_registry)
        registry.setdefault("resources", {})
        return {"resource_registry": registry, "parameters": dict(self.parameters),
                "parameter_defaults": dict(self.parameter_defaults),
                "event_sinks": list(self.event_sinks)}
