"""Functions that refer to something outside the snippet: parameters, resources, files.

``get_param``, ``get_resource``, ``get_attr`` (three generations: 2013-05-23 selects the path
itself; 2014-10-16 hands the path to the resource; 2015-10-15 adds the all-attributes form),
``get_file`` and ``resource_facade``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.errors import ParameterError
from thermik.template.functions.base import (
    Function,
    Parser,
    Path,
    Resolver,
    add_references,
    contains_runtime,
)
from thermik.template.paths import select_parameter_path, select_path


def missing_parameter(name: str, path: Path = ()) -> ParameterError:
    """The error for a parameter that has no value (Heat's wording)."""
    return ParameterError(f"The Parameter ({name}) was not provided.", path=path, parameter=name)


class GetParam(Function):
    """``get_param: name`` or ``get_param: [name, key-or-index, ...]``."""

    __slots__ = ()
    lookup = True

    def check(self) -> None:
        if not isinstance(self.args, (str, list, Function)):
            raise self.error(f'Argument to "{self.name}" must be string or list')

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not args:
            raise self.error(f'Function "{self.name}" must have arguments')
        if isinstance(args, str):
            pname, steps = args, []
        elif isinstance(args, list):
            pname, steps = args[0], args[1:]
        else:
            raise self.error(f'Argument to "{self.name}" must be string or list')
        if not isinstance(pname, str):
            raise self.error(f'Parameter name in "{self.name}" must be string')
        if pname not in r.scope.parameters:
            # Heat's wording for both undeclared parameters and parameters without a value.
            raise missing_parameter(pname, self.path)
        return select_parameter_path(r.scope.parameters[pname], steps)


class _ResourceRef(Function):
    """A function whose first argument names a resource, known before the stack exists."""

    __slots__ = ("resource",)

    runtime = True
    lookup = True
    resource: str

    @classmethod
    def parse(cls, name: str, raw: Any, path: Path, parser: Parser) -> Any:
        fn = cls(name, parser.parse(raw, path), path)
        fn.resource = fn.static_name(Resolver(parser.scope))
        check_resource(fn, fn.resource, parser)
        return fn

    def name_arg(self) -> Any:
        return self.args

    def static_name(self, r: Resolver) -> str:
        raw = self.name_arg()
        if contains_runtime(raw):
            raise self.error(f'the resource name of "{self.name}" must not depend on resources')
        name = r.value(raw)
        if not isinstance(name, str):
            raise self.error(f'the resource name of "{self.name}" must be a string')
        return name

    def add_references(self, found: set[str]) -> None:
        found.add(self.resource)
        add_references(self.args, found)


def check_resource(fn: Function, name: str, parser: Parser) -> None:
    """Reject a reference to a resource that is undefined or disabled by its condition."""
    scope = parser.scope
    if name in scope.resources:
        return
    why = "is disabled by its condition" if name in scope.all_resources else "is not defined"
    raise fn.error(f'The specified reference "{name}" is incorrect: the resource {why}')


class GetResource(_ResourceRef):
    """``get_resource: name``: the resource's reference id (usually its physical id)."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        return r.ctx.reference_id(self.resource)


class GetAttThenSelect(_ResourceRef):
    """``get_attr: [name, attr, path...]`` of 2013-05-23: read the attribute, then select."""

    __slots__ = ()

    #: Whether ``[name]`` alone means "all attributes".
    allow_all: ClassVar[bool] = False

    def check(self) -> None:
        args = self.args
        if isinstance(args, Function) or not isinstance(args, list):
            raise self.error(f'Argument to "{self.name}" must be a list')
        if not args:
            raise self.error(
                f'Arguments to "{self.name}" can be of the next forms: [resource_name] or '
                "[resource_name, attribute, (path), ...]"
            )
        if len(args) < 2 and not self.allow_all:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form '
                "[resource_name, attribute, (path), ...]"
            )

    def name_arg(self) -> Any:
        return self.args[0]

    def attribute_and_path(self, r: Resolver) -> tuple[str, list[Any]]:
        attr = r.value(self.args[1])
        if not isinstance(attr, str):
            raise self.error(f'the attribute name of "{self.name}" must be a string')
        steps = r.value(self.args[2:])
        return attr, steps

    def evaluate(self, r: Resolver) -> Any:
        attr, steps = self.attribute_and_path(r)
        return select_path(r.ctx.attribute(self.resource, attr, ()), steps)


class GetAtt(GetAttThenSelect):
    """``get_attr`` of 2014-10-16: the resource applies the path (per-path caching)."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        attr, steps = self.attribute_and_path(r)
        return r.ctx.attribute(self.resource, attr, tuple(steps))


class GetAttAllAttributes(GetAtt):
    """``get_attr`` of 2015-10-15 and later: ``[name]`` alone gives every attribute."""

    __slots__ = ()

    allow_all = True

    def evaluate(self, r: Resolver) -> Any:
        if len(self.args) == 1:
            return r.ctx.all_attributes(self.resource)
        return super().evaluate(r)


class GetFile(Function):
    """``get_file: key``: the content stored under ``key`` in the files map.

    A missing file is an error when the value is resolved (as in Heat, where a stack output
    reading a missing file fails alone and a property reading one fails validation).
    """

    __slots__ = ()
    lookup = True

    def check(self) -> None:
        if not isinstance(self.args, (str, Function)):
            raise self.error(f'Argument to "{self.name}" must be a string')

    def content(self, files: Any, key: Any) -> str:
        if not isinstance(key, str):
            raise self.error(f'Argument to "{self.name}" must be a string')
        found = files.get(key)
        if found is None:
            raise self.error(
                f'No content found in the "files" section for {self.name} path: {key}'
            )
        return str(found)

    def evaluate(self, r: Resolver) -> Any:
        return self.content(r.scope.files, r.value(self.args))


class ResourceFacade(Function):
    """``resource_facade: metadata|deletion_policy|update_policy`` of the parent resource."""

    __slots__ = ()
    lookup = True

    runtime = True
    #: Accepted arguments, mapped to the key passed to ``ResolutionContext.facade``.
    KEYS: ClassVar[dict[str, str]] = {
        "metadata": "metadata",
        "deletion_policy": "deletion_policy",
        "update_policy": "update_policy",
    }

    def check(self) -> None:
        if not isinstance(self.args, str) or self.args not in self.KEYS:
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be one of: ' + ", ".join(self.KEYS)
            )

    def evaluate(self, r: Resolver) -> Any:
        return r.ctx.facade(self.KEYS[self.args])
