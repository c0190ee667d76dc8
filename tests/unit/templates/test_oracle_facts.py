"""The refusal comparison the oracle tests use (oracle_facts.py): what it extracts and what it
lets through."""
from __future__ import annotations

from .oracle_facts import key_facts, refusal_problem

HEAT = {"http_status": 400, "error_type": "StackValidationFailed",
        "message": "Property error: resources.a.properties.length: Value 'long' is not an "
                   "integer"}


def test_facts_path_quotes_parens_numbers_and_tail() -> None:
    assert key_facts("Parameter 'N' is invalid: 9 is out of range (min: 1, max: 5)") == \
        ["N", "min: 1, max: 5", "9", "1", "5", "9 is out of range (min: 1, max: 5)"]
    assert key_facts(HEAT["message"]) == ["resources.a.properties.length", "long",
                                          "Value 'long' is not an integer"]


def test_a_message_naming_nothing_is_its_own_fact() -> None:
    assert key_facts("Each resource must contain a type key.") == \
        ["Each resource must contain a type key."]


def test_a_repr_tail_gives_its_quoted_names_only() -> None:
    assert key_facts('Circular Dependency Found: {NoneResource "a": {NoneResource "a"}}') == \
        ["a"]


def test_matching_refusal_passes() -> None:
    assert refusal_problem(HEAT, None, 400, "StackValidationFailed",
                           "Property error: resources.a.properties.length: Value 'long' is "
                           "not an integer") is None


def test_wrong_type_status_or_fact_fails() -> None:
    msg = HEAT["message"]
    assert refusal_problem(HEAT, None, 400, "ValueError", msg)
    assert refusal_problem(HEAT, None, 404, "StackValidationFailed", msg)
    assert refusal_problem(HEAT, None, 400, "StackValidationFailed",
                           msg.replace("length", "size"))
    assert refusal_problem(HEAT, None, 400, "StackValidationFailed", "")


def test_heat_500_needs_a_clear_400() -> None:
    heat = {"http_status": 500, "error_type": "TypeError", "message": "sequence item 1"}
    assert refusal_problem(heat, None, 400, "StackValidationFailed", "condition name") is None
    assert refusal_problem(heat, None, 500, "TypeError", "sequence item 1")


def test_unstable_message_compares_type_and_status() -> None:
    assert refusal_problem(HEAT, ["message"], 400, "StackValidationFailed", "other") is None
    assert refusal_problem(HEAT, ["message"], 400, "ValueError", "other")
