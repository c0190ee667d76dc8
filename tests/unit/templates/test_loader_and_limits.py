"""Loading: YAML/JSON, Heat's format errors, size limit, billion laughs, nesting, lines."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import parse
from app.templates.loader import MAX_DEPTH, load_mapping, load_text


def test_dates_stay_strings_and_json_first() -> None:
    assert load_text("v: 2018-08-31\n").data == {"v": "2018-08-31"}
    assert load_text('{"a": [1, 2]}').data == {"a": [1, 2]}


@pytest.mark.parametrize("text,message", [
    ("- a\n- b\n", "The template is not a JSON object or YAML mapping."),
    ("just text", "The template is not a JSON object or YAML mapping."),
    ("a: [1,\n", "Error parsing template"),
    ("resources: {}\n", "Template format version not found."),
])
def test_format_errors_are_http_bad_request(text: str, message: str) -> None:
    with pytest.raises(errors.BadRequest) as exc:
        parse(text)
    assert exc.value.heat_type == "HTTPBadRequest"
    assert exc.value.message.startswith("Template not in valid format: ")
    assert message in exc.value.message


def test_max_template_size() -> None:
    text = "heat_template_version: 2018-08-31\ndescription: " + "x" * 200 + "\n"
    with pytest.raises(errors.RequestLimitExceeded, match=r"Template size \(\d+ bytes\) exceeds"):
        parse(text, max_size=100)
    parse(text, max_size=1000)


def test_billion_laughs_refused() -> None:
    lines = ["heat_template_version: 2018-08-31", 'a0: &a0 ["lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 5)}]")
    with pytest.raises(errors.RequestLimitExceeded, match="nodes"):
        parse("\n".join(lines) + "\n")


def test_small_aliases_are_fine() -> None:
    t = parse("heat_template_version: 2018-08-31\nresources:\n  a: &r {type: OS::Heat::None}\n"
              "  b: *r\n")
    assert set(t.resources) == {"a", "b"}


def test_recursive_alias_refused() -> None:
    with pytest.raises((errors.BadRequest, errors.RequestLimitExceeded)):
        load_text("a: &a [*a]\n")


def test_nesting_bounded() -> None:
    deep = "x: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n"
    with pytest.raises(errors.RequestLimitExceeded, match="nesting"):
        load_text(deep)
    with pytest.raises(errors.RequestLimitExceeded, match="nesting"):
        load_text('{"a": ' + "[" * (MAX_DEPTH + 5) + "1" + "]" * (MAX_DEPTH + 5) + "}")
    with pytest.raises((errors.RequestLimitExceeded, errors.BadRequest)):  # libyaml: 400
        load_text("x: " + "[" * 3000 + "]" * 3000)
    with pytest.raises(errors.RequestLimitExceeded):
        load_text('{"a": ' + "[" * 3000 + "]" * 3000 + "}")


def test_locations_recorded() -> None:
    loaded = load_mapping("a:\n  b:\n    - x\n    - y\n")
    assert loaded.locations[("a", "b", 1)] == (4, 7)


def test_preloaded_mapping_accepted() -> None:
    t = parse({"heat_template_version": "2018-08-31", "resources": {}})
    assert t.version == ("heat_template_version", "2018-08-31")
