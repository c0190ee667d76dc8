"""The update's verdicts on an existing resource (app.engine.change), as Heat's convergence
update decides them; shared by the update step and the preview."""
from __future__ import annotations

from app.engine.change import Change, Existing, by_diff, by_properties, replaced_as_is

OK = Existing(same_kind=True, failed=False, check_failed=False, nested=False)


def never() -> bool:
    raise AssertionError("asked although the rule does not need it")


def test_a_type_change_or_a_check_failure_replaces_without_asking_the_plugin():
    assert replaced_as_is(Existing(False, False, False, False), never)
    assert replaced_as_is(Existing(True, True, True, False), never)
    assert not replaced_as_is(OK, never)


def test_a_failed_resource_is_replaced_when_its_plugin_says_so_a_nested_stack_never():
    failed = Existing(same_kind=True, failed=True, check_failed=False, nested=False)
    assert replaced_as_is(failed, lambda: True)
    assert not replaced_as_is(failed, lambda: False)
    assert not replaced_as_is(Existing(True, True, True, nested=True), never)


def test_properties_then_the_plugins_diff_decide():
    assert by_properties(OK, True, lambda: False) is Change.UNCHANGED
    assert by_properties(OK, True, lambda: True) is Change.UPDATE      # always_update
    assert by_properties(OK, False, never) is Change.UPDATE
    nested = Existing(True, False, False, nested=True)
    assert by_properties(nested, True, never) is Change.UPDATE          # members decide
    assert by_diff(nested, never) is Change.UPDATE
    assert by_diff(OK, lambda: True) is Change.REPLACE
    assert by_diff(OK, lambda: False) is Change.UPDATE
