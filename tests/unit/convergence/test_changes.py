"""What the change classifier is told by real plugins (app.convergence.steps.changes.PluginSays):
Heat's ``update_template_diff_properties`` rules and the plugins' own, as verdicts with their
reasons. No database, no cloud."""
from __future__ import annotations

from typing import Any

from app.convergence.steps import changes
from app.engine.change import Change, Stored, Verdict, Why, classify
from app.resource_types.aws_signals import UpdateWaitConditionHandle
from app.resource_types.heat import RandomString, TestResource
from app.resource_types.mistral import ExternalResource
from tests.fixtures.engine import Frozen


def verdict(cls: Any, old: dict[str, Any], new: dict[str, Any]) -> tuple[Verdict, Any]:
    """The verdict on a created, COMPLETE resource ``r`` of type ``cls`` whose properties go
    from ``old`` to ``new``; and the plugin's say (its diff)."""
    says = changes.PluginSays(lambda p: cls("r", p), old)
    stored = Stored(impl=cls.type_name, kind="", created=True, failed=False,
                    check_failed=False, child=False, external_id=None, properties=old)
    wanted = changes.wanted("r", type("Def", (), {"type": cls.type_name, "external_id": None,
                                                  "properties": {}})(), lambda: new)
    return classify(stored, wanted, says), says


def test_update_allowed_properties_change_in_place_with_the_plugins_diff():
    got, says = verdict(TestResource, {"value": "a"}, {"value": "b"})
    assert got == Verdict(Change.UPDATE, Why.IN_PLACE, ("value",))
    assert says.changed == {"value": "b"}  # what handle_update is given


def test_a_property_not_update_allowed_replaces_and_is_named():
    got, _ = verdict(RandomString, {"length": 8}, {"length": 9})
    assert got == Verdict(Change.REPLACE, Why.NOT_UPDATE_ALLOWED, ("length",))
    got, _ = verdict(TestResource, {"value": "a", "update_replace_value": "x"},
                     {"value": "b", "update_replace_value": "y"})
    assert got == Verdict(Change.REPLACE, Why.NOT_UPDATE_ALLOWED, ("update_replace_value",))


def test_the_plugins_own_rule_replaces():
    """TestResource's ``needs_replace_with_prop_diff``: a changed value with update_replace."""
    got, _ = verdict(TestResource, {"value": "a"}, {"value": "b", "update_replace": True})
    assert got == Verdict(Change.REPLACE, Why.PLUGIN_RULE, ("update_replace", "value"))


def test_an_immutable_property_is_refused_with_heats_message():
    got, _ = verdict(Frozen, {"size": 1}, {"size": 2})
    assert got == Verdict(Change.UPDATE, Why.IMMUTABLE, ("size",),
                          "Update to properties size of r (Test::Frozen)")


def test_plugins_that_update_or_replace_with_nothing_changed():
    """Heat's ``_needs_update`` overrides: an ExternalResource with ``always_update`` is
    updated on every stack update; an UpdateWaitConditionHandle is replaced on every one."""
    props = {"actions": {"update": {"workflow": "w"}}, "always_update": True}
    got, _ = verdict(ExternalResource, props, props)
    assert got == Verdict(Change.UPDATE, Why.ALWAYS_UPDATE)
    quiet = {**props, "always_update": False}
    assert verdict(ExternalResource, quiet, quiet)[0] == Verdict(Change.UNCHANGED, Why.SAME)
    assert verdict(UpdateWaitConditionHandle, {}, {})[0] == \
        Verdict(Change.REPLACE, Why.PLUGIN_RULE)
