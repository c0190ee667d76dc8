"""Heat's cloud-free resource types: OS::Heat::None, Value, RandomString and TestResource.

Behaviour follows Heat 27 (``heat/engine/resources/openstack/heat/{none_resource,value,
random_string,test_resource}.py``); schemas equal ``resource_types.json``. Reference ids, as the
oracle vectors record them:

==========================  ===============================================================
OS::Heat::None              a random UUID (``none-ref-uuid``)
OS::Heat::Value             the physical name ``<stack>-<name>-<short id>``
OS::Heat::RandomString      the generated string (``rand-length``); physical id is the name
OS::Heat::TestResource      the physical name (``test-resource-defaults``); the resource name
                            if it failed (no physical id)
==========================  ===============================================================
"""
from __future__ import annotations

import copy
import secrets
import string
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types.base import Resource

# ---- OS::Heat::None ------------------------------------------------------------------------------


class NoneResource(Resource):
    """Stands in for any resource (e.g. mapped over a type in ``resource_registry``).

    Accepts any properties, resolves any attribute to ``None``, never updates or replaces,
    and gets a random UUID as physical id, as Heat's ``NoneResource``.
    """

    type_name = "OS::Heat::None"
    support_status = s.support_status("5.0.0")
    accepts_any_properties = True
    accepts_any_attributes = True

    def handle_create(self) -> None:
        """Sets a UUID physical id (kept if already set: a redelivered create adopts it)."""
        if self.resource_id is None:
            self.resource_id = str(uuid.uuid4())

    def update_diff(self, new_properties: Mapping[str, Any]) -> dict[str, Any]:
        """Always ``{}``: Heat's None never needs an update (``_needs_update`` is False)."""
        return {}

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Adopts the new properties; never replaces."""
        self.properties = dict(new_properties)

    def resolve_attribute(self, name: str) -> Any:
        """``None`` for every name, ``show`` included (Heat's ``get_attribute``)."""
        return None


# ---- OS::Heat::Value -----------------------------------------------------------------------------

#: HOT parameter type -> property type of ``value`` (Heat's ``Value.__init__``).
_VALUE_TYPES = {"string": "string", "number": "number", "comma_delimited_list": "list",
                "json": "map", "boolean": "boolean"}


class Value(Resource):
    """Exposes its ``value`` property (optionally typed by ``type``) as attribute ``value``."""

    type_name = "OS::Heat::Value"
    support_status = s.support_status("7.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "value": s.prop("any", "The value to expose as the \"value\" attribute.", required=True,
                        update_allowed=True),
        "type": s.prop("string", "The type of \"value\", as a HOT parameter type.",
                       update_allowed=True,
                       constraints=[s.allowed_values(_VALUE_TYPES)]),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "value": s.attr("The \"value\" property, typed as the \"type\" property says."),
    }

    @classmethod
    def validation_schema(cls, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """``value`` is validated as the type ``type`` names (``number`` -> number,
        ``comma_delimited_list`` -> list, ``json`` -> map, ``boolean``, ``string``); an absent or
        unknown ``type`` keeps ``any`` (the unknown name then fails its own constraint)."""
        hot_type = values.get("type")
        prop_type = _VALUE_TYPES.get(hot_type) if isinstance(hot_type, str) else None
        if prop_type is None:
            return cls.properties_schema
        value_schema = {**cls.properties_schema["value"], "type": prop_type}
        return {**cls.properties_schema, "value": value_schema}

    @classmethod
    def validated_properties(cls, values: Mapping[str, Any],
                             path: Sequence[Any]) -> dict[str, Any]:
        """Checked as ``type`` says, but ``value`` is kept as given: Heat's ``Value.reparse``
        retypes the property for validation only, and ``_resolve_attribute`` reads it with the
        class schema (``any``), so ``{type: number, value: '5'}`` gives '5' and a null stays
        null (not 0)."""
        out = super().validated_properties(values, path)
        if "value" in values:
            out["value"] = copy.deepcopy(values["value"])
        return out

    def handle_create(self) -> None:
        """Physical id = Heat's physical resource name (kept if already set)."""
        if self.resource_id is None:
            self.resource_id = self.physical_resource_name()

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties.get("value") if name == "value" else None


# ---- OS::Heat::RandomString ----------------------------------------------------------------------

#: Heat's character classes (note: ``hexdigits`` is upper case only).
SEQUENCES: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
_MIN_RANGE = [s.value_range(1, 512)]


class RandomString(Resource):
    """A random string, e.g. for passwords (``secrets`` is the source of randomness).

    The value is generated once, on the first create, and stored in ``data["value"]``; a
    redelivered create reuses it. Any property change replaces the resource (none is
    ``update_allowed``), which is what ``salt`` is for.
    """

    type_name = "OS::Heat::RandomString"
    support_status = s.support_status("2014.1")
    properties_schema: ClassVar[dict[str, Any]] = {
        "length": s.prop("integer", "Length of the string to generate.", default=32,
                         constraints=_MIN_RANGE),
        "character_classes": s.prop(
            "list", "Character classes to draw from, each with a minimum count.",
            default=[{"class": "lettersdigits", "min": 1}],
            schema=s.list_of(s.prop("map", schema={
                "class": s.prop("string", "A character class.", default="lettersdigits",
                                constraints=[s.allowed_values(SEQUENCES)]),
                "min": s.prop("integer", "Minimum number of characters from this class.",
                              default=1, constraints=_MIN_RANGE),
            }))),
        "character_sequences": s.prop(
            "list", "Character sequences to draw from, each with a minimum count.",
            schema=s.list_of(s.prop("map", schema={
                "sequence": s.prop("string", "The characters to draw from.", required=True),
                "min": s.prop("integer", "Minimum number of characters from this sequence.",
                              default=1, constraints=_MIN_RANGE),
            }))),
        "salt": s.prop("string", "Ignored by the generator; change it to get a new string."),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "value": s.attr("The generated string (also the reference id).", "string"),
    }

    def validate(self) -> None:
        """:raises errors.ValidationError: the minimum counts add up to more than ``length``
        (Heat's message, no path)."""
        length = self.get_property("length")
        try:
            minimum = sum(_min_count(e) for e in [*self._sequences(), *self._classes()])
        except (TypeError, ValueError, AttributeError):
            return  # not resolved yet (e.g. placeholders at validation time)
        if isinstance(length, int) and minimum > length:
            raise errors.ValidationError(
                "Length property cannot be smaller than combined character class and "
                "character sequence minimums")

    def handle_create(self) -> None:
        """Generates and stores the value unless ``data`` already has one; physical id = the
        physical resource name (Heat's order: data first, then the id)."""
        if "value" not in self.data:
            self.data["value"] = generate(int(self.get_property("length")),
                                          self._classes(), self._sequences())
        if self.resource_id is None:
            self.resource_id = self.physical_resource_name()

    def _resolve_attribute(self, name: str) -> Any:
        return self.data.get("value") if name == "value" else None

    def get_reference_id(self) -> str:
        """The generated string once created, else the resource name (Heat's RandomString)."""
        if self.resource_id is not None:
            return self.data.get("value")  # type: ignore[return-value]
        return str(self.name)

    def _classes(self) -> list[Mapping[str, Any]]:
        return list(self.get_property("character_classes") or [])

    def _sequences(self) -> list[Mapping[str, Any]]:
        return list(self.properties.get("character_sequences") or [])


def generate(length: int, classes: list[Mapping[str, Any]],
             sequences: list[Mapping[str, Any]]) -> str:
    """Heat's RandomString generation rules, with ``secrets`` as the random source.

    1. ``min`` characters from each sequence, then ``min`` from each class;
    2. fill up to ``length`` with characters from a randomly chosen entry (every class and
       sequence entry equally likely);
    3. shuffle. With neither classes nor sequences, ``length`` characters of ``lettersdigits``.

    The result is longer than ``length`` only if the minimums are (``validate`` forbids it).
    :raises IndexError: an empty ``sequence`` (Heat fails the same way).
    """
    pools = [str(e["sequence"]) for e in sequences] + [SEQUENCES[e.get("class") or "lettersdigits"]
                                                      for e in classes]
    mins = [_min_count(e) for e in [*sequences, *classes]]
    if not pools:
        pools, mins = [SEQUENCES["lettersdigits"]], [0]
    chars = [secrets.choice(pool) for pool, count in zip(pools, mins, strict=True) for _ in range(count)]
    while len(chars) < length:
        chars.append(secrets.choice(secrets.choice(pools)))
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def _min_count(entry: Mapping[str, Any]) -> int:
    """An entry's ``min`` (schema default 1 when absent or null)."""
    value = entry.get("min")
    return 1 if value is None else int(value)


# ---- OS::Heat::TestResource ----------------------------------------------------------------------


class TestResource(Resource):
    """Heat's test knob resource: stores ``value`` (attribute ``output``), can wait and fail.

    Waits are deadlines, never sleeps: ``handle_*`` return ``{"started_at": <epoch s>,
    "wait_secs": <s>}`` and ``check_*_complete`` is ``True`` once ``wait_secs`` have passed on
    ``self.clock`` (``wait_secs < 0`` waits forever). The wait is ``action_wait_secs[action]``
    when given, else ``wait_secs``. With ``fail: true`` the create and update checks raise
    ``ValueError("Test Resource failed <name>")`` when the wait ends (delete never fails); a
    failing create sets no physical id and stores no value, as Heat's. ``update_replace: true``
    with a changed ``value`` replaces; ``update_replace_value`` is not ``update_allowed``.
    Ignored: ``client_name`` / ``entity_name`` polling, ``attr_wait_secs`` and
    ``constraint_prop_secs`` (Heat sleeps for those; a worker may not).
    """

    __test__ = False  # not a pytest test class
    type_name = "OS::Heat::TestResource"
    support_status = s.support_status("5.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "value": s.prop("string", "The string to store.", default="test_string",
                        update_allowed=True),
        "fail": s.prop("boolean", "Fail the create or update (after the wait).", default=False,
                       update_allowed=True),
        "update_replace": s.prop("boolean", "Replace, rather than update, when value changes.",
                                 default=False, update_allowed=True),
        "update_replace_value": s.prop("string", "A value whose change forces replacement."),
        "wait_secs": s.prop("number", "Seconds each action takes (-1: forever).", default=0,
                            update_allowed=True),
        "action_wait_secs": s.prop("map", "Seconds per action, overriding wait_secs.",
                                   update_allowed=True, schema={
                                       action: s.prop("number", f"Seconds a {action} takes.",
                                                      update_allowed=True)
                                       for action in ("create", "update", "delete")}),
        "attr_wait_secs": s.prop("number", "Seconds to resolve an attribute (ignored).",
                                 default=0, update_allowed=True),
        "constraint_prop_secs": s.prop("number", "Seconds a constraint check takes (ignored).",
                                       default=0, update_allowed=True,
                                       constraints=[s.custom_constraint("test_constr")]),
        "client_name": s.prop("string", "Client to poll (ignored).", default="",
                              update_allowed=True),
        "entity_name": s.prop("string", "Client entity to poll (ignored).", default="",
                              update_allowed=True),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {"output": s.attr("The stored string.")}

    def handle_create(self) -> dict[str, float]:
        """Stores ``value`` and the physical name unless ``fail``; starts the create wait."""
        if not self.properties.get("fail"):
            self.data["value"] = self.get_property("value")
            if self.resource_id is None:
                self.resource_id = self.physical_resource_name()
        return self._start("create")

    def check_create_complete(self, handle: Mapping[str, Any]) -> bool:
        """:raises ValueError: ``fail`` is set, once the wait is over."""
        return self._done(handle, may_fail=True)

    def needs_replace_with_prop_diff(self, changed: set[str],
                                     new_properties: Mapping[str, Any]) -> bool:
        """A changed ``value`` replaces when the new ``update_replace`` is true (Heat's rule)."""
        return "value" in changed and bool(new_properties.get("update_replace"))

    def handle_update(self, new_properties: Mapping[str, Any],
                      changed: Mapping[str, Any]) -> dict[str, float]:
        """A new non-empty ``value`` is stored (unless ``fail``) and waits the update time;
        any other change completes at the next check.
        :raises UpdateReplace: see :meth:`needs_replace_with_prop_diff`."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if changed.get("value"):
            if not self.properties.get("fail"):
                self.data["value"] = changed["value"]
            return self._start("update")
        return {"started_at": self.clock(), "wait_secs": 0}

    def check_update_complete(self, handle: Mapping[str, Any]) -> bool:
        """:raises ValueError: ``fail`` is set, once the wait is over."""
        return self._done(handle, may_fail=True)

    def handle_delete(self) -> dict[str, float]:
        """Starts the delete wait."""
        return self._start("delete")

    def check_delete_complete(self, handle: Mapping[str, Any]) -> bool:
        """Never fails."""
        return self._done(handle, may_fail=False)

    def poll_delay(self, handle: Any, attempt: int) -> float:
        """The time left until the deadline, capped at ``poll_max`` (``poll_max`` when the
        wait is infinite); 0 once it has passed."""
        try:
            wait = float(handle["wait_secs"])
            left = float(handle["started_at"]) + wait - self.clock()
        except (TypeError, KeyError, ValueError):
            return super().poll_delay(handle, attempt)
        if wait < 0:
            return self.poll_max
        return max(0.0, min(self.poll_max, left))

    def _resolve_attribute(self, name: str) -> Any:
        return self.data.get("value") if name == "output" else None

    def wait_secs(self, action: str) -> float:
        """Seconds ``action`` (``"create"``, ``"update"``, ``"delete"``) takes."""
        per_action = self.properties.get("action_wait_secs") or {}
        secs = per_action.get(action) if isinstance(per_action, Mapping) else None
        if secs is None:
            secs = self.get_property("wait_secs")
        return float(secs or 0)

    def _start(self, action: str) -> dict[str, float]:
        return {"started_at": self.clock(), "wait_secs": self.wait_secs(action)}

    def _done(self, handle: Mapping[str, Any], *, may_fail: bool) -> bool:
        wait = float(handle.get("wait_secs", 0))
        if wait < 0 or self.clock() - float(handle["started_at"]) < wait:
            return False
        if may_fail and self.properties.get("fail"):
            raise ValueError(f"Test Resource failed {self.name}")
        return True


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry` (as Heat's plugins)."""
    return {cls.type_name: cls for cls in (NoneResource, Value, RandomString, TestResource)}
