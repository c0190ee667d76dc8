"""The resource registry of an environment: which implementation a resource's type names.

More in docs/code/templates.md (app.templates.registry).
"""
from __future__ import annotations

import copy
import fnmatch
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import global_templates

TEMPLATE_SUFFIXES = (".yaml", ".template")
HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update",
              "post-delete")
RESTRICTED_ACTIONS = ("update", "replace")
_MAX_DEPTH = 50
#: Heat's global environment (``etc/heat/environment.d/default.yaml``), below every stack's own
#: registry: a stack's entries win, and these apply to a type no plugin implements. Of its two
#: ``file:///etc/heat/templates/...`` providers, ``AWS::CloudWatch::Alarm`` and
#: ``AWS::RDS::DBInstance`` are held in :mod:`app.templates.global_templates`.
GLOBAL_ENTRIES = {
    "OS::Metering::Alarm": "OS::Aodh::Alarm",
    "OS::Ceilometer::Alarm": "OS::Aodh::Alarm",
    "OS::Ceilometer::GnocchiResourcesAlarm": "OS::Aodh::GnocchiResourcesAlarm",
    "OS::Ceilometer::GnocchiAggregationByMetricsAlarm":
        "OS::Aodh::GnocchiAggregationByMetricsAlarm",
    "OS::Ceilometer::GnocchiAggregationByResourcesAlarm":
        "OS::Aodh::GnocchiAggregationByResourcesAlarm",
    "OS::Ceilometer::CombinationAlarm": "OS::Aodh::CombinationAlarm",
}
#: the global environment's wildcard renames: "OS::Quantum*" -> "OS::Neutron*"
GLOBAL_GLOBS = {"OS::Quantum": "OS::Neutron"}


def global_target(type_name: str) -> str | None:
    """The type Heat's global environment maps ``type_name`` to, None when it maps nothing."""
    if type_name in GLOBAL_ENTRIES:
        return GLOBAL_ENTRIES[type_name]
    for prefix, to in GLOBAL_GLOBS.items():
        if type_name.startswith(prefix):
            return to + type_name[len(prefix):]
    return None


def is_template_name(name: str) -> bool:
    """True when Heat treats ``name`` as a template file (``.yaml`` / ``.template``)."""
    return name.endswith(TEMPLATE_SUFFIXES)


@dataclass(frozen=True)
class Resolution:
    """The outcome of resolving a type: ``effective_type`` is the built-in type to instantiate
    (for a template resource, the type as written); ``template`` the files-map key of the
    provider template, else None."""

    effective_type: str
    template: str | None = None


@dataclass(frozen=True)
class _Info:
    """One registry entry: ``path`` (e.g. ``("resources", "b", "My::T")``), its value, kind."""

    path: tuple[str, ...]
    value: str
    kind: str  # "map" | "glob" | "template"

    @property
    def name(self) -> str:
        return self.path[-1]

    def sort_key(self) -> tuple[int, tuple[str, ...]]:
        return (-len(self.path), self.path)


def _info(path: tuple[str, ...], value: str) -> _Info:
    name = path[-1]
    if is_template_name(name):
        return _Info(path, name, "template")
    if is_template_name(value):
        return _Info(path, value, "template")
    if name.endswith("*"):
        return _Info(path, value, "glob")
    return _Info(path, value, "map")


def _check_actions(key: str, value: Any, allowed: tuple[str, ...], what: str,
                   heat_type: str) -> None:
    ok = (isinstance(value, str) and value in allowed) or (
        isinstance(value, list) and all(isinstance(v, str) and v in allowed for v in value))
    if not ok:
        raise errors.BadRequest(f'Invalid {what} type "{value}" for resource'
                                f'{" breakpoint" if key == "hooks" else ""}, acceptable '
                                f'{what} types are: {allowed}', heat_type=heat_type)


def _check_nested(spec: Mapping[str, Any]) -> None:
    """Hooks and restricted actions deeper in ``resources`` are checked too (Heat loads the
    whole tree)."""
    for key, value in spec.items():
        if key == "hooks":
            _check_actions(key, value, HOOK_TYPES, "hook", "InvalidBreakPointHook")
        elif key == "restricted_actions":
            _check_actions(key, value, RESTRICTED_ACTIONS, "restricted_action",
                           "InvalidRestrictedAction")
        elif isinstance(value, Mapping):
            _check_nested(value)


@dataclass
class Registry:
    """A loaded resource registry (see module doc). Build with :meth:`from_mapping`."""

    entries: dict[str, _Info] = field(default_factory=dict)
    resources: dict[str, dict[str, Any]] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | None) -> Registry:
        """Load an environment's ``resource_registry`` in order, as Heat's
        ``ResourceRegistry.load``.

        :raises errors.BadRequest: a section or entry of the wrong shape, an invalid hook or
            restricted action (Heat's ``InvalidBreakPointHook`` / ``InvalidRestrictedAction``).
        """
        reg = cls(raw=copy.deepcopy(dict(mapping or {})))
        if mapping is None:
            return reg
        if not isinstance(mapping, Mapping):
            raise errors.BadRequest("resource_registry must be a mapping",
                                    heat_type="ValueError")
        for key, value in mapping.items():
            key = str(key)
            if key == "resources" and isinstance(value, Mapping):
                for rname, spec in value.items():
                    if str(rname) in ("hooks", "restricted_actions") and not isinstance(
                            spec, Mapping):
                        # the parent resource's own hooks, carried into its nested stack by
                        # the child registry (Heat's remove_resources_except): Heat keeps
                        # them as an item that names no resource, so they match nothing
                        reg._check_item(str(rname), spec)
                        continue
                    reg._load_resource(str(rname), spec)
            elif value is None:
                reg._remove(reg.entries, key)
            elif isinstance(value, str):
                reg.entries[key] = _info((key,), value)
            else:
                raise errors.BadRequest(f'resource_registry entry "{key}" must be a type name '
                                        f'or a template file name', heat_type="ValueError")
        return reg

    @staticmethod
    def _check_item(key: str, value: Any) -> None:
        if key == "hooks":
            _check_actions(key, value, HOOK_TYPES, "hook", "InvalidBreakPointHook")
        else:
            _check_actions(key, value, RESTRICTED_ACTIONS, "restricted_action",
                           "InvalidRestrictedAction")

    def _load_resource(self, rname: str, spec: Any) -> None:
        if spec is None:
            self.resources.pop(rname, None)
            return
        if not isinstance(spec, Mapping):
            raise errors.BadRequest(f'resource_registry.resources.{rname} must be a mapping',
                                    heat_type="ValueError")
        target = self.resources.setdefault(rname, {})
        for key, value in spec.items():
            key = str(key)
            if key == "hooks":
                _check_actions(key, value, HOOK_TYPES, "hook", "InvalidBreakPointHook")
                target[key] = value
            elif key == "restricted_actions":
                _check_actions(key, value, RESTRICTED_ACTIONS, "restricted_action",
                               "InvalidRestrictedAction")
                target[key] = value
            elif value is None:
                self._remove(target, key)
            elif isinstance(value, str):
                target[key] = _info(("resources", rname, key), value)
            elif isinstance(value, Mapping):  # entries for a nested stack's resource
                _check_nested(value)
                target[key] = copy.deepcopy(dict(value))
            else:
                raise errors.BadRequest(f'resource_registry.resources.{rname}.{key} must be a '
                                        f'type name or a template file name',
                                        heat_type="ValueError")

    @staticmethod
    def _remove(where: dict[str, Any], name: str) -> None:
        if name.endswith("*"):
            for k in [k for k, v in where.items()
                      if isinstance(v, _Info) and k.startswith(name[:-1])]:
                del where[k]
        else:
            where.pop(name, None)

    # -- resolution ----------------------------------------------------------------------------
    def _candidates(self, type_name: str, resource_name: str | None) -> list[_Info]:
        out: list[_Info] = []
        if is_template_name(type_name):
            out.append(_Info((type_name,), type_name, "template"))
        if resource_name is not None:
            specific = self.resources.get(resource_name)
            if specific and isinstance(specific.get(type_name), _Info):
                out.append(specific[type_name])
        exact = self.entries.get(type_name)
        if exact is not None:
            out.append(exact)
        for key, info in self.entries.items():
            if key.endswith("*") and info.kind == "glob" and type_name != info.value \
                    and type_name.startswith(key[:-1]):
                out.append(info)
        return sorted(out, key=_Info.sort_key)

    def resolve(self, type_name: str, resource_name: str | None = None, *,
                known: Callable[[str], bool] | None = None,
                record: bool = False) -> Resolution:
        """Resolve ``type_name`` for resource ``resource_name`` (see module doc).

        :param known: whether a built-in type exists (None: every name not in the registry
            is taken as built-in; the caller's type schema then decides).
        :param record: keep Heat's side effect (a mapping that reached a built-in type becomes
            the top-level entry for ``type_name``); the registry is mutated.
        :raises errors.ValidationError: Heat's "The Resource Type (X) could not be found."
            naming ``type_name``.
        """
        found = self._resolve(type_name, resource_name, known, record, 0)
        if found is None:
            raise errors.ValidationError(f"The Resource Type ({type_name}) could not be found.",
                                         heat_type="StackValidationFailed")
        return found

    def _resolve(self, type_name: str, resource_name: str | None,
                 known: Callable[[str], bool] | None, record: bool,
                 depth: int) -> Resolution | None:
        if depth > _MAX_DEPTH:
            return None
        for info in self._candidates(type_name, resource_name):
            if info.kind == "template":
                return Resolution(type_name, info.value)
            if info.kind == "glob":
                prefix = info.name[:-1]
                target = (info.value[:-1] + type_name[len(prefix):]
                          if info.value.endswith("*") else info.value)
            else:
                target = info.value
            found = self._resolve(target, resource_name, known, record, depth + 1)
            if found is None:
                continue
            if record and found.template is None and info.path != (type_name,):
                self.entries[type_name] = info
            return found if found.template is None else Resolution(type_name, found.template)
        provider = global_templates.ENTRIES.get(type_name)
        if provider is not None and (known is None or not known(type_name)):
            return Resolution(type_name, provider)  # Heat's global template resources
        mapped = global_target(type_name)
        if mapped is not None and (known is None or not known(type_name)):
            found = self._resolve(mapped, resource_name, known, record, depth + 1)
            if found is not None:
                return found if found.template is None else Resolution(type_name, found.template)
        if known is None or known(type_name):
            return Resolution(type_name, None)
        return None

    # -- hooks and actions ---------------------------------------------------------------------
    def _matching(self, resource_name: str, key: str) -> set[str]:
        out: set[str] = set()
        for pattern, spec in self.resources.items():
            if key in spec and fnmatch.fnmatchcase(resource_name, pattern):
                value = spec[key]
                out.update([value] if isinstance(value, str) else value)
        return out

    def hooks_for(self, resource_name: str) -> set[str]:
        """Hook types set for ``resource_name`` (wildcard patterns match, as Heat)."""
        return self._matching(resource_name, "hooks")

    def restricted_actions_for(self, resource_name: str) -> set[str]:
        """Restricted actions (``update`` / ``replace``) for ``resource_name``."""
        return self._matching(resource_name, "restricted_actions")

    def child_mapping(self, resource_name: str, template: str | None = None,
                      type_name: str | None = None) -> dict[str, Any]:
        """The registry to hand a nested stack of resource ``resource_name``, as Heat's
        ``get_child_environment``: the entry that made the resource a template resource is
        removed (no self-recursion) and ``resources`` keeps only what applies inside the
        child (the contents of every entry whose name pattern matches ``resource_name``)."""
        out = {k: v for k, v in self.raw.items() if k != "resources"}
        if template is not None and type_name is not None:
            info = self.entries.get(type_name)
            if info is not None and info.kind == "template" and info.path == (type_name,):
                out.pop(type_name, None)
        child: dict[str, Any] = {}
        raw_resources = self.raw.get("resources")
        for pattern, spec in (raw_resources.items()
                              if isinstance(raw_resources, Mapping) else ()):
            if isinstance(spec, Mapping) and fnmatch.fnmatchcase(resource_name, str(pattern)):
                child.update(copy.deepcopy(dict(spec)))
        out["resources"] = child
        return out
