"""The base of plugins that drive a cloud through ``self.clients`` (``app.clients``).

:class:`CloudResource` adds to Heat's plugin contract what every cloud type shares.

More in docs/code/resource_types.md (app.resource_types._cloud).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import constraints, is_conflict, is_not_found, status
from app.resource_types import _faults
from app.resource_types import schema as _s
from app.resource_types._adoption import Adoption
from app.resource_types.base import NotSupported, Resource

#: Polls a delete keeps retrying a 409 before failing with the cloud's message.
CONFLICT_POLLS = 60


def plain(obj: Any) -> dict[str, Any] | None:
    """An SDK resource (or a dict) as plain JSON with the API's own key names."""
    if obj is None:
        return None
    if hasattr(obj, "to_dict"):
        data = obj.to_dict(body=True, headers=False, computed=False, original_names=True)
    else:
        data = dict(obj)
    data.pop("location", None)
    out: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return out


def in_error(status: str, reason: str = "Unknown") -> errors.StokerError:
    """Heat's ``ResourceInError``: ``Went to status ERROR due to "Unknown"``."""
    return errors.StokerError(f'Went to status {status} due to "{reason}"',
                              heat_type="ResourceInError")


#: Heat's ``description`` property (a string, updatable), which the reference data lacks.
UNLISTED_DESCRIPTION: dict[str, dict[str, Any]] = {
    "description": _s.prop("string", "Description of the resource.", update_allowed=True)}


@_faults.ride_out
class CloudResource(Resource, Adoption):
    """A resource backed by a cloud object whose id is ``resource_id``."""

    poll_initial: ClassVar[float] = 0.1
    poll_max: ClassVar[float] = 2.0
    #: stack validation may hand this type a client to check its custom constraints
    cloud_validation: ClassVar[bool] = True
    #: ``{(constraint, value): reason}`` shared by the plugins of one validation (set by it)
    constraint_cache: dict[Any, Any] | None = None
    #: Attribute name -> key of ``show`` (when they differ).
    attribute_keys: ClassVar[dict[str, str]] = {}

    #: Heat's hidden (deprecated) properties: ``{hidden name: visible name}``. They are not in
    #: ``properties_schema`` (Heat's API does not show them) but are accepted by
    #: :meth:`validation_schema` with the visible property's schema, and translated to the
    #: visible name when the plugin is built (Heat's translation rules).
    hidden_properties: ClassVar[dict[str, str]] = {}

    #: Properties Heat 27 has that ``../shared/heat-reference`` lacks (its extraction removed
    #: every key named ``description``, and so the ``description`` *property* of Heat's
    #: SecurityGroup, Volume, Alarm...): accepted by :meth:`validation_schema` and the template
    #: layer, not listed in ``properties_schema`` (the reference shape of GET /resource_types).
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = {}

    #: Heat's hidden (deprecated) attributes, still resolved though not listed
    #: (e.g. the Server's ``first_address``): ``{name: attribute schema}``.
    hidden_attributes: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("handle_update")
        if own is not None and not getattr(own, "_translates", False):
            def handle_update(self: CloudResource, new_properties: Mapping[str, Any],
                              changed: Mapping[str, Any]) -> Any:
                return own(self, self.translate(new_properties), changed)
            handle_update.__doc__ = own.__doc__
            handle_update._translates = True  # type: ignore[attr-defined]
            cls.handle_update = handle_update  # type: ignore[method-assign]
        _faults.ride_out(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: dict[str, Any] | None = None
        #: the last :meth:`polled` answer (``None``: gone, or not polled yet)
        self.last_polled: dict[str, Any] | None = None
        #: ``{(constraint, value): id}`` looked up in this step (validation, then the handlers)
        self._resolved: dict[tuple[str, str], str] = {}
        self.properties = self.translate(self.properties)

    @classmethod
    def translate(cls, props: Mapping[str, Any]) -> dict[str, Any]:
        """``props`` with :attr:`hidden_properties` renamed to their visible names (a visible
        value wins), as Heat's translation rules do before a plugin sees them."""
        out = dict(props)
        for hidden, visible in cls.hidden_properties.items():
            value = out.pop(hidden, None)
            if value is not None and out.get(visible) is None:
                out[visible] = value
        return out

    def update_diff(self, new_properties: Mapping[str, Any]) -> dict[str, Any]:
        """Heat's diff, on translated properties (a hidden name is its visible one)."""
        return super().update_diff(self.translate(new_properties))

    def resolve_attribute(self, name: str) -> Any:
        """Heat's ``_resolve_any_attribute``, hidden attributes included."""
        if name in self.hidden_attributes and name not in self.attributes_schema:
            return self._resolve_attribute(name)
        return super().resolve_attribute(name)

    # ---- clients ---------------------------------------------------------------------------
    def cloud(self) -> Any:
        """The stack's guarded connection (``app.clients.retry.Cloud``).

        :raises errors.CloudError: no client factory was given or the cloud is unreachable.
        """
        if self.clients is None:
            raise errors.CloudError(f"{self.type_name} needs a cloud, and none is configured",
                                    transient=False)
        return self.clients.cloud()

    def resolve(self, constraint: str, value: Any) -> str | None:
        """The id of what ``value`` (name or id) designates under custom ``constraint``
        (e.g. ``"neutron.network"``); ``None`` for an empty value."""
        if value in (None, ""):
            return None
        key = (constraint, str(value))
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = constraints.resolve(self.cloud(), constraint, value)
        return found

    # ---- validation ------------------------------------------------------------------------
    @classmethod
    def validation_schema(cls, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The properties schema, with ``allowed_values`` on a *list* property applied to each
        item: Heat's ``AllowedValues`` accepts a list whose every element is allowed (e.g.
        ServerGroup ``policies: [affinity]``); plus the :attr:`hidden_properties` (the visible
        property is then not required). The declared schema is unchanged."""
        out = dict(super().validation_schema(values) or cls.properties_schema)
        for name, entry in cls.properties_schema.items():
            allowed = [c for c in entry.get("constraints") or () if "allowed_values" in c]
            if entry.get("type") == "list" and allowed:
                item = dict((entry.get("schema") or {}).get("*") or {"type": "any"})
                item["constraints"] = [*(item.get("constraints") or ()), *allowed]
                for key in ("required", "update_allowed", "immutable"):
                    item.setdefault(key, False)
                item.setdefault("description", "")
                rest = [c for c in entry["constraints"] if "allowed_values" not in c]
                out[name] = {**entry, "constraints": rest, "schema": {"*": item}}
        for name, entry in cls.unlisted_properties.items():
            out.setdefault(name, dict(entry))
        for hidden, visible in cls.hidden_properties.items():
            if visible not in cls.properties_schema:
                continue
            out[hidden] = {**cls.properties_schema[visible], "required": False}
            if values.get(hidden) is not None:
                out[visible] = {**out[visible], "required": False}
        return out

    def validate(self) -> None:
        """Check every cloud-backed custom constraint of the given properties. Without a client
        factory (static validation at stack create) there is nothing to ask: skipped, and the
        engine's create-time validation, which has one, does the checks.

        :raises errors.ValidationError: Heat's ``Property error: ...: Error validating value``.
        """
        if self.clients is None:
            return
        self.check_constraints()

    def check_constraints(self) -> None:
        """:meth:`validate`'s checks of the cloud-backed custom constraints alone, of the
        properties given (the stack's validation gives the known ones of a resource whose
        other properties wait for the stack's resources, as Heat checks each value it knows).

        :raises errors.ValidationError: as :meth:`validate`.
        :raises errors.CloudError: the cloud could not be asked."""
        for name, value in self.properties.items():
            schema = self.properties_schema.get(name)
            if schema is not None and value is not None:
                self._validate_value(schema, value, errors.format_path(
                    ("resources", self.name, "properties", name)))

    def _validate_value(self, schema: Mapping[str, Any], value: Any, path: str) -> None:
        for c in schema.get("constraints") or ():
            name = c.get("custom_constraint")
            if name and constraints.is_cloud_backed(name):
                key = (name, json.dumps(value, sort_keys=True, default=str))
                cache = self.constraint_cache
                if cache is not None and key in cache:
                    reason = cache[key]
                else:
                    reason = self._check(name, value)
                    if cache is not None:
                        cache[key] = reason
                if reason is not None:
                    raise errors.ValidationError(constraints.error_message(path, value, reason))
        sub = schema.get("schema") or {}
        if schema.get("type") == "list" and "*" in sub and isinstance(value, list):
            for i, item in enumerate(value):
                if item is not None:
                    self._validate_value(sub["*"], item, f"{path}[{i}]")
        elif schema.get("type") == "map" and sub and isinstance(value, Mapping):
            for key, item in value.items():
                if key in sub and item is not None:
                    self._validate_value(sub[key], item, f"{path}.{key}")

    def _check(self, name: str, value: Any) -> str | None:
        """:func:`app.clients.constraints.check`; a value found is remembered for
        :meth:`resolve` in the same step (validation then ``handle_create`` looked it up twice)."""
        if isinstance(value, (dict, list)) or value in (None, ""):
            return constraints.check(self.cloud(), name, value)
        key = (name, str(value))
        if key in self._resolved:
            return None
        try:
            self._resolved[key] = constraints.resolve(self.cloud(), name, value)
        except errors.CloudError as exc:
            if exc.transient:
                raise
            return exc.message
        return None

    # ---- update ----------------------------------------------------------------------------
    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """Types override this for the properties they update in place. This default refuses
        a change it does not know how to make (never a silent no-op on a cloud object).

        :raises UpdateReplace: a changed property is not ``update_allowed``.
        :raises NotSupported: an ``update_allowed`` change this type does not implement yet.
        """
        self.check_replace(changed, new_properties)
        if changed:
            raise NotSupported(f"Update to properties {', '.join(sorted(changed))} of "
                               f"{self.name} ({self.type_name})")
        self.properties = self.translate(new_properties)
        return None

    # ---- show and attributes ---------------------------------------------------------------
    def _fetch(self) -> Any:
        """The SDK object for ``resource_id``; raise ``CloudError`` (404 when gone)."""
        raise NotImplementedError

    #: This type's objects as :mod:`app.clients.status` reads them (``status.SERVER``...):
    #: when set, polls (:meth:`polled`, :meth:`_gone`) read the API's JSON, not an SDK object.
    status_kind: ClassVar[status.Kind | None] = None

    def polled(self) -> dict[str, Any] | None:
        """The object's current JSON for a poll (fresh, never the cached ``show``), kept as
        :attr:`last_polled`; ``None`` when it is gone (404) or has no physical id. Without a
        :attr:`status_kind`: ``show`` refreshed. :raises errors.CloudError: other errors."""
        if self.status_kind is None:
            self.refresh()
            self.last_polled = self.show_resource()
        else:
            self.last_polled = status.poll(self.cloud(), self.status_kind, self.resource_id)
        return self.last_polled

    def delete_by_id(self) -> None:
        """:func:`app.clients.status.delete` of ``resource_id`` (a 404 ignored)."""
        assert self.status_kind is not None
        status.delete(self.cloud(), self.status_kind, str(self.resource_id))

    #: statuses in which a FAILED resource's object is beyond repair (Heat's overrides)
    broken_statuses: ClassVar[frozenset[str]] = frozenset()

    def needs_replace_failed(self) -> bool:
        """Heat's ``needs_replace_failed`` for types that override it (Nova servers, Cinder
        volumes, Neutron resources: those with ``broken_statuses``): replace only when there is
        no physical object, it is gone, or its status is one of ``broken_statuses``; otherwise
        the failed resource is updated in place. Other types: always replaced (Heat's default).
        A cloud error while looking counts as "replace", as Heat's."""
        if not self.broken_statuses:
            return True
        if not self.resource_id:
            return True
        try:
            shown = self.show_resource()
        except errors.CloudError:
            return True
        if shown is None:
            return True
        return str(shown.get("status", "")).upper() in self.broken_statuses

    def show_resource(self) -> dict[str, Any] | None:
        """The cloud's view of the object as plain JSON; ``None`` when there is none."""
        if self._shown is None and self.resource_id:
            try:
                self._shown = plain(self._fetch())
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
                return None
        return self._shown

    def refresh(self) -> None:
        """Forget the cached ``show``."""
        self._shown = None

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        if shown is None:
            return None
        return shown.get(self.attribute_keys.get(name, name))

    # ---- delete ----------------------------------------------------------------------------
    def _delete(self) -> None:
        """Ask the cloud to delete ``resource_id`` (may raise ``CloudError``)."""
        raise NotImplementedError

    def handle_delete(self) -> dict[str, Any] | None:
        """Start the delete. ``None`` (done) without a physical id or when it is already gone;
        else a handle ``{"conflicts": n, "pending": bool}`` for :meth:`check_delete_complete`.

        :raises errors.CloudError: any other cloud error (transient ones after retries).
        """
        if not self.resource_id:
            return None
        handle: dict[str, Any] = {"conflicts": 0, "pending": False}
        return None if self._try_delete(handle) else handle

    def _try_delete(self, handle: dict[str, Any]) -> bool:
        """Delete once; ``True`` when the object is already gone."""
        try:
            self._delete()
        except errors.CloudError as exc:
            if is_not_found(exc):
                return True
            if is_conflict(exc):
                handle["conflicts"] = int(handle.get("conflicts", 0)) + 1
                handle["pending"] = True
                if handle["conflicts"] > CONFLICT_POLLS:
                    raise
                return False
            raise
        handle["pending"] = False
        return False

    def check_delete_complete(self, handle: Any) -> bool:
        """``True`` once the object is gone; a delete that met a 409 is tried again first."""
        if handle is None:
            return True
        if isinstance(handle, dict) and handle.get("pending"):
            if self._try_delete(handle):
                return True
            if handle.get("pending"):
                return False
        return self._gone()

    def _gone(self) -> bool:
        if self.status_kind is not None:
            return self.polled() is None
        try:
            self._fetch()
        except errors.CloudError as exc:
            if is_not_found(exc):
                return True
            raise
        return False

    # ---- helpers ---------------------------------------------------------------------------
    def name_or_physical(self, prop: str = "name") -> str:
        """The ``name`` property, or Heat's physical resource name when it is not given."""
        value = self.properties.get(prop)
        return str(value) if value else self.physical_resource_name()

    def value_specs(self, attrs: dict[str, Any], prop: str = "value_specs") -> dict[str, Any]:
        """``attrs`` with the ``value_specs`` map merged in (Heat's ``prepare_properties``)."""
        specs = self.properties.get(prop) or {}
        return {**attrs, **specs}

