"""Template versions as data: what each HOT and CFN version allows.

Every version is one :class:`TemplateVersion` row: its sections, resource and output keys,
deletion policies, parameter syntax and two function tables (general and conditions). The
tables are built by applying each version's changes to the previous one, as Heat's classes
do; nothing else varies between versions.

As in Heat, a function this version removed is an error naming the function, the version
and the place, and any other name the version does not know is data: a one-key map whose key
is a function of another version of the same format (``str_split`` in 2013-05-23) is read as
that map, with a warning naming the place (in a condition it is an error: a condition must
be one of the version's condition functions).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from thermik.errors import FunctionError, TemplateVersionError
from thermik.template.functions import cfn, conditions, lists, query, references, strings
from thermik.template.functions.base import FunctionFactory, Parser, Path

HOT_KEY = "heat_template_version"
CFN_KEY = "AWSTemplateFormatVersion"
HEAT_CFN_KEY = "HeatTemplateFormatVersion"
VERSION_KEYS = (HOT_KEY, CFN_KEY, HEAT_CFN_KEY)

LOG = logging.getLogger(__name__)


def _removed(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    version = parser.scope.version
    raise FunctionError(
        f'The function "{name}" is not supported in {version.label} (it was removed)',
        path=path,
    )


def _unavailable(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    version = parser.scope.version
    raise FunctionError(f'The function "{name}" is not available in {version.label}', path=path)


def _unknown(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    version = parser.scope.version
    where = ".".join(str(part) for part in path[:-1])
    LOG.warning(
        '%s: "%s" is not a function in %s (it is in another version): read as data',
        where,
        name,
        version.label,
    )
    return {name: parser.parse(raw, path)}


def _invalid(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    raise FunctionError(f'The function "{name}" is invalid in this context', path=path)


Table = dict[str, FunctionFactory]


def _in_condition(factory: FunctionFactory) -> FunctionFactory:
    """What a general function is inside a condition: removed stays removed, one of another
    version is unavailable there, any other is invalid in that context."""
    if factory is _removed:
        return _removed
    if factory is _unknown:
        return _unavailable
    return _invalid


_CFN_IN_HOT_2013: Table = {
    "Fn::GetAZs": cfn.GetAZs.parse,
    "Ref": cfn.parse_ref,
    "Fn::Select": cfn.Select.parse,
    "Fn::Join": strings.Join.parse,
    "Fn::Split": cfn.Split.parse,
    "Fn::Replace": cfn.CfnReplace.parse,
    "Fn::Base64": cfn.Base64.parse,
    "Fn::MemberListToMap": cfn.MemberListToMap.parse,
    "Fn::ResourceFacade": cfn.CfnResourceFacade.parse,
}

HOT_FUNCTION_CHANGES: tuple[tuple[str, Table], ...] = (
    (
        "2013-05-23",
        {
            "get_param": references.GetParam.parse,
            "get_resource": references.GetResource.parse,
            "get_attr": references.GetAttThenSelect.parse,
            "list_join": strings.Join.parse,
            "str_replace": strings.Replace.parse,
            "resource_facade": references.ResourceFacade.parse,
            "get_file": references.GetFile.parse,
            **_CFN_IN_HOT_2013,
        },
    ),
    (
        "2014-10-16",
        {
            "get_attr": references.GetAtt.parse,
            **{name: _removed for name in _CFN_IN_HOT_2013 if name != "Fn::Select"},
        },
    ),
    ("2015-04-30", {"repeat": lists.Repeat.parse, "digest": strings.Digest.parse}),
    (
        "2015-10-15",
        {
            "get_attr": references.GetAttAllAttributes.parse,
            "list_join": strings.JoinMultiple.parse,
            "str_replace": strings.ReplaceJson.parse,
            "str_split": strings.StrSplit.parse,
            "Fn::Select": _removed,
        },
    ),
    ("2016-04-08", {"map_merge": lists.MapMerge.parse}),
    (
        "2016-10-14",
        {
            "yaql": query.Yaql.parse,
            "map_replace": lists.MapReplace.parse,
            "if": conditions.parse_if,
            "repeat": lists.RepeatWithMap.parse,
        },
    ),
    (
        "2017-02-24",
        {"filter": lists.Filter.parse, "str_replace_strict": strings.ReplaceJsonStrict.parse},
    ),
    (
        "2017-09-01",
        {
            "make_url": strings.MakeURL.parse,
            "list_concat": lists.ListConcat.parse,
            "list_concat_unique": lists.ListConcatUnique.parse,
            "str_replace_vstrict": strings.ReplaceJsonVeryStrict.parse,
            "contains": lists.Contains.parse,
            "repeat": lists.RepeatWithNestedLoop.parse,
        },
    ),
    ("2018-03-02", {}),
    ("2018-08-31", {}),
    ("2021-04-16", {"if": conditions.parse_if_nullable}),
)

_HOT_CONDITIONS_2016: Table = {
    "get_param": references.GetParam.parse,
    "equals": conditions.Equals.parse,
    "not": conditions.Not.parse,
    "and": conditions.And.parse,
    "or": conditions.Or.parse,
}
HOT_CONDITION_CHANGES: dict[str, Table] = {
    "2016-10-14": _HOT_CONDITIONS_2016,
    "2017-09-01": {"yaql": query.Yaql.parse, "contains": lists.Contains.parse},
}

HOT_ALIASES = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}

#: CFN's functions: the ones HOT 2013-05-23 borrowed, plus FindInMap and GetAtt.
_CFN_BASE: Table = {
    "Fn::FindInMap": cfn.FindInMap.parse,
    "Fn::GetAtt": cfn.CfnGetAtt.parse,
    **_CFN_IN_HOT_2013,
}
_CFN_CONDITIONS: Table = {
    "Fn::Equals": conditions.Equals.parse,
    "Ref": cfn.ParamRef.parse,
    "Fn::FindInMap": cfn.FindInMap.parse,
    "Fn::Not": cfn.CfnNot.parse,
    "Fn::And": conditions.And.parse,
    "Fn::Or": conditions.Or.parse,
}

_DELETION_POLICIES = {"Delete": "Delete", "Retain": "Retain", "Snapshot": "Snapshot"}
_HOT_PARAM_KEYS = frozenset(
    ("type", "description", "default", "schema", "constraints", "hidden", "label", "immutable")
)
_CFN_PARAM_KEYS = frozenset(
    (
        "Type", "Default", "NoEcho", "AllowedValues", "AllowedPattern", "MaxLength",
        "MinLength", "MaxValue", "MinValue", "Description", "ConstraintDescription", "Label",
    )
)  # fmt: skip
_HOT_RESOURCE_KEYS = {
    key: key
    for key in (
        "type", "properties", "metadata", "depends_on", "deletion_policy", "update_policy",
        "description",
    )
}  # fmt: skip
_CFN_RESOURCE_KEYS = {
    "Type": "type",
    "Properties": "properties",
    "Metadata": "metadata",
    "DependsOn": "depends_on",
    "DeletionPolicy": "deletion_policy",
    "UpdatePolicy": "update_policy",
    "Description": "description",
}


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class TemplateVersion:
    """What one template version allows. Canonical field names are HOT's, lower case."""

    key: str
    name: str
    kind: str
    #: canonical section name -> key in the template (``"resources"`` -> ``"Resources"``).
    sections: Mapping[str, str]
    #: key in a resource definition -> canonical field name.
    resource_keys: Mapping[str, str]
    #: key in an output definition -> canonical field name.
    output_keys: Mapping[str, str]
    #: whether unknown keys in resource and output definitions are errors (HOT only).
    strict_keys: bool
    deletion_policies: Mapping[str, str]
    parameter_keys: frozenset[str]
    #: HOT constraint kinds allowed in ``constraints`` (empty for CFN).
    constraint_kinds: tuple[str, ...]
    functions: Mapping[str, FunctionFactory]
    condition_functions: Mapping[str, FunctionFactory]

    @property
    def label(self) -> str:
        """``heat_template_version 2016-10-14``: how errors name the version."""
        return f"{self.key} {self.name}"

    @property
    def is_hot(self) -> bool:
        return self.kind == "hot"

    def section(self, canonical: str) -> str | None:
        """The template key of a canonical section, or ``None`` if this version lacks it."""
        return self.sections.get(canonical)


def _with_unavailable(table: Table, family: set[str]) -> Table:
    return {**{n: _unknown for n in family if n not in table}, **table}


def _condition_table(functions: Table, conditions_: Table) -> Table:
    table: Table = {n: _in_condition(f) for n, f in functions.items()}
    table.update(conditions_)
    return table


def _hot_versions() -> dict[str, TemplateVersion]:
    family = {n for _, changes in HOT_FUNCTION_CHANGES for n in changes}
    functions: Table = {}
    cond: Table = {}
    versions = {}
    for date, changes in HOT_FUNCTION_CHANGES:
        functions = {**functions, **changes}
        cond = {**cond, **HOT_CONDITION_CHANGES.get(date, {})}
        versions[date] = _hot_version(date, _with_unavailable(functions, family), cond)
    return versions


def _hot_version(date: str, functions: Table, cond: Table) -> TemplateVersion:
    newton = date >= "2016-10-14"
    names = ["version", "description", "parameter_groups", "parameters", "resources", "outputs"]
    if newton:
        names.append("conditions")
    sections = {n: (HOT_KEY if n == "version" else n) for n in names}
    resource_keys = dict(_HOT_RESOURCE_KEYS)
    output_keys = {"description": "description", "value": "value"}
    policies = dict(_DELETION_POLICIES)
    if newton:
        resource_keys.update(external_id="external_id", condition="condition")
        output_keys["condition"] = "condition"
        policies.update({p.lower(): p for p in _DELETION_POLICIES})
    kinds = ["range", "length", "allowed_values", "allowed_pattern", "custom_constraint"]
    if date >= "2017-02-24":
        kinds.insert(0, "modulo")
    params = _HOT_PARAM_KEYS | ({"tags"} if date >= "2018-03-02" else set())
    return _frozen(
        (HOT_KEY, date, "hot"),
        (sections, resource_keys, output_keys, policies),
        frozenset(params),
        tuple(kinds),
        (functions, cond),
    )


def _frozen(
    ident: tuple[str, str, str],
    layout: tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, str]],
    parameter_keys: frozenset[str],
    constraint_kinds: tuple[str, ...],
    tables: tuple[Table, Table],
) -> TemplateVersion:
    key, name, kind = ident
    sections, resource_keys, output_keys, policies = (MappingProxyType(t) for t in layout)
    functions, cond = tables
    return TemplateVersion(
        key, name, kind, sections, resource_keys, output_keys, kind == "hot", policies,
        parameter_keys, constraint_kinds, MappingProxyType(functions),
        MappingProxyType(_condition_table(functions, cond)),
    )  # fmt: skip


def _cfn_version(key: str, name: str, with_conditions: bool) -> TemplateVersion:
    family = {*_CFN_BASE, "Fn::If"}
    functions = dict(_CFN_BASE)
    sections = {
        "version": key,
        "alternate_version": HEAT_CFN_KEY if key == CFN_KEY else CFN_KEY,
        "description": "Description",
        "mappings": "Mappings",
        "parameters": "Parameters",
        "resources": "Resources",
        "outputs": "Outputs",
    }
    resource_keys = dict(_CFN_RESOURCE_KEYS)
    output_keys = {"Description": "description", "Value": "value"}
    cond: Table = {}
    if with_conditions:
        functions["Fn::If"] = conditions.parse_if
        sections["conditions"] = "Conditions"
        resource_keys["Condition"] = "condition"
        output_keys["Condition"] = "condition"
        cond = _CFN_CONDITIONS
    functions = _with_unavailable(functions, family)
    return _frozen(
        (key, name, "cfn"),
        (sections, resource_keys, output_keys, dict(_DELETION_POLICIES)),
        _CFN_PARAM_KEYS,
        (),
        (functions, cond),
    )


def _all_versions() -> dict[tuple[str, str], TemplateVersion]:
    hot = _hot_versions()
    table = {(HOT_KEY, date): version for date, version in hot.items()}
    table.update({(HOT_KEY, alias): hot[date] for alias, date in HOT_ALIASES.items()})
    table[(CFN_KEY, "2010-09-09")] = _cfn_version(CFN_KEY, "2010-09-09", with_conditions=True)
    table[(HEAT_CFN_KEY, "2012-12-12")] = _cfn_version(
        HEAT_CFN_KEY, "2012-12-12", with_conditions=False
    )
    return table


#: Every accepted ``(version key, value)``, aliases included.
VERSIONS: Mapping[tuple[str, str], TemplateVersion] = MappingProxyType(_all_versions())


def detect_version(document: Mapping[Any, Any]) -> TemplateVersion:
    """The version a template document declares, or :class:`TemplateVersionError`."""
    present = [k for k in VERSION_KEYS if isinstance(document.get(k), str)]
    if len(present) > 1:
        raise TemplateVersionError("Ambiguous versions (" + ", ".join(present) + ")")
    if not present:
        raise TemplateVersionError(
            "Template version was not provided: set heat_template_version (HOT) or "
            "AWSTemplateFormatVersion (CFN)"
        )
    key = present[0]
    value = document[key]
    version = VERSIONS.get((key, value))
    if version is None:
        allowed = sorted(v for k, v in VERSIONS if k == key)
        # Heat's wording: the message names the key and value itself, so no path precedes it.
        raise TemplateVersionError(
            f'The template version is invalid: "{key}: {value}". "{key}" should be one of: '
            + ", ".join(allowed)
        )
    return version
