"""The resource plugin contract (Heat's ``heat.engine.resource.Resource``, without the engine).

More in docs/code/resource_types.md (app.resource_types.base).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from app import errors
from app.resource_types import schema as s
from app.resource_types.names import random_short_id, reduce_physical_resource_name, short_id
from app.templates import properties as tproperties

__all__ = [
    "SHOW",
    "NotSupported",
    "Resource",
    "ResourceActionNotSupported",
    "StackIdentityLike",
    "UpdateReplace",
    "reduce_physical_resource_name",
    "short_id",
]

#: Heat's base attribute, present on every type (``Resource.base_attributes_schema``).
SHOW = "show"
_SHOW_SCHEMA = s.attr("Detailed information about resource.", "map")
_SHORT_ID_KEY = "_short_id"


class StackIdentityLike(Protocol):
    """What a plugin may know of its stack (``app.templates.StackIdentity`` satisfies it)."""

    stack_name: str
    stack_id: str
    project_id: str


class UpdateReplace(errors.StokerError):
    """The update cannot be done in place: the engine must create a replacement.

    Message as Heat's ``exception.UpdateReplace``: ``"The Resource r requires replacement."``.
    """

    http_status = 500
    heat_type = "UpdateReplace"

    def __init__(self, resource_name: str = "Unknown") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.",
                         resource_name=resource_name)


class NotSupported(errors.StokerError):
    """Heat's ``exception.NotSupported``: ``"<feature> is not supported."`` (e.g. changing an
    ``immutable`` property: ``"Update to properties a, b of r (T) is not supported."``)."""

    http_status = 400
    heat_type = "NotSupported"

    def __init__(self, feature: str) -> None:
        super().__init__(f"{feature} is not supported.", feature=feature)


class ResourceActionNotSupported(errors.StokerError):
    """Heat's ``ResourceActionNotSupported``: ``"<action> is not supported for resource."``."""

    http_status = 400
    heat_type = "ResourceActionNotSupported"

    def __init__(self, action: str) -> None:
        super().__init__(f"{action} is not supported for resource.", action=action)


class Resource:
    """Base class of every plugin; defaults are Heat's ``Resource`` defaults.

    A plugin sets ``type_name`` (the registry key), ``properties_schema`` /
    ``attributes_schema`` (Heat's format; ``show`` is added as Heat's ``base_attributes_schema``),
    ``support_status``, and where Heat does: ``accepts_any_properties`` / ``_attributes``,
    ``physical_resource_name_limit`` (255; ``None``: none), ``poll_initial`` / ``poll_max`` (s).
    Instance state: ``name``, ``properties`` (resolved, validated, defaulted), ``resource_id``
    (physical id or ``None``), ``data`` (JSON dict, mutated in place), ``stack``, ``clients``,
    ``uuid`` and ``clock`` (``() -> float`` epoch seconds).
    """

    type_name: ClassVar[str] = ""
    properties_schema: ClassVar[dict[str, Any]] = {}
    attributes_schema: ClassVar[dict[str, Any]] = {}
    support_status: ClassVar[dict[str, Any]] = s.support_status(None)
    accepts_any_properties: ClassVar[bool] = False
    #: Heat's ``implemented=False`` properties (``{name: schema}``): in no schema the API
    #: shows; given, they are "Property <name> not implemented yet".
    unimplemented_properties: ClassVar[dict[str, dict[str, Any]]] = {}
    accepts_any_attributes: ClassVar[bool] = False
    #: how the runtime realises this type as a child stack (``resource_group``,
    #: ``resource_chain``, ``deployment_group``, ``scaling_group``, ``stack``); None: not nested
    nested_kind: ClassVar[str | None] = None
    physical_resource_name_limit: ClassVar[int | None] = 255
    poll_initial: ClassVar[float] = 0.05
    poll_max: ClassVar[float] = 5.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if SHOW not in cls.attributes_schema:
            cls.attributes_schema = {**cls.attributes_schema, SHOW: _SHOW_SCHEMA}

    def __init__(self, name: str, properties: Mapping[str, Any] | None, *,
                 resource_id: str | None = None, data: dict[str, Any] | None = None,
                 stack: StackIdentityLike | None = None, clients: Any = None,
                 uuid: str | None = None) -> None:
        self.name = name
        self.properties: dict[str, Any] = dict(properties or {})
        self.resource_id = resource_id
        self.data: dict[str, Any] = data if data is not None else {}
        self.stack = stack
        self.clients = clients
        self.uuid = uuid
        self.clock: Callable[[], float] = time.time
        # Set by the engine before handle_create when no earlier attempt of this create can
        # have reached the cloud (the step holds the resource's first lock ever): an adoption
        # lookup for an earlier attempt's object (CloudResource.adopt) is then skipped.
        self.first_attempt = False

    def __repr__(self) -> str:
        return f"{type(self).__name__} {self.name!r}"

    # ---- schema ----------------------------------------------------------------------------
    def get_property(self, name: str) -> Any:
        """``properties[name]``, or the schema's default when absent or ``None`` (Heat's
        ``Properties.__getitem__``); ``None`` when there is neither."""
        value = self.properties.get(name)
        if value is None:
            default = self.properties_schema.get(name, {}).get("default")
            return copy.deepcopy(default)
        return value

    @classmethod
    def validation_schema(cls, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The properties schema to validate ``values`` against, or ``None`` when the type
        accepts any properties (OS::Heat::None). Overridden where the schema depends on the
        values (OS::Heat::Value retypes ``value`` from ``type``, as Heat's ``Value.__init__``)."""
        if cls.accepts_any_properties:
            return None
        if not cls.unimplemented_properties:
            return cls.properties_schema
        return {**cls.properties_schema,
                **{k: {**v, "implemented": False} for k, v in cls.unimplemented_properties.items()}}

    @classmethod
    def validated_properties(cls, values: Mapping[str, Any],
                             path: Sequence[Any]) -> dict[str, Any]:
        """``values`` (resolved; a null is given) checked and coerced against
        :meth:`validation_schema` (:func:`app.templates.properties.validate`, defaults and
        zero values applied): what the plugin is given. ``path``: where the properties are,
        e.g. ``("resources", "r", "properties")``.

        :raises errors.ValidationError: "Property error: <path>.<prop>: <why>".
        """
        schema = cls.validation_schema(values)
        if schema is None:
            return dict(values)
        return tproperties.validate(schema, values, path)

    @classmethod
    def implicit_requirements(cls, name: str, view: Any) -> set[str]:
        """Heat's ``add_dependencies``: the resources ``name`` must wait for though it does
        not reference them. ``view``: an ``app.resource_types._dependencies.StackView``.
        Heat's default, and this one: none."""
        return set()

    def validate(self) -> None:
        """Type-specific checks after property validation (Heat's ``Resource.validate``).

        :raises errors.ValidationError: Heat's ``StackValidationFailed`` wording.
        """

    # ---- life cycle (Heat's defaults: nothing to do, complete at once) ------------------------
    def handle_create(self) -> Any:
        """Start creating; set ``self.resource_id`` as early as possible. Returns a handle."""
        return None

    def check_create_complete(self, handle: Any) -> bool:
        """``True`` when the create has finished; raises to fail it. Never sleeps."""
        return True

    def update_diff(self, new_properties: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's ``update_template_diff_properties``: the changed properties ``{name: new}``.

        A property counts as changed when its old and new values differ (absent = ``None``).
        :raises NotSupported: a changed property is ``immutable``.
        :raises UpdateReplace: :meth:`needs_replace_with_prop_diff` says so, or a changed
            property is not ``update_allowed``.
        """
        keys = set(self.properties) | set(new_properties)
        changed = {k: new_properties.get(k) for k in keys
                   if self.properties.get(k) != new_properties.get(k)}
        schema = self._update_schema()
        immutable = sorted(k for k in changed if schema.get(k, {}).get("immutable"))
        if immutable:
            raise NotSupported(f"Update to properties {', '.join(immutable)} of {self.name} "
                               f"({self.type_name})")
        if changed and self.needs_replace_with_prop_diff(set(changed), new_properties):
            raise UpdateReplace(self.name)
        if any(not schema.get(k, {}).get("update_allowed") for k in changed):
            raise UpdateReplace(self.name)
        return changed

    def _update_schema(self) -> dict[str, Any]:
        """The schema updates are judged by: the declared one, with the properties Heat has
        that the reference listing lost (a cloud type's ``unlisted_properties``, e.g. an
        updatable ``description``)."""
        return {**(getattr(type(self), "unlisted_properties", None) or {}),
                **self.properties_schema}

    def needs_replace_with_prop_diff(self, changed: set[str],
                                     new_properties: Mapping[str, Any]) -> bool:
        """Hook: ``True`` forces replacement even if every change is ``update_allowed``."""
        return False

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """Start an in-place update to ``new_properties``; ``changed`` is :meth:`update_diff`.

        The default (Heat's: nothing to call) re-checks the replacement rules, then adopts the
        new properties. Overrides should call ``self.check_replace(changed, new_properties)``
        first. Returns a handle.
        :raises UpdateReplace: a changed property is not ``update_allowed``.
        """
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        return None

    def check_replace(self, changed: Mapping[str, Any], new_properties: Mapping[str, Any]) -> None:
        """:raises UpdateReplace: if any of ``changed`` may not be updated in place."""
        schema = self._update_schema()
        if changed and (self.needs_replace_with_prop_diff(set(changed), new_properties)
                        or any(not schema.get(k, {}).get("update_allowed") for k in changed)):
            raise UpdateReplace(self.name)

    def check_update_complete(self, handle: Any) -> bool:
        """``True`` when the update has finished; raises to fail it."""
        return True

    def needs_replace_failed(self) -> bool:
        """Heat's ``needs_replace_failed``: whether a FAILED resource must be replaced on the
        next update (the default: yes); types whose physical resource may still be healthy
        check it and are then updated in place instead."""
        return True

    def prepare_for_replace(self) -> Any:
        """Heat's ``prepare_for_replace``: before a replacement is created, free what it will
        take over from this (old) physical resource (a server detaches the ports the template
        gave it). Returns a handle for :meth:`check_prepare_for_replace_complete`, or ``None``
        when there is nothing to do (the default)."""
        return None

    def check_prepare_for_replace_complete(self, handle: Any) -> bool:
        """``True`` when :meth:`prepare_for_replace` has finished; raises to fail the update.
        May update ``handle`` in place (the engine stores it between polls)."""
        return True

    def handle_delete(self) -> Any:
        """Start deleting the physical resource (absent = already deleted). Returns a handle."""
        return None

    def check_delete_complete(self, handle: Any) -> bool:
        """``True`` when the delete has finished; raises to fail it."""
        return True

    def handle_signal(self, details: Any = None) -> Any:
        """Receive a signal (wait condition handles, scaling policies, alarms override this).

        :raises ResourceActionNotSupported: by default, as Heat for a type without a handler.
        """
        raise ResourceActionNotSupported("signal")

    def poll_delay(self, handle: Any, attempt: int) -> float:
        """Seconds to wait before the next ``check_*_complete`` (``attempt`` counts from 0).

        Default: exponential backoff ``poll_initial * 2**attempt``, capped at ``poll_max``.
        """
        return float(min(self.poll_max, self.poll_initial * (2 ** max(attempt, 0))))

    # ---- references and attributes ---------------------------------------------------------
    def get_reference_id(self) -> str:
        """What ``get_resource`` / ``Ref`` return: Heat's default is the physical id, or the
        resource name while there is none."""
        return str(self.resource_id) if self.resource_id is not None else str(self.name)

    def resolve_attribute(self, name: str) -> Any:
        """The value of attribute ``name`` (Heat's ``_resolve_any_attribute``).

        ``show`` is :meth:`show_resource` (``None`` without a physical id); others come from
        :meth:`_resolve_attribute`.
        :raises errors.TemplateError: ``InvalidTemplateAttribute`` for an undeclared name
            (unless ``accepts_any_attributes``, which gives ``None``).
        """
        if name == SHOW:
            return self.show_resource() if self.resource_id else None
        if name not in self.attributes_schema:
            if self.accepts_any_attributes:
                return None
            raise errors.TemplateError(
                f"The Referenced Attribute ({self.name} {name}) is incorrect.",
                heat_type="InvalidTemplateAttribute", resource=self.name, key=name)
        return self._resolve_attribute(name)

    def _resolve_attribute(self, name: str) -> Any:
        """Hook for declared attributes other than ``show``; Heat's default resolves to None."""
        return None

    def all_attributes(self) -> dict[str, Any]:
        """Every declared attribute but ``show`` (Heat's ``FnGetAtts``, i.e. ``get_attr: [r]``,
        and the ``attributes`` of resource show)."""
        return {k: self.resolve_attribute(k) for k in self.attributes_schema if k != SHOW}

    def show_resource(self) -> dict[str, Any] | None:
        """The ``show`` attribute: the cloud's view of the physical resource. Cloud-free types
        have none (Heat's default ``_show_resource`` without an entity gives ``None``)."""
        return None

    # ---- names -------------------------------------------------------------------------------
    def short_id(self) -> str:
        """12 characters ``[a-z2-7]``, stable for this resource: derived from ``self.uuid`` as
        Heat's ``short_id.get_id``, else random and kept in ``self.data`` so a redelivered task
        gets the same one."""
        if self.uuid:
            try:
                return short_id(self.uuid)
            except ValueError:
                pass    # not a version-4 UUID: fall back to a remembered random id
        sid = self.data.get(_SHORT_ID_KEY)
        if not sid:
            sid = random_short_id()
            self.data[_SHORT_ID_KEY] = sid
        return str(sid)

    def physical_resource_name(self) -> str:
        """Heat's ``"<stack_name>-<resource_name>-<short id>"`` (trailing ``*`` of the stack
        name dropped), shortened by :func:`reduce_physical_resource_name` to
        ``physical_resource_name_limit``.

        :raises ValueError: no stack identity was given.
        """
        if self.stack is None:
            raise ValueError(f"resource {self.name!r} has no stack: no physical name")
        name = f"{self.stack.stack_name.rstrip('*')}-{self.name}-{self.short_id()}"
        if self.physical_resource_name_limit:
            name = reduce_physical_resource_name(name, self.physical_resource_name_limit)
        return name
