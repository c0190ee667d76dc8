"""``nul_refused`` on PostgreSQL knows both refusals of a NUL character: the driver's of a
text parameter holding one, and the server's (SQLSTATE 22P05) of a JSON ``\\u0000`` it is to
turn into text, as the bulk inserts' ``json_to_recordset`` does; another data error is not
one."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import text

from app.models import nul_refused, read_session


def _refusal(sql: str, **params: Any) -> sa_exc.DBAPIError:
    with read_session() as s, pytest.raises(sa_exc.DBAPIError) as caught:
        s.execute(text(sql), params)
    return caught.value


def test_a_json_nul_turned_into_text_is_a_nul_refusal(pg_db: Any) -> None:
    err = _refusal("SELECT name FROM json_to_recordset(CAST(:rows AS JSON)) AS r(name text)",
                   rows='[{"name": "r\\u0000x"}]')
    assert getattr(err.orig, "sqlstate", None) == "22P05"
    assert nul_refused(err)


def test_a_nul_in_a_text_parameter_is_a_nul_refusal(pg_db: Any) -> None:
    assert nul_refused(_refusal("SELECT CAST(:v AS TEXT)", v="a\x00b"))


def test_another_data_error_is_not_a_nul_refusal(pg_db: Any) -> None:
    err = _refusal("SELECT CAST(:v AS INTEGER)", v="x")
    assert getattr(err.orig, "sqlstate", None) == "22P02"
    assert not nul_refused(err)
