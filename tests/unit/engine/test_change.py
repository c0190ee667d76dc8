"""The change classifier (app.engine.change), pure: each verdict and reason by Heat's rules
(``Resource.update_convergence``, ``Resource.update``, ``_needs_update``,
``update_template_diff_properties``), and that each fact is asked only when its rule needs it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from app.engine.change import (
    REFUSED,
    Change,
    PropDiff,
    Stored,
    Verdict,
    Wanted,
    Why,
    classify,
    settled_before_diff,
)

OLD = Stored(impl="OS::Heat::TestResource", kind="", created=True, failed=False,
             check_failed=False, child=False, external_id=None, properties={"value": "a"})


def wanted(properties: Any = None, **kw: Any) -> Wanted:
    """The new definition of ``r``; ``properties``: a mapping (default: the stored ones) or
    the resolving function itself."""
    given = dict(OLD.properties or {}) if properties is None else properties
    resolve = given if callable(given) else (lambda: dict(given))
    fields: dict[str, Any] = {"name": "r", "type": "OS::Heat::TestResource",
                              "impl": "OS::Heat::TestResource", "kind": "", "external_id": None,
                              "properties": resolve, **kw}
    return Wanted(**fields)


def unresolvable() -> Mapping[str, Any]:
    raise AssertionError("resolved although the rule does not need the properties")


class Never:
    """A plugin that must not be asked."""

    def needs_replace_failed(self) -> bool:
        raise AssertionError("needs_replace_failed asked")

    def always_updates(self, new: Mapping[str, Any]) -> bool:
        raise AssertionError("always_updates asked")

    def diff(self, new: Mapping[str, Any]) -> PropDiff:
        raise AssertionError("diff asked")


class Says(Never):
    """A plugin with given answers (None: must not be asked)."""

    def __init__(self, replace_failed: bool | None = None, always: bool | None = None,
                 diff: PropDiff | None = None) -> None:
        self.replace_failed, self.always, self.answer = replace_failed, always, diff
        self.diffed: list[Mapping[str, Any]] = []

    def needs_replace_failed(self) -> bool:
        if self.replace_failed is None:
            return super().needs_replace_failed()
        return self.replace_failed

    def always_updates(self, new: Mapping[str, Any]) -> bool:
        return super().always_updates(new) if self.always is None else self.always

    def diff(self, new: Mapping[str, Any]) -> PropDiff:
        if self.answer is None:
            return super().diff(new)
        self.diffed.append(new)
        return self.answer


def test_added_and_removed():
    assert classify(None, wanted(), Never()) == Verdict(Change.ADD, Why.ADDED)
    assert classify(OLD, None, Never()) == Verdict(Change.REMOVE, Why.REMOVED)


def test_a_never_created_resource_is_replaced_whatever_its_definition():
    """Heat's ``_needs_update``: UpdateReplace for INIT_COMPLETE and DELETE_COMPLETE (the
    update creates it), even with another type or external_id, nothing else asked."""
    never = OLD._replace(created=False, failed=True, properties=None)
    other = wanted(impl="OS::Heat::None", external_id="x", properties=unresolvable)
    assert classify(never, other, Never()) == Verdict(Change.REPLACE, Why.NOT_CREATED)


def test_another_built_in_type_or_nested_kind_replaces():
    """Heat's ``update_convergence``: another class to instantiate → UpdateReplace."""
    assert classify(OLD, wanted(impl="OS::Heat::None", properties=unresolvable), Never()) \
        == Verdict(Change.REPLACE, Why.TYPE)
    assert classify(OLD, wanted(kind="template", properties=unresolvable), Never()).why \
        is Why.TYPE
    # a registry alias mapping a new name to the same built-in type is no change of type
    alias = wanted(type="My::Alias")
    assert classify(OLD, alias, Says(always=False)).change is Change.UNCHANGED


def test_external_id_changed_is_refused_and_kept_is_left_as_it_is():
    """Heat's ``Resource.update``: a different external_id is NotSupported ("Update to property
    external_id of r (T)"); the same one skips the update, failed or not, properties unread."""
    added = classify(OLD, wanted(external_id="e1", properties=unresolvable), Never())
    assert added == Verdict(Change.UPDATE, Why.EXTERNAL_ID_CHANGED, ("external_id",),
                            "Update to property external_id of r (OS::Heat::TestResource)")
    adopted = OLD._replace(external_id="e1", failed=True)
    assert classify(adopted, wanted(properties={"value": "b"}), Never()).why \
        is Why.EXTERNAL_ID_CHANGED
    assert classify(adopted, wanted(external_id="e2", properties=unresolvable), Never()).why \
        is Why.EXTERNAL_ID_CHANGED
    assert classify(adopted, wanted(external_id="e1", properties=unresolvable), Never()) \
        == Verdict(Change.UNCHANGED, Why.EXTERNAL_ID_KEPT)
    assert Why.EXTERNAL_ID_CHANGED in REFUSED and Why.EXTERNAL_ID_KEPT not in REFUSED


def test_a_failed_resource_is_replaced_on_a_check_failure_or_when_its_plugin_says_so():
    """Heat's ``_needs_update``: FAILED and (CHECK with ``always_replace_on_check_failed``, or
    ``needs_replace_failed``) → UpdateReplace; else its properties decide."""
    failed = OLD._replace(failed=True)
    checked = failed._replace(check_failed=True)
    assert classify(checked, wanted(properties=unresolvable), Never()) \
        == Verdict(Change.REPLACE, Why.CHECK_FAILED)
    assert classify(failed, wanted(properties=unresolvable), Says(replace_failed=True)) \
        == Verdict(Change.REPLACE, Why.FAILED)
    healthy = classify(failed, wanted(), Says(replace_failed=False, always=False))
    assert healthy == Verdict(Change.UNCHANGED, Why.SAME)  # the step marks it COMPLETE


def test_an_existing_nested_stack_is_always_updated_failed_or_not():
    """Heat's ``StackResource``: the child stack is updated, its members decide."""
    child = OLD._replace(kind="template", child=True)
    new = wanted(kind="template", properties=unresolvable)
    assert classify(child, new, Never()) == Verdict(Change.UPDATE, Why.NESTED)
    assert classify(child._replace(failed=True), new, Never()).why is Why.NESTED


def test_the_same_properties_are_unchanged_unless_the_plugin_always_updates():
    assert classify(OLD, wanted(), Says(always=False)) == Verdict(Change.UNCHANGED, Why.SAME)
    plugin = Says(always=True, diff=PropDiff(()))
    assert classify(OLD, wanted(), plugin) == Verdict(Change.UPDATE, Why.ALWAYS_UPDATE)
    assert plugin.diffed == [{"value": "a"}]
    # a plugin that replaces on every update (Heat's UpdateWaitConditionHandle)
    every = Says(always=True, diff=PropDiff((), replace=True))
    assert classify(OLD, wanted(), every) == Verdict(Change.REPLACE, Why.PLUGIN_RULE)
    # no stored properties compare as none
    assert classify(OLD._replace(properties=None), wanted(properties={}),
                    Says(always=False)).change is Change.UNCHANGED


def test_changed_properties_go_to_the_plugins_diff():
    """Heat's ``update_template_diff_properties``: immutable → NotSupported, the plugin's own
    rule (``needs_replace_with_prop_diff``) or a property not update_allowed → UpdateReplace,
    else in place; the verdict names the properties."""
    new = wanted(properties={"value": "b", "extra": 1})
    in_place = Says(diff=PropDiff(("extra", "value")))
    assert classify(OLD, new, in_place) == \
        Verdict(Change.UPDATE, Why.IN_PLACE, ("extra", "value"))
    assert in_place.diffed == [{"value": "b", "extra": 1}]
    fixed = Says(diff=PropDiff(("extra", "value"), replace=True, not_update_allowed=("extra",)))
    assert classify(OLD, new, fixed) == Verdict(Change.REPLACE, Why.NOT_UPDATE_ALLOWED,
                                                ("extra",))
    rule = Says(diff=PropDiff(("value",), replace=True))
    assert classify(OLD, new, rule) == Verdict(Change.REPLACE, Why.PLUGIN_RULE, ("value",))
    feature = "Update to properties extra of r (OS::Heat::TestResource)"
    frozen = Says(diff=PropDiff(("extra", "value"), refusal=feature))
    assert classify(OLD, new, frozen) == Verdict(Change.UPDATE, Why.IMMUTABLE,
                                                 ("extra", "value"), feature)
    assert Why.IMMUTABLE in REFUSED


def test_settled_before_diff_stops_where_only_the_plugins_diff_can_tell():
    """What the settling at traversal start uses: a verdict, or the new properties."""
    assert settled_before_diff(OLD, wanted(), Says(always=False)) == \
        Verdict(Change.UNCHANGED, Why.SAME)
    assert settled_before_diff(OLD, wanted(properties={"value": "b"}), Never()) == \
        {"value": "b"}


def test_the_properties_are_resolved_once_and_their_errors_go_through():
    calls: list[int] = []

    def resolve() -> Mapping[str, Any]:
        calls.append(1)
        return {"value": "b"}
    classify(OLD, wanted(properties=resolve), Says(diff=PropDiff(("value",))))
    assert calls == [1]

    def broken() -> Mapping[str, Any]:
        raise ValueError("no such parameter")
    with pytest.raises(ValueError, match="no such parameter"):
        classify(OLD, wanted(properties=broken), Never())
