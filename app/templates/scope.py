"""Resolvers: what functions see while resolving (parameters, references, attributes, files).

* :class:`StaticResolver` (validation): references and attributes are
  :data:`~.functions.base.UNKNOWN`, so only values known before any resource exists are checked.
* :class:`RuntimeResolver` (engine): references and attributes come from a
  :class:`ResolveContext` — a small protocol the engine (or a test's dict) implements.

A reference to a resource that is not in the stack (unknown, or removed by its condition) is
Heat's 'The specified reference "x" (in unknown) is incorrect.'.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.templates.functions.base import UNKNOWN, FunctionError, Path
from app.templates.parameters import Parameters

if TYPE_CHECKING:
    from app.templates.conditions import Conditions


class ResolveContext(Protocol):
    """The engine's side of resolution (see docs/contracts.md)."""

    def get_resource(self, name: str) -> str | None:
        """Reference id of resource ``name`` (None if it was never created)."""
    def get_attr(self, name: str, attr: str, *path: Any) -> Any:
        """Attribute ``attr`` of ``name`` followed along ``path`` (None if never created).
        :raises errors.TemplateError: unknown attribute."""
    def get_all_attrs(self, name: str) -> dict[str, Any]:
        """Every attribute of ``name`` (get_attr without an attribute name, 2015-10-15+)."""


@dataclass(frozen=True)
class ParentFacade:
    """What ``resource_facade`` returns in a nested stack: the parent resource's
    ``metadata``, ``deletion_policy`` and ``update_policy``."""

    metadata: Any = None
    deletion_policy: str = "Delete"
    update_policy: Any = None


@dataclass
class Scope:
    """Stack-level facts shared by resolvers."""

    params: Parameters
    files: Mapping[str, str]
    active: frozenset[str]
    conditions: Conditions | None = None
    parent: ParentFacade | None = None
    templates: frozenset[str] = field(default_factory=frozenset)
    #: export name -> value for the names the template imports; None: not looked up
    #: (validation alone: an import is then UNKNOWN)
    imports: Mapping[str, Any] | None = None


def bad_reference(name: Any, path: Path, where: str = "unknown") -> FunctionError:
    """Heat's InvalidTemplateReference text for ``name`` referenced from ``where``."""
    return FunctionError(f'The specified reference "{name}" (in {where}) is incorrect.', path,
                         heat_type="InvalidTemplateReference")


class _Base:
    static = True

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def has_param(self, name: str) -> bool:
        return name in self.scope.params

    def param(self, name: str, path: Path) -> Any:
        try:
            return self.scope.params.get(name)
        except KeyError:
            raise FunctionError(f"The Parameter ({name}) was not provided.", path,
                                heat_type="UserParameterMissing") from None

    def file(self, key: str, path: Path) -> str:
        content = self.scope.files.get(key)
        if content is None:
            raise FunctionError(f'No content found in the "files" section for get_file path: '
                                f'{key}', path)
        return content

    def condition(self, name: Any, path: Path) -> bool:
        if self.scope.conditions is None:
            if isinstance(name, bool):
                return name
            raise FunctionError(f'Invalid condition "{name}"', path)
        return self.scope.conditions.value(name, path)

    def facade(self, key: str, path: Path) -> Any:
        parent = self.scope.parent
        if parent is None:
            raise FunctionError(f"resource_facade: {key} is only available in a nested stack "
                                f"(this stack has no parent resource)", path)
        return getattr(parent, key)

    def import_value(self, name: str, path: Path) -> Any:
        if self.scope.imports is None:
            if self.static:
                return UNKNOWN
        elif name in self.scope.imports:
            return self.scope.imports[name]
        raise FunctionError(f"No export named {name} found.", path, heat_type="NotFound")

    def _check_ref(self, name: Any, path: Path) -> None:
        if not isinstance(name, str) or name not in self.scope.active:
            raise bad_reference(name, path)


class StaticResolver(_Base):
    """Validation-time resolver: references/attributes are UNKNOWN."""

    static = True

    def ref(self, name: str, path: Path) -> Any:
        return UNKNOWN

    def attr(self, name: str, attr: str | None, rest: tuple[Any, ...], path: Path) -> Any:
        return UNKNOWN


class RuntimeResolver(_Base):
    """Resolution against the engine's :class:`ResolveContext`."""

    static = False

    def __init__(self, scope: Scope, ctx: ResolveContext) -> None:
        super().__init__(scope)
        self.ctx = ctx

    def ref(self, name: str, path: Path) -> Any:
        self._check_ref(name, path)
        return self.ctx.get_resource(name)

    def attr(self, name: str, attr: str | None, rest: tuple[Any, ...], path: Path) -> Any:
        self._check_ref(name, path)
        if attr is None:
            return self.ctx.get_all_attrs(name)
        return self.ctx.get_attr(name, attr, *rest)
