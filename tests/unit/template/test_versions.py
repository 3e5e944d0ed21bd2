"""Each version offers exactly Heat's sections, keys and functions."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import TemplateVersionError
from thermik.template.versions import VERSIONS, TemplateVersion, detect_version

LIVE = {"_removed", "_unavailable", "_unknown", "_invalid"}


def live(table: Any) -> set[str]:
    return {n for n, f in table.items() if getattr(f, "__name__", "") not in LIVE}


def removed(table: Any) -> set[str]:
    return {n for n, f in table.items() if getattr(f, "__name__", "") == "_removed"}


def hot(name: str) -> TemplateVersion:
    return VERSIONS[("heat_template_version", name)]


CFN_IN_HOT = {
    "Fn::GetAZs", "Ref", "Fn::Select", "Fn::Join", "Fn::Split", "Fn::Replace", "Fn::Base64",
    "Fn::MemberListToMap", "Fn::ResourceFacade",
}  # fmt: skip
H2013 = {"get_param", "get_resource", "get_attr", "list_join", "str_replace", "resource_facade",
         "get_file"} | CFN_IN_HOT  # fmt: skip
H2014 = (H2013 - CFN_IN_HOT) | {"Fn::Select"}
H2015A = H2014 | {"repeat", "digest"}
H2015B = (H2015A - {"Fn::Select"}) | {"str_split"}
H2016A = H2015B | {"map_merge"}
H2016B = H2016A | {"yaql", "map_replace", "if"}
H2017A = H2016B | {"filter", "str_replace_strict"}
H2017B = H2017A | {"make_url", "list_concat", "list_concat_unique", "str_replace_vstrict",
                   "contains"}  # fmt: skip

EXPECTED = {
    "2013-05-23": H2013, "2014-10-16": H2014, "2015-04-30": H2015A, "2015-10-15": H2015B,
    "2016-04-08": H2016A, "2016-10-14": H2016B, "2017-02-24": H2017A, "2017-09-01": H2017B,
    "2018-03-02": H2017B, "2018-08-31": H2017B, "2021-04-16": H2017B,
}  # fmt: skip


@pytest.mark.parametrize(("name", "functions"), sorted(EXPECTED.items()))
def test_hot_functions(name: str, functions: set[str]) -> None:
    assert live(hot(name).functions) == functions


def test_removed_functions() -> None:
    assert removed(hot("2013-05-23").functions) == set()
    assert removed(hot("2014-10-16").functions) == CFN_IN_HOT - {"Fn::Select"}
    assert removed(hot("2015-10-15").functions) == CFN_IN_HOT


@pytest.mark.parametrize(
    ("name", "functions"),
    [
        ("2015-10-15", set()),
        ("2016-10-14", {"get_param", "equals", "not", "and", "or"}),
        ("2017-09-01", {"get_param", "equals", "not", "and", "or", "yaql", "contains"}),
        ("2021-04-16", {"get_param", "equals", "not", "and", "or", "yaql", "contains"}),
    ],
)
def test_hot_condition_functions(name: str, functions: set[str]) -> None:
    assert live(hot(name).condition_functions) == functions


@pytest.mark.parametrize(
    ("alias", "date"),
    [
        ("newton", "2016-10-14"),
        ("ocata", "2017-02-24"),
        ("pike", "2017-09-01"),
        ("queens", "2018-03-02"),
        ("rocky", "2018-08-31"),
        ("wallaby", "2021-04-16"),
    ],
)
def test_aliases(alias: str, date: str) -> None:
    assert hot(alias) is hot(date)


def test_hot_sections_and_keys() -> None:
    old, new = hot("2016-04-08"), hot("2016-10-14")
    assert "conditions" not in old.sections
    assert new.sections["conditions"] == "conditions"
    assert set(old.resource_keys) == {
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "description",
    }
    assert set(new.resource_keys) == set(old.resource_keys) | {"condition", "external_id"}
    assert set(old.output_keys) == {"description", "value"}
    assert set(new.output_keys) == {"description", "value", "condition"}
    assert set(old.deletion_policies) == {"Delete", "Retain", "Snapshot"}
    assert new.deletion_policies["retain"] == "Retain"


def test_parameter_features_by_version() -> None:
    assert "modulo" not in hot("2016-10-14").constraint_kinds
    assert "modulo" in hot("2017-02-24").constraint_kinds
    assert "tags" not in hot("2017-09-01").parameter_keys
    assert "tags" in hot("2018-03-02").parameter_keys


def test_cfn_versions() -> None:
    aws = VERSIONS[("AWSTemplateFormatVersion", "2010-09-09")]
    heat = VERSIONS[("HeatTemplateFormatVersion", "2012-12-12")]
    base = {"Fn::FindInMap", "Fn::GetAZs", "Ref", "Fn::GetAtt", "Fn::Select", "Fn::Join",
            "Fn::Split", "Fn::Replace", "Fn::Base64", "Fn::MemberListToMap",
            "Fn::ResourceFacade"}  # fmt: skip
    assert live(heat.functions) == base
    assert live(aws.functions) == base | {"Fn::If"}
    assert live(aws.condition_functions) == {"Fn::Equals", "Ref", "Fn::FindInMap", "Fn::Not",
                                             "Fn::And", "Fn::Or"}  # fmt: skip
    assert aws.sections["conditions"] == "Conditions"
    assert "conditions" not in heat.sections
    assert aws.resource_keys["DependsOn"] == "depends_on"


def test_detect_version() -> None:
    assert detect_version({"heat_template_version": "pike"}).name == "2017-09-01"
    assert detect_version({"AWSTemplateFormatVersion": "2010-09-09"}).kind == "cfn"


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ({}, "was not provided"),
        ({"heat_template_version": 20130523}, "was not provided"),
        (
            {"heat_template_version": "2013-05-24"},
            r'^The template version is invalid: "heat_template_version: 2013-05-24". '
            r'"heat_template_version" should be one of: 2013-05-23, ',
        ),
        (
            {"heat_template_version": "2013-05-23", "AWSTemplateFormatVersion": "2010-09-09"},
            "Ambiguous versions",
        ),
    ],
)
def test_bad_versions(doc: dict[str, Any], match: str) -> None:
    with pytest.raises(TemplateVersionError, match=match):
        detect_version(doc)
