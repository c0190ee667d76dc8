"""What an update does to one resource (pure): the verdict (ADD, REMOVE, REPLACE, UPDATE,
UNCHANGED or refused) and its reason, for the update's forward step, the settling of unchanged
nodes at traversal start and the update preview, by Heat's rules (``Resource.update_convergence``,
``Resource.update``, ``_needs_update``, ``update_template_diff_properties``) in Heat's order. The
plugin's facts are asked only when their rule is reached. O(properties) per resource.

More in docs/code/engine.md (app.engine.change).
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol


class Change(enum.StrEnum):
    """An update's verdict on a resource."""
    UNCHANGED = "unchanged"
    UPDATE = "update"
    REPLACE = "replace"
    ADD = "add"
    REMOVE = "remove"


class Why(enum.StrEnum):
    """The rule that gave the verdict."""
    ADDED = "only in the new template"
    REMOVED = "not in the new template"
    NOT_CREATED = "never created"
    TYPE = "type changed"
    EXTERNAL_ID_CHANGED = "external_id changed"
    EXTERNAL_ID_KEPT = "external resource"
    CHECK_FAILED = "CHECK failed"
    FAILED = "failed and the plugin needs it replaced"
    NESTED = "nested stack: its members decide"
    SAME = "properties unchanged"
    ALWAYS_UPDATE = "the plugin always updates"
    IN_PLACE = "every changed property is update_allowed"
    NOT_UPDATE_ALLOWED = "a changed property is not update_allowed"
    PLUGIN_RULE = "the plugin's rule replaces"
    IMMUTABLE = "a changed property is immutable"


#: the reasons that are Heat's ``NotSupported`` (the update fails, the preview is a 400)
REFUSED = frozenset({Why.EXTERNAL_ID_CHANGED, Why.IMMUTABLE})


@dataclass(frozen=True)
class Verdict:
    """``change`` for ``why``; ``properties``: the names the reason is about (sorted);
    ``refusal``: Heat's ``NotSupported`` feature text when ``why`` is in :data:`REFUSED`
    (the update fails with it: ``"<refusal> is not supported."``)."""
    change: Change
    why: Why
    properties: tuple[str, ...] = ()
    refusal: str | None = None


class Stored(NamedTuple):
    """The resource as stored (a tuple: one is made per node of every update). ``impl``: its
    built-in type; ``kind``: its nested kind ("" for none); ``created``: a physical resource
    (or child stack) was made and not deleted;
    ``failed`` / ``check_failed``: status FAILED / CHECK_FAILED; ``child``: a nested stack
    that exists; ``properties``: the stored, resolved properties."""
    impl: str
    kind: str
    created: bool
    failed: bool
    check_failed: bool
    child: bool
    external_id: str | None
    properties: Mapping[str, Any] | None


class Wanted(NamedTuple):
    """The new definition (a tuple, as :class:`Stored`). ``properties``: resolves and
    validates its properties (called once, at rule 7; may raise the resolution's errors,
    which :func:`classify` lets through)."""
    name: str
    type: str
    impl: str
    kind: str
    external_id: str | None
    properties: Callable[[], Mapping[str, Any]]


#: the verdicts that name no property, made once
ADDED = Verdict(Change.ADD, Why.ADDED)
REMOVED = Verdict(Change.REMOVE, Why.REMOVED)
NOT_CREATED = Verdict(Change.REPLACE, Why.NOT_CREATED)
TYPE_CHANGED = Verdict(Change.REPLACE, Why.TYPE)
EXTERNAL = Verdict(Change.UNCHANGED, Why.EXTERNAL_ID_KEPT)
CHECK_FAILED = Verdict(Change.REPLACE, Why.CHECK_FAILED)
FAILED = Verdict(Change.REPLACE, Why.FAILED)
NESTED = Verdict(Change.UPDATE, Why.NESTED)
SAME = Verdict(Change.UNCHANGED, Why.SAME)


@dataclass(frozen=True)
class PropDiff:
    """The plugin's diff of the stored properties to new ones (Heat's
    ``update_template_diff_properties`` with the plugin's overrides). ``changed``: the names
    whose values differ; ``replace``: it raised ``UpdateReplace``; ``not_update_allowed``: the
    changed names its schema does not let change in place; ``refusal``: the ``NotSupported``
    feature it raised (an ``immutable`` property changed)."""
    changed: tuple[str, ...]
    replace: bool = False
    not_update_allowed: tuple[str, ...] = ()
    refusal: str | None = None


class Plugin(Protocol):
    """What the resource's plugin says (Heat's hooks), asked lazily."""

    def needs_replace_failed(self) -> bool:
        """Heat's ``needs_replace_failed`` (True when the cloud cannot be asked)."""

    def always_updates(self, new: Mapping[str, Any]) -> bool:
        """Whether it updates even with unchanged properties ``new`` (Heat's ``_needs_update``
        overridden to True: an ExternalResource's ``always_update``, a nested stack)."""

    def diff(self, new: Mapping[str, Any]) -> PropDiff:
        """Its diff from the stored properties to ``new``."""


def classify(old: Stored | None, new: Wanted | None, plugin: Plugin) -> Verdict:
    """The update's verdict on one resource by the module's rules. ``old`` None: not in the
    current stack; ``new`` None: not in the new template (not both).

    :raises: what ``new.properties()`` and the plugin raise."""
    early = settled_before_diff(old, new, plugin)
    if isinstance(early, Verdict):
        return early
    assert old is not None and new is not None
    diff = plugin.diff(early)
    if diff.refusal is not None:
        return Verdict(Change.UPDATE, Why.IMMUTABLE, diff.changed, diff.refusal)
    if diff.replace and diff.not_update_allowed:
        return Verdict(Change.REPLACE, Why.NOT_UPDATE_ALLOWED, diff.not_update_allowed)
    if diff.replace:
        return Verdict(Change.REPLACE, Why.PLUGIN_RULE, diff.changed)
    return Verdict(Change.UPDATE, Why.IN_PLACE if diff.changed else Why.ALWAYS_UPDATE,
                   diff.changed)


def settled_before_diff(old: Stored | None, new: Wanted | None,
                        plugin: Plugin) -> Verdict | Mapping[str, Any]:
    """Rules 1-7 up to the plugin's diff: the verdict, or the resolved new properties when
    only the plugin's diff can tell (UPDATE or REPLACE). :func:`classify` goes on from there;
    the settling at traversal start needs no more (it settles UNCHANGED only)."""
    if old is None:
        assert new is not None
        return ADDED
    if new is None:
        return REMOVED
    if not old.created:
        return NOT_CREATED
    if old.impl != new.impl or old.kind != new.kind:
        return TYPE_CHANGED
    if old.external_id != new.external_id:
        return Verdict(Change.UPDATE, Why.EXTERNAL_ID_CHANGED, ("external_id",),
                       f"Update to property external_id of {new.name} ({new.type})")
    if new.external_id is not None:
        return EXTERNAL
    if old.failed and not old.child:
        if old.check_failed:
            return CHECK_FAILED
        if plugin.needs_replace_failed():
            return FAILED
    if old.child:
        return NESTED
    props = new.properties()
    if props == (old.properties or {}) and not plugin.always_updates(props):
        return SAME
    return props
