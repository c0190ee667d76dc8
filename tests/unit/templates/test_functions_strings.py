"""str_replace family, list_join, str_split, digest, make_url: values and error paths."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import parse

from .conftest import error, value


@pytest.mark.parametrize("fn", ["str_replace", "str_replace_strict", "str_replace_vstrict"])
def test_str_replace_family_basic(fn: str) -> None:
    assert value({fn: {"template": "a-b", "params": {"a": "x", "b": 2}}}) == "x-2"


def test_str_replace_longest_first_and_no_rescan() -> None:
    assert value({"str_replace": {"template": "foo foobar", "params": {"foo": "1",
                                                                        "foobar": "2"}}}) == "1 2"
    assert value({"str_replace": {"template": "AB", "params": {"A": "B", "B": "C"}}}) == "BC"


def test_str_replace_json_values_by_version() -> None:
    snippet = {"str_replace": {"template": "v=X", "params": {"X": {"k": 1}}}}
    assert value(snippet, "2015-10-15") == 'v={"k": 1}'
    assert "param X is not valid" in error(snippet, "2015-04-30")


def test_str_replace_null_and_bool() -> None:
    assert value({"str_replace": {"template": "a=A b=B", "params": {"A": None,
                                                                      "B": True}}}) == "a= b=True"


def test_str_replace_strict_missing_param() -> None:
    msg = error({"str_replace_strict": {"template": "x", "params": {"q": 1}}})
    assert msg == "The following params were not found in the template: q"


def test_str_replace_vstrict_empty_value() -> None:
    msg = error({"str_replace_vstrict": {"template": "a", "params": {"a": ""}}})
    assert "undefined or empty value for param a" in msg


def test_str_replace_errors_at_parse() -> None:
    with pytest.raises(errors.TemplateError, match='must be a map'):
        value({"str_replace": ["x"]})
    with pytest.raises(errors.TemplateError, match='parameters must be a mapping'):
        value({"str_replace": {"template": "x", "params": [1]}})
    with pytest.raises(errors.TemplateError, match='syntax should be'):
        value({"str_replace": {"template": "x"}})
    assert error({"str_replace": {"template": 1, "params": {}}}) == \
        '"str_replace" template must be a string'


def test_list_join_versions() -> None:
    assert value({"list_join": [",", ["a"], ["b"]]}, "2015-10-15") == "a,b"
    with pytest.raises(errors.TemplateError, match="Incorrect arguments"):
        value({"list_join": [",", ["a"], ["b"]]}, "2015-04-30")
    assert value({"list_join": ["|", [{"a": 1}, [1], None, "s"]]}) == '{"a": 1}|[1]||s'
    assert "must be strings" in error({"list_join": [",", [{"a": 1}]]}, "2015-04-30")


def test_list_join_errors() -> None:
    assert error({"list_join": ["-", [1]]}) == "Items to join must be string, map or list not 1"
    assert error({"list_join": [1, ["a"]]}) == '"list_join" delimiter must be a string'
    assert error({"list_join": [",", "abc"]}) == '"list_join" must operate on a list'


def test_str_split() -> None:
    assert value({"str_split": [",", "a,,b"]}) == ["a", "", "b"]
    assert value({"str_split": ["/", "a/b/c", "1"]}) == "b"
    assert error({"str_split": [",", "a,b", 5]}) == \
        'Incorrect index to "str_split" should be between 0 and 1'
    assert error({"str_split": [",", ["a"]]}) == "'list' object has no attribute 'split'"
    # Heat's StrSplit checks the argument count when it resolves, not when it parses
    assert error({"str_split": [","]}) == ('Incorrect arguments to "str_split" should be: '
                                           '"str_split" : [ ",", "apples,pears", <index>]')
    with pytest.raises(errors.TemplateError, match="Incorrect arguments"):
        parse("heat_template_version: 2021-04-16\noutputs:\n  o: {value: {str_split: ','}}\n")


@pytest.mark.parametrize("alg,length", [("md5", 32), ("sha1", 40), ("sha224", 56),
                                        ("sha256", 64), ("sha384", 96), ("sha512", 128)])
def test_digest(alg: str, length: int) -> None:
    assert len(value({"digest": [alg, "stoker"]})) == length
    assert value({"digest": ["md5", "stoker"]}) == "df4d2c3e738c874bf207999ad2f3afb0"


def test_digest_errors() -> None:
    assert "must be a list of strings" in error({"digest": ["md5", 5]})
    assert "usage" in error({"digest": ["md5"]})
    assert "Algorithm must be one of" in error({"digest": ["crc32", "x"]})


def test_make_url() -> None:
    assert value({"make_url": {"scheme": "https", "username": "u", "password": "p",
                               "host": "example.com", "port": 8443, "path": "/a b/c",
                               "query": {"q": "x y"}, "fragment": "f"}}) == \
        "https://u:p@example.com:8443/a%20b/c?q=x+y#f"
    assert value({"make_url": {"host": "::1", "port": "80", "path": "x",
                               "scheme": "http"}}) == "http://[::1]:80/x"
    assert value({"make_url": {"host": "h"}}) == "//h"


def test_make_url_errors() -> None:
    with pytest.raises(errors.TemplateError, match="Invalid URL port 70000"):
        value({"make_url": {"host": "h", "port": 70000}})
    with pytest.raises(errors.TemplateError, match='Invalid arguments to "make_url": extra'):
        value({"make_url": {"host": "h", "extra": 1}})


def test_get_file() -> None:
    assert value({"get_file": "a.txt"}, files={"a.txt": "hi"}) == "hi"
    assert "No content found" in error({"get_file": "b.txt"})


def test_function_path_in_error() -> None:
    with pytest.raises(errors.TemplateError) as exc:
        parse("heat_template_version: 2021-04-16\nresources:\n  srv:\n    type: X\n"
              "    properties:\n      config:\n        str_replace:\n          template: t\n"
              "          params:\n            $n: {str_split: 'a,b'}\n")
    assert exc.value.path_str == "resources.srv.properties.config.str_replace.params.$n." \
                                 "str_split"
    assert exc.value.line == 10


def test_digest_accepts_sha3_and_blake2_as_heat() -> None:
    """Heat's Digest accepts hashlib's algorithms, not only the sha2 family."""
    import hashlib
    assert value({"digest": ["sha3_256", "x"]}) == hashlib.sha3_256(b"x").hexdigest()
    assert value({"digest": ["BLAKE2b", "x"]}) == hashlib.blake2b(b"x").hexdigest()
    assert error({"digest": ["shake_128", "x"]}).startswith("Algorithm must be one of blake2b, ")
