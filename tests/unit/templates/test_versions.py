"""Per-version function tables: derived, frozen, removals are errors naming the version."""
from __future__ import annotations

import itertools
import json
from types import MappingProxyType

import pytest

from app import errors
from app.templates import parse
from app.templates.functions.base import Removed
from app.templates.versions import ALIASES, HOT_VERSIONS, detect, hot_version

from .conftest import SHARED, value

REF = json.loads((SHARED / "heat-reference" / "template_functions.json").read_text()) \
    if (SHARED / "heat-reference" / "template_functions.json").exists() else {}


@pytest.mark.parametrize("date", list(HOT_VERSIONS))
def test_table_matches_heat_listing(date: str) -> None:
    want = [f["functions"] for f in
            REF[f"heat_template_version.{date}"]["functions"]["template_functions"]]
    assert HOT_VERSIONS[date].listed_functions() == want


@pytest.mark.parametrize("date", list(HOT_VERSIONS))
def test_tables_are_frozen(date: str) -> None:
    v = HOT_VERSIONS[date]
    assert isinstance(v.functions, MappingProxyType)
    with pytest.raises(TypeError):
        v.functions["x"] = Removed  # type: ignore[index]


def test_each_table_derives_from_previous() -> None:
    dates = list(HOT_VERSIONS)
    for prev, cur in itertools.pairwise(dates[1:]):  # 2013-05-23 is the CFN-flavoured root
        assert set(HOT_VERSIONS[prev].functions) <= set(HOT_VERSIONS[cur].functions), cur


def test_aliases() -> None:
    assert dict(ALIASES) == {"newton": "2016-10-14", "ocata": "2017-02-24",
                             "pike": "2017-09-01", "queens": "2018-03-02",
                             "rocky": "2018-08-31", "wallaby": "2021-04-16"}
    assert hot_version("rocky") is HOT_VERSIONS["2018-08-31"]


@pytest.mark.parametrize("fn,version", [("Fn::Select", "2015-10-15"), ("Ref", "2014-10-16"),
                                        ("Fn::Join", "2014-10-16"), ("Fn::Base64", "wallaby")])
def test_removed_function_is_error_naming_version(fn: str, version: str) -> None:
    with pytest.raises(errors.TemplateError) as exc:
        value({fn: [1, [2]]}, version)
    assert f"The function {fn} is not supported in this version of HOT" in exc.value.message
    assert exc.value.path[-1] == fn


def test_cfn_functions_in_2013() -> None:
    assert value({"Fn::Select": [1, ["x", "y"]]}, "2013-05-23") == "y"
    assert value({"Fn::Join": ["-", ["a", "b"]]}, "2013-05-23") == "a-b"
    assert value({"Fn::Split": [",", "a,b"]}, "2013-05-23") == ["a", "b"]
    assert value({"Fn::Replace": [{"X": "y"}, "aX"]}, "2013-05-23") == "ay"
    assert value({"Fn::Base64": "p"}, "2013-05-23") == "p"
    assert value({"Ref": "p"}, "2013-05-23", param_defs="parameters:\n  p: {type: string, "
                 "default: v}\n") == "v"
    assert value({"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k",
                                                            ".member.0.Value=v"]]},
                 "2013-05-23") == {"k": "v"}


def test_get_attr_forms_by_version() -> None:
    with pytest.raises(errors.TemplateError, match="must be of the form"):
        parse("heat_template_version: 2015-04-30\nresources:\n  a: {type: OS::Heat::None}\n"
              "outputs:\n  o: {value: {get_attr: [a]}}\n")
    parse("heat_template_version: 2015-10-15\nresources:\n  a: {type: OS::Heat::None}\n"
          "outputs:\n  o: {value: {get_attr: [a]}}\n")


def test_version_detection_errors() -> None:
    with pytest.raises(errors.BadRequest, match="Template format version not found"):
        detect({"resources": {}})
    with pytest.raises(errors.TemplateError) as exc:
        detect({"heat_template_version": "zed"})
    assert exc.value.heat_type == "InvalidTemplateVersion"
    assert "should be one of: 2013-05-23" in exc.value.message and "wallaby" in exc.value.message
    with pytest.raises(errors.TemplateError, match="Ambiguous versions"):
        detect({"heat_template_version": "2018-08-31", "AWSTemplateFormatVersion": "x"})


@pytest.mark.parametrize("date,ok", [("2016-04-08", False), ("2016-10-14", True)])
def test_conditions_section_by_version(date: str, ok: bool) -> None:
    text = f"heat_template_version: {date}\nconditions:\n  c: true\n"
    if ok:
        parse(text)
    else:
        with pytest.raises(errors.TemplateError, match="template section is invalid: conditions"):
            parse(text)


@pytest.mark.parametrize("date,ok", [("2016-10-14", False), ("2017-02-24", True)])
def test_modulo_by_version(date: str, ok: bool) -> None:
    text = (f"heat_template_version: {date}\nparameters:\n  n: {{type: number, default: 1, "
            f"constraints: [{{modulo: {{step: 2, offset: 1}}}}]}}\n")
    if ok:
        parse(text)
    else:
        with pytest.raises(errors.TemplateError, match="No constraint expressed"):
            parse(text)


@pytest.mark.parametrize("date,ok", [("2017-09-01", False), ("2018-03-02", True)])
def test_tags_by_version(date: str, ok: bool) -> None:
    text = f"heat_template_version: {date}\nparameters:\n  n: {{type: string, tags: [a]}}\n"
    if ok:
        parse(text)
    else:
        with pytest.raises(errors.TemplateError, match="Invalid key 'tags'"):
            parse(text)


@pytest.mark.parametrize("date,ok", [("2016-04-08", False), ("2016-10-14", True)])
def test_lowercase_deletion_policy_by_version(date: str, ok: bool) -> None:
    text = f"heat_template_version: {date}\nresources:\n  r: {{type: X, deletion_policy: retain}}\n"
    if ok:
        parse(text)
    else:
        with pytest.raises(errors.TemplateError, match='Invalid deletion policy "retain"'):
            parse(text)


def test_if_one_branch_only_from_wallaby() -> None:
    extra = "conditions:\n  never: false\n"
    assert value({"if": ["never", "x"]}, "wallaby", extra=extra) is None
    with pytest.raises(errors.TemplateError, match="must be of the form"):
        value({"if": ["never", "x"]}, "rocky", extra=extra)
