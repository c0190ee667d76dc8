"""What an update does to a resource that exists (pure): the rules the update's forward step
and the update preview share, so that the preview lists what the step does.

As Heat's convergence update (``Resource.update`` / ``_needs_update`` /
``_update_properties_changed``; ``StackUpdate.preview`` for the preview): a resource whose
built-in type or nested kind changed is replaced; a FAILED one that is not an existing nested
stack is replaced when it failed a CHECK (``always_replace_on_check_failed``) or its plugin
says its physical resource needs it (``needs_replace_failed``); otherwise its new properties
decide: the same and no plugin that always updates → unchanged; an existing nested stack
→ updated (its members decide); different → the plugin's diff (``UpdateReplace`` → replaced,
else updated in place). The facts that need the cloud or a plugin come as callables, asked
only when the rule reaches them.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass


class Change(enum.StrEnum):
    """An update's verdict on a resource that exists."""
    UNCHANGED = "unchanged"
    UPDATE = "update"
    REPLACE = "replace"


@dataclass(frozen=True)
class Existing:
    """What the stored row says. ``same_kind``: the same built-in type and nested kind as the
    new definition; ``failed``: status FAILED; ``check_failed``: CHECK_FAILED; ``nested``: a
    nested stack that exists (a child stack id)."""
    same_kind: bool
    failed: bool
    check_failed: bool
    nested: bool


def replaced_as_is(row: Existing, needs_replace_failed: Callable[[], bool]) -> bool:
    """Whether the update replaces the resource whatever its new properties are (see the
    module doc). ``needs_replace_failed`` (the plugin's answer; True when the cloud cannot
    be asked) is called only for a FAILED resource that is no nested stack."""
    if not row.same_kind:
        return True
    return row.failed and not row.nested and (row.check_failed or needs_replace_failed())


def by_properties(row: Existing, same: bool, always_updates: Callable[[], bool]) -> Change:
    """UNCHANGED or UPDATE for a resource not :func:`replaced_as_is`: ``same`` — its new
    properties equal the stored ones; ``always_updates`` — the plugin asks for an update
    even then (asked only when ``same``). UPDATE may still become REPLACE: the plugin's diff
    (:func:`by_diff`) tells, as the step learns when it starts the update."""
    if row.nested or not same or always_updates():
        return Change.UPDATE
    return Change.UNCHANGED


def by_diff(row: Existing, replaces: Callable[[], bool]) -> Change:
    """UPDATE or REPLACE for a resource :func:`by_properties` updates: an existing nested
    stack is updated (Heat's ``StackResource`` always updates its child); else ``replaces``
    — whether the plugin's diff raises ``UpdateReplace``."""
    if row.nested:
        return Change.UPDATE
    return Change.REPLACE if replaces() else Change.UPDATE
