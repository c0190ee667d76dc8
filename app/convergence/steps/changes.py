"""What the change classifier (:mod:`app.engine.change`) is told about a resource: a stored row
as :class:`~app.engine.change.Stored`, a new definition as :class:`~app.engine.change.Wanted`,
and the plugin's hooks as a :class:`~app.engine.change.Plugin` (:class:`PluginSays`), shared by
the update step, the settling of unchanged nodes and the update preview.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app import errors
from app.convergence import plugins
from app.convergence.nested.groups import kind
from app.convergence.store.rows import EXTERNAL_ID, ResourceRow
from app.engine import change
from app.engine.states import Action, Status
from app.resource_types import base


class Unresolved(errors.StokerError):
    """The new properties could not be resolved or validated (``cause``: why)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class Invalid(errors.StokerError):
    """The plugin's own checks refused the new properties before its diff (``cause``)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def created(r: ResourceRow | Any) -> bool:
    """Whether row ``r`` (a :class:`ResourceRow` or a ``Resource``) has (or had, FAILED) a
    physical resource: not INIT, not DELETE_COMPLETE, something stored."""
    return _created(r.action, r.status, r.properties_data, r.physical_resource_id)


def _created(action: str, status: str, props: Any, physical_id: str | None) -> bool:
    return not (action == Action.INIT or (action == Action.DELETE and status == Status.COMPLETE)
                or (props is None and not physical_id))


def stored(r: ResourceRow | Any) -> change.Stored:
    """Row ``r``'s facts (a :class:`ResourceRow` or a ``Resource``) for the classifier; each
    column read once (an ORM attribute costs a descriptor call)."""
    data = r.rsrc_data or {}
    action, status, props, physical_id = (r.action, r.status, r.properties_data,
                                          r.physical_resource_id)
    nested = str(data.get("nested") or "")
    failed = status == Status.FAILED
    return change.Stored(str(data.get("_impl") or r.type), nested,
                         _created(action, status, props, physical_id), failed,
                         failed and action == Action.CHECK, bool(nested and physical_id),
                         data.get(EXTERNAL_ID), props)


def wanted(name: str, rdef: Any, resolve: Callable[[], Mapping[str, Any]]) -> change.Wanted:
    """Definition ``rdef`` of resource ``name``'s facts; ``resolve`` gives its new properties
    (raising :class:`Unresolved`)."""
    return change.Wanted(
        name=name, type=rdef.type, impl=getattr(rdef, "implementation", rdef.type),
        kind=kind(rdef) or "",
        external_id=None if rdef.external_id is None else str(rdef.external_id),
        properties=resolve)


def memo(resolve: Callable[[], Mapping[str, Any]]) -> Callable[[], dict[str, Any]]:
    """``resolve`` called once (its errors raised as :class:`Unresolved`, each time)."""
    box: list[dict[str, Any]] = []

    def once() -> dict[str, Any]:
        if not box:
            try:
                box.append(dict(resolve()))
            except Exception as exc:
                raise Unresolved(exc) from exc
        return box[0]
    return once


class PluginSays:
    """A plugin's hooks (:class:`app.engine.change.Plugin`). ``build(properties)`` makes the
    plugin (or nested-stack driver) with given properties; ``old``: the stored properties;
    ``check(new)``: run before the diff (the update step validates there, as Heat's update
    runs ``Properties.validate`` before ``update_template_diff_properties``; errors are raised
    as :class:`Invalid`). After :meth:`diff`, :attr:`changed` holds the plugin's diff
    ``{name: new value}`` for ``handle_update``."""

    def __init__(self, build: Callable[[dict[str, Any] | None], Any],
                 old: Mapping[str, Any] | None,
                 check: Callable[[Mapping[str, Any]], None] | None = None) -> None:
        self.build, self.old_properties, self.check = build, old, check
        self._old: Any = None
        self.changed: dict[str, Any] = {}

    def old(self) -> Any:
        """The plugin with the stored properties (built once)."""
        if self._old is None:
            old = self.old_properties
            self._old = self.build(None if old is None else dict(old))
        return self._old

    def needs_replace_failed(self) -> bool:
        try:
            return bool(self.old().needs_replace_failed())
        except Exception:  # the cloud cannot be asked: replace, as Heat
            return True

    def always_updates(self, new: Mapping[str, Any]) -> bool:
        return plugins.always_updates(self.build(dict(new)))

    def diff(self, new: Mapping[str, Any]) -> change.PropDiff:
        if self.check is not None:
            try:
                self.check(new)
            except Exception as exc:
                raise Invalid(exc) from exc
        plugin = self.old()
        before = dict(self.old_properties or {})
        names = tuple(sorted(k for k in set(before) | set(new) if before.get(k) != new.get(k)))
        if not hasattr(plugin, "update_diff"):  # a nested-stack driver: its child decides
            self.changed = {k: new.get(k) for k in names}
            return change.PropDiff(names)
        try:
            self.changed = dict(plugin.update_diff(new))
        except base.NotSupported as exc:
            return change.PropDiff(names, refusal=str(exc.data.get("feature") or exc))
        except base.UpdateReplace:
            rule = getattr(plugin, "needs_replace_with_prop_diff", None)
            if names and callable(rule) and rule(set(names), new):  # the plugin's own rule
                return change.PropDiff(names, replace=True)
            schema = getattr(plugin, "_update_schema",
                             lambda: getattr(plugin, "properties_schema", {}))()
            fixed = tuple(k for k in names if not (schema.get(k) or {}).get("update_allowed"))
            return change.PropDiff(names, replace=True, not_update_allowed=fixed)
        return change.PropDiff(tuple(sorted(self.changed)) or names)
