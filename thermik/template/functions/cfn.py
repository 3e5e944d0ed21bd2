"""CloudFormation functions: ``Ref``, ``Fn::GetAtt``, ``Fn::Select``, ``Fn::Split``,
``Fn::Replace``, ``Fn::Base64``, ``Fn::MemberListToMap``, ``Fn::ResourceFacade``,
``Fn::GetAZs``, ``Fn::FindInMap`` and ``Fn::Not``.

``Fn::Join``, ``Fn::If``, ``Fn::Equals``, ``Fn::And`` and ``Fn::Or`` share their HOT
counterparts' implementation; the version table maps the names.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
from typing import Any

from thermik.template.functions.base import Function, Parser, Path, Resolver
from thermik.template.functions.conditions import Not
from thermik.template.functions.references import (
    GetAttThenSelect,
    GetResource,
    ResourceFacade,
    check_resource,
    missing_parameter,
)
from thermik.template.functions.strings import Replace, split_within


class ParamRef(Function):
    """``Ref: parameter``: the value of a parameter (pseudo parameters included)."""

    __slots__ = ()
    lookup = True

    def unknown(self, name: Any) -> Exception:
        return self.error(
            f'The specified reference "{name}" is incorrect: no such resource or parameter'
        )

    def evaluate(self, r: Resolver) -> Any:
        pname = r.value(self.args)
        if not isinstance(pname, str) or pname not in r.scope.parameter_names:
            raise self.unknown(pname)
        if pname not in r.scope.parameters:
            raise missing_parameter(pname, self.path)
        return r.scope.parameters[pname]


def parse_ref(name: str, raw: Any, path: Path, parser: Parser) -> Any:
    """``Ref: name``: a resource's reference id when ``name`` is a resource, else a parameter."""
    if isinstance(raw, str) and raw in parser.scope.all_resources:
        fn = GetResource(name, raw, path)
        fn.resource = raw
        check_resource(fn, raw, parser)
        return fn
    return ParamRef.parse(name, raw, path, parser)


class CfnGetAtt(GetAttThenSelect):
    """``Fn::GetAtt: [resource, attribute]``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form [resource_name, attribute]'
            )


class Select(Function):
    """``Fn::Select: [index, list-or-map]``; a missing index gives ``""``.

    A string collection is read as JSON, as Heat does.
    """

    __slots__ = ()
    lookup = True

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.name}" must be of the form [index, collection]')

    def evaluate(self, r: Resolver) -> Any:
        index = r.value(self.args[0])
        collection = r.value(self.args[1])
        if collection == "" or collection is None:
            return ""
        if isinstance(collection, str):
            try:
                collection = json.loads(collection)
            except ValueError as exc:
                raise self.error(f'"{self.name}": {exc}') from None
        if isinstance(collection, dict):
            if not isinstance(index, str):
                raise self.error(f'Index to "{self.name}" must be a string')
            return collection.get(index, "")
        with contextlib.suppress(TypeError, ValueError):
            index = int(index)
        if isinstance(collection, list):
            if not isinstance(index, int):
                raise self.error(f'Index to "{self.name}" must be an integer')
            try:
                return collection[index]
            except IndexError:
                return ""
        raise self.error(f"Arguments to {self.name} not fully resolved")


class Split(Function):
    """``Fn::Split: [delimiter, string]``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be: '
                f'"{self.name}" : [ ",", "str1,str2"]]'
            )

    def evaluate(self, r: Resolver) -> Any:
        delim = self.args[0]
        text = r.value(self.args[1])
        if not isinstance(delim, str) or not delim:
            raise self.error(f"Delimiter for {self.name} must be a non-empty string")
        if not isinstance(text, str):
            raise self.error(f"String to split must be string; got {type(text).__name__}")
        return split_within(self, r.meter, text, delim)


class CfnReplace(Replace):
    """``Fn::Replace: [{key: value}, template]``."""

    __slots__ = ()

    def parts(self, args: Any) -> tuple[Any, Any]:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be: {{"{self.name}": '
                '[ {"$var1": "foo", "%var2%": "bar"}, "$var1 is %var2%"]}'
            )
        return args[0], args[1]


class Base64(Function):
    """``Fn::Base64: string``: returns the string unchanged (Heat takes plain user data)."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        value = r.value(self.args)
        if not isinstance(value, str):
            raise self.error(f'"{self.name}" argument must be a string')
        return value


_MEMBER = re.compile(r"\.member\.([0-9]+)\.(.*)")


class MemberListToMap(Function):
    """``Fn::MemberListToMap: [keyname, valuename, ['.member.0.Name=k', ...]]``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(
                f"Wrong Arguments try: {{'{self.name}': ['Name', 'Value', "
                "['.member.0.Name=key', '.member.0.Value=door']]}"
            )
        if not isinstance(self.args[0], str):
            raise self.error(f"{self.name} Key Name must be a string")
        if not isinstance(self.args[1], str):
            raise self.error(f"{self.name} Value Name must be a string")

    def evaluate(self, r: Resolver) -> Any:
        members = r.value(self.args[2])
        if not isinstance(members, list):
            raise self.error("Member list must be a list")
        pairs: dict[str, str] = {}
        for item in members:
            if not isinstance(item, str) or "=" not in item:
                raise self.error("Member list items must be strings of the form key=value")
            key, value = item.split("=", 1)
            pairs[key] = value
        return self.collect(pairs, self.args[0], self.args[1])

    @staticmethod
    def collect(pairs: dict[str, str], keyname: str, valuename: str) -> dict[str, str]:
        found = []
        for name, value in pairs.items():
            match = _MEMBER.match(name)
            if match:
                found.append((int(match.group(1)), match.group(2), value))
        found.sort(key=lambda item: item[0])
        result = {}
        for _, group in itertools.groupby(found, key=lambda item: item[0]):
            member = {key: value for _, key, value in group}
            if keyname in member and valuename in member:
                result[member[keyname]] = member[valuename]
        return result


class CfnResourceFacade(ResourceFacade):
    """``Fn::ResourceFacade: Metadata|DeletionPolicy|UpdatePolicy``."""

    __slots__ = ()

    KEYS = {
        "Metadata": "metadata",
        "DeletionPolicy": "deletion_policy",
        "UpdatePolicy": "update_policy",
    }


class GetAZs(Function):
    """``Fn::GetAZs: region``: the cloud's availability zones (from the engine)."""

    __slots__ = ()
    lookup = True

    runtime = True

    def evaluate(self, r: Resolver) -> Any:
        return r.ctx.availability_zones()


class FindInMap(Function):
    """``Fn::FindInMap: [mapping, key, value]`` from the ``Mappings`` section."""

    __slots__ = ()
    lookup = True

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 3:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form [mapping, key, value]'
            )

    def evaluate(self, r: Resolver) -> Any:
        mapname, key, value = (r.value(a) for a in self.args)
        try:
            return r.scope.mappings[mapname][key][value]
        except (KeyError, TypeError, IndexError):
            raise self.error(
                f'"{self.name}": no value for {mapname!r} / {key!r} / {value!r} in Mappings'
            ) from None


class CfnNot(Not):
    """``Fn::Not: [condition]``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 1:
            raise self.error(f'Arguments to "{self.name}" must be of the form: [condition]')

    def operand(self) -> Any:
        return self.args[0]
