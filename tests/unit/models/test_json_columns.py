"""app.models.base.json_loads: JSON columns read back exactly as the stdlib would read them
(orjson where it agrees, the stdlib where it does not)."""
from __future__ import annotations

import json
import math

import pytest

from app.models.base import json_loads

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


def test_a_json_column_round_trips_through_sqlite(tmp_path: object) -> None:
    from sqlalchemy import JSON, Column, Integer, MetaData, Table, insert, select

    from app.models.base import make_engine
    eng = make_engine(f"sqlite:///{tmp_path}/j.db")
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("v", JSON))
    table.metadata.create_all(eng)
    value = {"big": 2 ** 70, "f": 0.1, "l": [1, "x", None]}
    with eng.begin() as conn:
        conn.execute(insert(table).values(id=1, v=value))
        assert conn.execute(select(table.c.v)).scalar_one() == value
