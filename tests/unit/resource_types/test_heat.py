"""OS::Heat::None, Value, RandomString and TestResource, against Heat 27's behaviour."""
from __future__ import annotations

import json
import re
import string
from typing import Any

import pytest

from app import errors
from app.resource_types import base, failures
from app.resource_types.base import UpdateReplace
from app.resource_types.heat import SEQUENCES, NoneResource, RandomString, TestResource, Value, generate

from .helpers import FakeClock, Identity

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PHYS = re.compile(r"vstack-{}-[a-z0-9]{{12}}")

RS_DEFAULTS: dict[str, Any] = {"length": 32, "character_classes": [{"class": "lettersdigits",
                                                                      "min": 1}]}
TR_DEFAULTS: dict[str, Any] = {"value": "test_string", "fail": False, "update_replace": False,
                               "wait_secs": 0, "attr_wait_secs": 0, "constraint_prop_secs": 0,
                               "client_name": "", "entity_name": ""}


def run_create(res: base.Resource) -> Any:
    handle = res.handle_create()
    json.dumps(handle)      # handles must be JSON
    assert res.check_create_complete(handle) is True
    return handle


# ---- OS::Heat::None ------------------------------------------------------------------------------
def test_none_reference_is_a_uuid_and_survives_redelivery(stack: Identity) -> None:
    res = NoneResource("n", {"a": 1, "anything": "goes"}, stack=stack)
    assert res.get_reference_id() == "n"
    run_create(res)
    assert UUID.fullmatch(res.get_reference_id())
    again = NoneResource("n", {"a": 1}, stack=stack, resource_id=res.resource_id)
    again.handle_create()
    assert again.resource_id == res.resource_id


def test_none_attributes_are_all_none() -> None:
    res = NoneResource("n", {"x": 1}, resource_id="id")
    assert res.resolve_attribute("whatever") is None
    assert res.resolve_attribute("show") is None
    assert res.all_attributes() == {}


def test_none_never_updates_or_replaces() -> None:
    res = NoneResource("n", {"a": 1}, resource_id="id")
    assert res.update_diff({"a": 2, "b": 3}) == {}
    res.handle_update({"a": 2}, {"a": 2})
    assert res.check_update_complete(None) is True
    assert res.check_delete_complete(res.handle_delete()) is True


# ---- OS::Heat::Value -----------------------------------------------------------------------------
def test_value_life_cycle(stack: Identity) -> None:
    res = Value("v", {"value": [1, 2], "type": "comma_delimited_list"}, stack=stack)
    run_create(res)
    assert re.fullmatch(PHYS.pattern.format("v"), res.get_reference_id())
    assert res.resolve_attribute("value") == [1, 2]
    assert res.all_attributes() == {"value": [1, 2]}       # fn-get-attr-all
    assert res.check_delete_complete(res.handle_delete()) is True


def test_value_updates_in_place(stack: Identity) -> None:
    res = Value("v", {"value": "a"}, stack=stack)
    run_create(res)
    phys = res.resource_id
    new = {"value": "b", "type": "string"}
    changed = res.update_diff(new)
    assert changed == {"value": "b", "type": "string"}
    assert res.check_update_complete(res.handle_update(new, changed)) is True
    assert res.resolve_attribute("value") == "b"
    assert res.resource_id == phys


@pytest.mark.parametrize("given,kept", [
    ({"type": "number", "value": "5"}, "5"),        # Heat: the attribute is '5', not 5
    ({"type": "boolean", "value": "true"}, "true"),
    ({"type": "number", "value": None}, None),      # checked as 0, the attribute stays null
    ({"type": "json", "value": None}, None),
    ({"type": "string", "value": 7}, 7),
])
def test_value_is_checked_by_type_but_kept_as_given(given: dict[str, Any], kept: Any) -> None:
    """Heat's Value.reparse retypes ``value`` for validation only; _resolve_attribute reads it
    with the class schema (``any``) -- recorded from Heat 27.0.1 (vectors null-value-*)."""
    props = Value.validated_properties(given, ("resources", "v", "properties"))
    assert props["value"] == kept and type(props["value"]) is type(kept)
    assert props["type"] == given["type"]


def test_value_of_the_wrong_type_is_still_refused() -> None:
    with pytest.raises(errors.ValidationError) as exc:
        Value.validated_properties({"type": "number", "value": "many"},
                                   ("resources", "v", "properties"))
    assert exc.value.message.startswith("Property error: resources.v.properties.value: ")


def test_value_redelivered_create_keeps_physical_id(stack: Identity) -> None:
    res = Value("v", {"value": 1}, stack=stack)
    res.handle_create()
    again = Value("v", {"value": 1}, stack=stack, resource_id=res.resource_id, data=res.data)
    again.handle_create()
    assert again.resource_id == res.resource_id


# ---- OS::Heat::RandomString ----------------------------------------------------------------------
def test_random_string_defaults(stack: Identity) -> None:
    res = RandomString("r", dict(RS_DEFAULTS), stack=stack)
    assert res.get_reference_id() == "r"
    run_create(res)
    value = res.data["value"]
    assert re.fullmatch(r"[A-Za-z0-9]{32}", value)                     # rand-default
    assert res.resolve_attribute("value") == value
    assert res.get_reference_id() == value                             # rand-length
    assert re.fullmatch(PHYS.pattern.format("r"), res.resource_id)     # resource_show sample


def test_random_string_is_never_regenerated(stack: Identity) -> None:
    res = RandomString("r", dict(RS_DEFAULTS), stack=stack)
    res.handle_create()
    again = RandomString("r", dict(RS_DEFAULTS), stack=stack, data=res.data)
    again.handle_create()
    assert again.data["value"] == res.data["value"]
    assert again.resource_id == res.resource_id     # the short id was kept in data too


@pytest.mark.parametrize("cls_name", sorted(SEQUENCES))
def test_random_string_each_class(cls_name: str) -> None:
    props = {"length": 40, "character_classes": [{"class": cls_name, "min": 1}]}
    res = RandomString("r", props, stack=Identity())
    res.handle_create()
    value = res.data["value"]
    assert len(value) == 40
    assert set(value) <= set(SEQUENCES[cls_name])


def test_hexdigits_are_upper_case_only() -> None:
    assert SEQUENCES["hexdigits"] == string.digits + "ABCDEF"
    assert SEQUENCES["octdigits"] == "01234567"


def test_random_string_class_minimums_are_met() -> None:
    classes = [{"class": "digits", "min": 5}, {"class": "lowercase", "min": 3},
               {"class": "uppercase", "min": 2}]
    for _ in range(50):
        value = generate(10, classes, [])
        assert len(value) == 10
        assert sum(c.isdigit() for c in value) == 5
        assert sum(c.islower() for c in value) == 3
        assert sum(c.isupper() for c in value) == 2


def test_random_string_sequences_only() -> None:
    # rand-sequence: character_classes [] and one sequence
    props = {"length": 8, "character_classes": [],
             "character_sequences": [{"sequence": "ab", "min": 1}]}
    res = RandomString("r", props, stack=Identity())
    res.validate()
    res.handle_create()
    assert re.fullmatch(r"[ab]{8}", res.data["value"])


def test_random_string_sequences_and_classes_mix() -> None:
    seqs = [{"sequence": "!", "min": 2}]
    classes = [{"class": "digits", "min": 2}]
    for _ in range(20):
        value = generate(30, classes, seqs)
        assert len(value) == 30
        assert value.count("!") >= 2 and sum(c.isdigit() for c in value) >= 2
        assert set(value) <= set("!" + string.digits)


def test_random_string_without_any_pool_uses_lettersdigits() -> None:
    value = generate(16, [], [])
    assert re.fullmatch(r"[A-Za-z0-9]{16}", value)


def test_random_string_empty_sequence_fails_like_heat() -> None:
    with pytest.raises(IndexError):
        generate(4, [], [{"sequence": "", "min": 1}])


def test_random_string_minimums_longer_than_length_are_invalid() -> None:
    # rand-length-too-small
    props = {"length": 2, "character_classes": [{"class": "digits", "min": 2},
                                                {"class": "lowercase", "min": 2}]}
    with pytest.raises(errors.ValidationError) as info:
        RandomString("r", props).validate()
    assert str(info.value) == ("Length property cannot be smaller than combined character class "
                               "and character sequence minimums")
    assert info.value.heat_type == "StackValidationFailed"
    RandomString("r", {**props, "length": 4}).validate()     # equal is fine


def test_random_string_validate_ignores_unresolved_values() -> None:
    classes = [{"class": "digits", "min": 5}]
    with pytest.raises(errors.ValidationError):  # known values: 5 > 4 is refused
        RandomString("r", {"length": 4, "character_classes": classes}).validate()
    # a length or minimum not resolved yet (a get_param read at create) is not compared
    for props in ({"length": None, "character_classes": classes},
                  {"length": None, "character_classes": [{"class": "digits", "min": None}]}):
        assert RandomString("r", props).validate() is None


def test_random_string_any_change_replaces(stack: Identity) -> None:
    res = RandomString("r", {**RS_DEFAULTS, "salt": "a"}, stack=stack)
    run_create(res)
    assert res.update_diff({**RS_DEFAULTS, "salt": "a"}) == {}
    with pytest.raises(UpdateReplace):
        res.update_diff({**RS_DEFAULTS, "salt": "b"})
    with pytest.raises(UpdateReplace):
        res.update_diff({**RS_DEFAULTS, "salt": "a", "length": 12})


# ---- OS::Heat::TestResource ----------------------------------------------------------------------
def make_tr(clock: FakeClock, **props: Any) -> TestResource:
    res = TestResource("t", {**TR_DEFAULTS, **props}, stack=Identity())
    res.clock = clock
    return res


def test_test_resource_defaults(clock: FakeClock) -> None:
    # test-resource-defaults: output "test_string", reference vstack-t-<12>
    res = make_tr(clock)
    run_create(res)
    assert res.resolve_attribute("output") == "test_string"
    assert re.fullmatch(PHYS.pattern.format("t"), res.get_reference_id())
    assert res.all_attributes() == {"output": "test_string"}   # fn-get-attr-testresource-output


def test_test_resource_create_waits_until_deadline(clock: FakeClock) -> None:
    res = make_tr(clock, value="w", wait_secs=10)
    handle = res.handle_create()
    assert handle == {"started_at": clock.now, "wait_secs": 10.0}
    assert res.resource_id is not None                  # set before any wait
    assert res.check_create_complete(handle) is False
    assert res.poll_delay(handle, 0) == 5.0             # capped at poll_max
    clock.advance(7)
    assert res.check_create_complete(handle) is False
    assert res.poll_delay(handle, 1) == pytest.approx(3.0)
    clock.advance(3)
    assert res.poll_delay(handle, 2) == 0.0
    assert res.check_create_complete(handle) is True


def test_test_resource_check_in_another_instance(clock: FakeClock) -> None:
    res = make_tr(clock, wait_secs=2)
    handle = json.loads(json.dumps(res.handle_create()))
    clock.advance(2)
    other = TestResource("t", {**TR_DEFAULTS, "wait_secs": 2}, resource_id=res.resource_id,
                         data=res.data, stack=Identity())
    other.clock = clock
    assert other.check_create_complete(handle) is True
    assert other.resolve_attribute("output") == "test_string"


def test_test_resource_action_wait_secs_override(clock: FakeClock) -> None:
    res = make_tr(clock, wait_secs=3, action_wait_secs={"create": 1, "delete": None})
    assert res.wait_secs("create") == 1.0
    assert res.wait_secs("update") == 3.0
    assert res.wait_secs("delete") == 3.0
    assert make_tr(clock, wait_secs=3, action_wait_secs={}).wait_secs("create") == 3.0
    assert make_tr(clock, action_wait_secs={"create": 0}).wait_secs("create") == 0.0


def test_test_resource_infinite_wait(clock: FakeClock) -> None:
    res = make_tr(clock, wait_secs=-1)
    handle = res.handle_create()
    clock.advance(10 ** 6)
    assert res.check_create_complete(handle) is False
    assert res.poll_delay(handle, 9) == res.poll_max


def test_test_resource_fail(clock: FakeClock) -> None:
    # fail-basic: "ValueError: resources.boom: Test Resource failed boom"
    res = TestResource("boom", {**TR_DEFAULTS, "fail": True}, stack=Identity())
    res.clock = clock
    handle = res.handle_create()
    assert res.resource_id is None and "value" not in res.data
    with pytest.raises(ValueError, match=r"^Test Resource failed boom$") as info:
        res.check_create_complete(handle)
    assert failures.failure_reason(info.value, "boom") == (
        "ValueError: resources.boom: Test Resource failed boom")
    assert res.get_reference_id() == "boom"
    assert res.resolve_attribute("output") is None


def test_test_resource_fail_after_the_wait(clock: FakeClock) -> None:
    res = make_tr(clock, fail=True, wait_secs=5)
    handle = res.handle_create()
    assert res.check_create_complete(handle) is False
    clock.advance(5)
    with pytest.raises(ValueError):
        res.check_create_complete(handle)


def test_test_resource_delete_never_fails(clock: FakeClock) -> None:
    res = make_tr(clock, fail=True, action_wait_secs={"delete": 4})
    handle = res.handle_delete()
    assert res.check_delete_complete(handle) is False
    clock.advance(4)
    assert res.check_delete_complete(handle) is True


def test_test_resource_update_in_place(clock: FakeClock) -> None:
    res = make_tr(clock, value="a", action_wait_secs={"update": 2})
    run_create(res)
    phys = res.resource_id
    new = {**res.properties, "value": "b"}
    changed = res.update_diff(new)
    assert changed == {"value": "b"}
    handle = res.handle_update(new, changed)
    assert res.resolve_attribute("output") == "b"
    assert res.check_update_complete(handle) is False
    clock.advance(2)
    assert res.check_update_complete(handle) is True
    assert res.resource_id == phys


def test_test_resource_update_without_value_change_completes_at_once(clock: FakeClock) -> None:
    res = make_tr(clock, wait_secs=9)
    res.data["value"] = "test_string"
    new = {**res.properties, "client_name": "nova"}
    handle = res.handle_update(new, res.update_diff(new))
    assert res.check_update_complete(handle) is True


def test_test_resource_update_fail(clock: FakeClock) -> None:
    res = make_tr(clock, value="a")
    run_create(res)
    new = {**res.properties, "value": "b", "fail": True}
    handle = res.handle_update(new, res.update_diff(new))
    assert res.resolve_attribute("output") == "a"       # a failing update stores nothing
    with pytest.raises(ValueError, match="Test Resource failed t"):
        res.check_update_complete(handle)


def test_test_resource_update_replace(clock: FakeClock) -> None:
    res = make_tr(clock, value="a")
    run_create(res)
    with pytest.raises(UpdateReplace):
        res.update_diff({**res.properties, "value": "b", "update_replace": True})
    with pytest.raises(UpdateReplace):
        res.handle_update({**res.properties, "value": "b", "update_replace": True},
                          {"value": "b", "update_replace": True})
    # update_replace alone, value unchanged: in place
    assert res.update_diff({**res.properties, "update_replace": True}) == {"update_replace": True}
    with pytest.raises(UpdateReplace):   # update_replace_value is not update_allowed
        res.update_diff({**res.properties, "update_replace_value": "x"})


def test_null_properties_take_schema_defaults(clock: FakeClock) -> None:
    # ver-if-null-wallaby: value resolved to null -> output "test_string"
    res = TestResource("t", {"value": None, "wait_secs": None}, stack=Identity())
    res.clock = clock
    run_create(res)
    assert res.resolve_attribute("output") == "test_string"
    rs = RandomString("r", {"length": None, "character_classes": None}, stack=Identity())
    rs.handle_create()
    assert re.fullmatch(r"[A-Za-z0-9]{32}", rs.data["value"])
    assert generate(3, [{"class": None, "min": None}], []).isalnum()
