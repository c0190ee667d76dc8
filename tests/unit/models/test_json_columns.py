"""app.models.connect.json_loads: JSON columns read back exactly as the stdlib would read them
(orjson where it agrees, the stdlib where it does not)."""
from __future__ import annotations

import json
import math

import pytest

from app.models.connect import json_loads

DOCS = [
    '{"a": 1, "b": [1.5, -2e-3, true, null], "c": {"d": "\\u00e9t\\u00e9"}}',
    '{"big": 123456789012345678901234567890}',          # wider than 64 bits: an int, not a float
    '{"max": 9223372036854775807, "min": -9223372036854775808}',
    '{"id": "1234567890123456789012"}',                  # a long run of digits in a string
    '[]',
    '"plain"',
]


@pytest.mark.parametrize("doc", DOCS)
@pytest.mark.parametrize("form", [str, str.encode, lambda d: memoryview(d.encode())])
def test_json_loads_reads_as_the_stdlib(doc: str, form: object) -> None:
    got = json_loads(form(doc))  # type: ignore[operator]
    assert got == json.loads(doc) and type(got) is type(json.loads(doc))


def test_wide_integers_stay_integers() -> None:
    assert json_loads(b'{"n": 123456789012345678901234567890}')["n"] == 123456789012345678901234567890


def test_nan_as_the_stdlib_writes_it_is_read_back() -> None:
    assert math.isnan(json_loads(json.dumps({"x": float("nan")}))["x"])


def test_invalid_json_raises_the_stdlibs_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        json_loads(b"{not json")
