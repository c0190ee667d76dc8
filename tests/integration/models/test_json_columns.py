"""A JSON column round-trips through SQLite with the values the stdlib would read
(app.models.connect.json_loads)."""
from __future__ import annotations


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
