"""The plugin base: names, references, attributes, updates, polling, failure reasons."""
from __future__ import annotations

import re
import uuid
from typing import Any, ClassVar

import pytest

from app import errors
from app.resource_types import base, failures
from app.resource_types import schema as s
from app.resource_types.base import NotSupported, Resource, UpdateReplace

from .helpers import Identity

SHORT_ID = re.compile(r"[a-z2-7]{12}")


class Thing(Resource):
    type_name = "Test::Thing"
    properties_schema: ClassVar[dict[str, Any]] = {
        "size": s.prop("integer", "Size.", update_allowed=True),
        "name": s.prop("string", "Name."),
        "zone": s.prop("string", "Zone.", immutable=True, update_allowed=True),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {"size": s.attr("Size.", "integer")}

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties.get("size")


# ---- physical names -------------------------------------------------------------------------------
def test_physical_resource_name_format(stack: Identity) -> None:
    res = Thing("server", {}, stack=stack)
    name = res.physical_resource_name()
    assert re.fullmatch(r"vstack-server-[a-z2-7]{12}", name)
    # matches the oracle's regex and Heat's api sample form
    assert re.fullmatch(r"vstack-server-[a-z0-9]{12}", name)


def test_physical_resource_name_is_stable_through_data(stack: Identity) -> None:
    res = Thing("server", {}, stack=stack)
    name = res.physical_resource_name()
    assert res.physical_resource_name() == name
    again = Thing("server", {}, stack=stack, data=res.data)   # a redelivered task
    assert again.physical_resource_name() == name
    other = Thing("server", {}, stack=stack)
    assert other.physical_resource_name() != name


def test_physical_resource_name_from_uuid_is_heats_short_id(stack: Identity) -> None:
    u = "8a1c6f0e-3b2d-4c5e-9f10-112233445566"
    res = Thing("server", {}, stack=stack, uuid=u)
    assert res.physical_resource_name() == f"vstack-server-{base.short_id(u)}"
    assert res.data == {}   # nothing to remember


def test_short_id_matches_heats_derivation() -> None:
    # Heat: base32 of the UUID's 60-bit time field (left-aligned in 8 bytes), first 12, lower.
    u = uuid.UUID("00000000-0000-4000-8000-000000000000")
    assert base.short_id(u) == "aaaaaaaaaaaa"
    u = uuid.UUID("ffffffff-ffff-4fff-8fff-ffffffffffff")
    assert base.short_id(u) == "777777777777"
    u = uuid.UUID("00000001-0000-4000-8000-000000000000")   # time_low = 1 -> the last bit
    assert base.short_id(u) == "aaaaaaaaaaab"
    for _ in range(20):
        assert SHORT_ID.fullmatch(base.short_id(uuid.uuid4()))


def test_short_id_rejects_non_v4() -> None:
    with pytest.raises(ValueError, match=r"Invalid UUID version \(1\)"):
        base.short_id(uuid.uuid1())


def test_physical_resource_name_strips_star_from_stack_name() -> None:
    res = Thing("r", {}, stack=Identity(stack_name="backup*"))
    assert res.physical_resource_name().startswith("backup-r-")


def test_physical_resource_name_needs_a_stack() -> None:
    with pytest.raises(ValueError):
        Thing("r", {}).physical_resource_name()


def test_reduce_physical_resource_name() -> None:
    assert base.reduce_physical_resource_name("abcdef", 6) == "abcdef"
    assert base.reduce_physical_resource_name("abcdefgh", 6) == "ab-fgh"
    assert base.reduce_physical_resource_name("abcdefgh", 4) == "ab-h"
    with pytest.raises(ValueError, match="limit cannot be less than 4"):
        base.reduce_physical_resource_name("abcdefgh", 3)


def test_long_physical_name_is_truncated_to_255_keeping_suffix() -> None:
    stack = Identity(stack_name="s" * 200)
    res = Thing("r" * 100, {}, stack=stack)
    name = res.physical_resource_name()
    assert len(name) == 255
    assert name.startswith("ss-")
    assert name.endswith("r-" + res.short_id())
    full = f"{'s' * 200}-{'r' * 100}-{res.short_id()}"
    assert name == full[:2] + "-" + full[-252:]


def test_physical_name_limit_none_means_no_truncation() -> None:
    class Unlimited(Thing):
        physical_resource_name_limit = None

    res = Unlimited("r" * 300, {}, stack=Identity())
    assert len(res.physical_resource_name()) == len("vstack-") + 300 + 13


# ---- references and attributes ----------------------------------------------------------------
def test_reference_id_is_physical_id_else_name() -> None:
    res = Thing("r", {})
    assert res.get_reference_id() == "r"
    res.resource_id = "phys-1"
    assert res.get_reference_id() == "phys-1"


def test_resolve_attribute_declared_show_and_unknown() -> None:
    res = Thing("r", {"size": 3})
    assert res.resolve_attribute("size") == 3
    assert res.resolve_attribute("show") is None          # no physical id yet
    res.resource_id = "x"
    assert res.resolve_attribute("show") is None          # cloud-free: Heat gives None
    with pytest.raises(errors.TemplateError) as info:
        res.resolve_attribute("nosuch")
    assert info.value.heat_type == "InvalidTemplateAttribute"
    assert str(info.value) == "The Referenced Attribute (r nosuch) is incorrect."


def test_all_attributes_excludes_show() -> None:
    assert Thing("r", {"size": 2}).all_attributes() == {"size": 2}


def test_show_is_added_without_mutating_the_base() -> None:
    assert "show" in Thing.attributes_schema
    assert Resource.attributes_schema == {}


# ---- updates ------------------------------------------------------------------------------------
def test_update_diff_in_place() -> None:
    res = Thing("r", {"size": 1, "name": "a"})
    assert res.update_diff({"size": 2, "name": "a"}) == {"size": 2}
    assert res.update_diff({"size": 1, "name": "a"}) == {}


def test_update_diff_replace_when_not_update_allowed() -> None:
    res = Thing("r", {"size": 1, "name": "a"})
    with pytest.raises(UpdateReplace, match=r"^The Resource r requires replacement\.$"):
        res.update_diff({"size": 1, "name": "b"})
    with pytest.raises(UpdateReplace):   # removal counts as a change
        res.update_diff({"size": 1})


def test_update_diff_immutable_is_not_supported() -> None:
    res = Thing("r", {"zone": "a"})
    with pytest.raises(NotSupported) as info:
        res.update_diff({"zone": "b"})
    assert str(info.value) == "Update to properties zone of r (Test::Thing) is not supported."


def test_default_handle_update_adopts_properties_or_replaces() -> None:
    res = Thing("r", {"size": 1, "name": "a"})
    new = {"size": 5, "name": "a"}
    assert res.handle_update(new, res.update_diff(new)) is None
    assert res.check_update_complete(None) is True
    assert res.properties == new
    with pytest.raises(UpdateReplace):
        res.handle_update({"size": 5, "name": "z"}, {"name": "z"})


def test_default_life_cycle_is_immediate() -> None:
    res = Thing("r", {})
    assert res.check_create_complete(res.handle_create()) is True
    assert res.check_delete_complete(res.handle_delete()) is True


def test_default_poll_delay_backs_off_to_a_cap() -> None:
    res = Thing("r", {})
    delays = [res.poll_delay(None, n) for n in range(12)]
    assert delays[0] == pytest.approx(0.05)
    assert delays[1] == pytest.approx(0.1)
    assert delays == sorted(delays)
    assert delays[-1] == res.poll_max == 5.0


# ---- failure reasons ------------------------------------------------------------------------------
def test_failure_reason_matches_heat() -> None:
    exc = ValueError("Test Resource failed boom")
    assert failures.failure_reason(exc, "boom") == "ValueError: resources.boom: Test Resource failed boom"
    assert failures.action_failed_reason("create", failures.failure_reason(exc, "boom")) == (
        "Resource CREATE failed: ValueError: resources.boom: Test Resource failed boom")


def test_failure_reason_nested_path_and_digits() -> None:
    exc = ValueError("Test Resource failed 0")
    path = failures.resource_path("0", parent=failures.resource_path("g"))
    assert path == ("resources", "g", "resources", "0")
    assert failures.failure_reason(exc, path) == (
        "ValueError: resources.g.resources[0]: Test Resource failed 0")
    assert failures.format_path(["resources", 3, "x"]) == "resources[3].x"


def test_format_path_all_digit_items() -> None:
    """Heat's ``HeatExceptionWithPath``: an all-digit item, first or not, is ``[n]``."""
    assert errors.format_path(["resources", "0", "properties"]) == "resources[0].properties"
    assert errors.format_path(["0", "Properties", "length"]) == "[0].Properties.length"
    assert errors.format_path(["outputs", "a1", "value"]) == "outputs.a1.value"
    assert errors.ValidationError("x", path=("resources", "12")).path_str == "resources[12]"


def test_create_check_reasons() -> None:
    """Heat's ``Resource.create``: the recorder's reason from the raw section ``Properties``,
    the create's (the stack's) with the resource's name in front."""
    from app.templates import properties as tproperties
    schema = {"length": {"type": "integer", "constraints": [{"range": {"min": 1, "max": 9}}]}}
    with pytest.raises(errors.ValidationError) as info:
        tproperties.validate(schema, {"length": 0}, ("resources", "0", "properties"))
    assert failures.create_check_reasons(info.value, "0") == (
        "StackValidationFailed: resources[0]: Property error: Properties.length: "
        "0 is out of range (min: 1, max: 9)",
        "StackValidationFailed: resources[0]: Property error: [0].Properties.length: "
        "0 is out of range (min: 1, max: 9)")
    assert failures.create_check_reasons(errors.ValidationError("no raw"), "r") is None


def test_failure_reason_uses_heat_type_of_stoker_errors() -> None:
    exc = errors.ResourceFailure('Went to status ERROR due to "boom"', heat_type="ResourceInError")
    assert failures.failure_reason(exc, "srv") == (
        'ResourceInError: resources.srv: Went to status ERROR due to "boom"')


def test_resource_failure_keeps_its_parts_when_wrapped_again() -> None:
    failure = failures.resource_failure(KeyError("k"), "r", action="CREATE")
    assert str(failure) == "KeyError: resources.r: 'k'"
    assert failure.data["error"] == "KeyError"
    assert failure.data["failure_path"] == ["resources", "r"]
    assert failure.data["action"] == "CREATE"
    assert failures.failure_reason(failure, "other") == "KeyError: resources.r: 'k'"


def test_nested_failure_reason_from_child_status_reason() -> None:
    child = "Resource CREATE failed: ValueError: resources[0]: Test Resource failed 0"
    assert failures.nested_failure_reason(child, "CREATE", "g") == (
        "ValueError: resources.g.resources[0]: Test Resource failed 0")
    # a reason in another form is kept as the message
    assert failures.nested_failure_reason("Timed out", "CREATE", "g") == "resources.g: Timed out"


# ---- small behaviours -----------------------------------------------------------------------------
def test_created_validation_message_puts_the_resource_name_in_front() -> None:
    """Heat's ``Resource.create`` re-raises a ``StackValidationFailed`` met creating the
    resource with ``[self.t.name] + exc.path``, printed by ``HeatExceptionWithPath`` (digits
    as ``[n]``), its error label kept (the reasons recorded from Heat 27.0.1 in
    tests/corpus/fidelity/vectors/groups.json and nested.json)."""
    with_path = errors.ValidationError(
        "Property error: resources.0.properties.n: 0 is out of range (min: 1, max: 3)",
        path=("resources", "0", "properties", "n"))
    assert failures.created_validation_message(with_path, "g") == (
        "Property error: g.resources[0].properties.n: 0 is out of range (min: 1, max: 3)")
    in_text = errors.ValidationError(
        'Property error: resources.v.properties.value: "list_join" must operate on a list')
    assert failures.created_validation_message(in_text, "c") == (
        'Property error: c.resources.v.properties.value: "list_join" must operate on a list')
    no_label = errors.ValidationError("resources.12.properties: Unknown Property x",
                                      path=("resources", "12", "properties"))
    assert failures.created_validation_message(no_label, "g") == (
        "g.resources[12].properties: Unknown Property x")
    assert failures.created_validation_message(errors.ValidationError("Bad: thing"), "g") == (
        "g: Bad: thing")


def test_get_property_falls_back_to_schema_default() -> None:
    class WithDefault(Thing):
        properties_schema: ClassVar[dict[str, Any]] = {
            "tags": s.prop("list", "Tags.", default=["a"]), "n": s.prop("integer", "N.")}

    res = WithDefault("r", {"n": None})
    assert res.get_property("tags") == ["a"]
    res.get_property("tags").append("b")        # a copy: the schema is untouched
    assert WithDefault.properties_schema["tags"]["default"] == ["a"]
    assert res.get_property("n") is None
    assert WithDefault("r", {"tags": []}).get_property("tags") == []   # given values win


def test_handle_signal_not_supported_by_default() -> None:
    with pytest.raises(base.ResourceActionNotSupported,
                       match=r"^signal is not supported for resource\.$"):
        Thing("r", {}).handle_signal({"data": 1})


def test_non_v4_uuid_falls_back_to_a_remembered_short_id(stack: Identity) -> None:
    res = Thing("r", {}, stack=stack, uuid=str(uuid.uuid1()))
    name = res.physical_resource_name()
    assert re.fullmatch(r"vstack-r-[a-z2-7]{12}", name)
    assert res.physical_resource_name() == name
