"""``surrogate_refused`` on PostgreSQL knows both refusals of a lone UTF-16 surrogate: the
driver's of a text parameter holding one (it cannot be encoded as UTF-8), and the server's
(SQLSTATE 22P02) of a JSON ``\\ud800`` escape with no pair that it is to parse, as the bulk
inserts' ``json_to_recordset`` does; another invalid text, or a NUL, is not one."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import text

from app.models import read_session, surrogate_refused


def _refusal(sql: str, **params: Any) -> Exception:
    with read_session() as s, pytest.raises(Exception) as caught:
        s.execute(text(sql), params)
    return caught.value


def test_a_lone_surrogate_in_a_text_parameter_is_a_surrogate_refusal(pg_db: Any) -> None:
    err = _refusal("SELECT CAST(:v AS TEXT)", v="a\ud800b")
    assert isinstance(err, UnicodeEncodeError)
    assert surrogate_refused(err)


@pytest.mark.parametrize("escaped", ["\\ud800", "\\udc00", "\\ud800\\ud800"])
def test_a_json_lone_surrogate_the_server_parses_is_a_surrogate_refusal(
        pg_db: Any, escaped: str) -> None:
    err = _refusal("SELECT name FROM json_to_recordset(CAST(:rows AS JSON)) AS r(name text)",
                   rows=f'[{{"name": "r{escaped}x"}}]')
    assert isinstance(err, sa_exc.DataError) and getattr(err.orig, "sqlstate", None) == "22P02"
    assert surrogate_refused(err)


def test_another_invalid_text_or_a_nul_is_not_a_surrogate_refusal(pg_db: Any) -> None:
    assert not surrogate_refused(_refusal("SELECT CAST(:v AS INTEGER)", v="x"))
    assert not surrogate_refused(_refusal("SELECT CAST(:v AS JSON)", v='{"a": }'))
    assert not surrogate_refused(_refusal("SELECT CAST(:v AS TEXT)", v="a\x00b"))
