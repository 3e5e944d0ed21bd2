"""The machinery every intrinsic function shares: parsed nodes, the parser and the resolver.

A template snippet is *parsed* once into plain data with :class:`Function` nodes where a
one-key mapping names a function of the template's version (``{get_param: x}``), and
*resolved* as often as needed, with a :class:`Scope` (what the template itself knows:
parameters, files, mappings, conditions) and a
:class:`~thermik.template.context.ResolutionContext` (what only the engine knows), spending
the scope's :class:`~thermik.template.budget.Budget` on a
:class:`~thermik.template.budget.Meter`.

Some functions are decided while parsing: ``if`` picks its branch from the (static)
conditions, so only that branch is parsed, as in Heat. The 2021-04-16 ``if`` without a
false branch yields :data:`NULL`, which removes the enclosing list item or mapping entry
when resolved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from thermik.errors import FunctionError, PathElement, ThermikError
from thermik.template.budget import Budget, Meter
from thermik.template.context import ResolutionContext, StaticContext

if TYPE_CHECKING:
    from thermik.template.versions import TemplateVersion

Path = tuple[PathElement, ...]


class _Null:
    """The value of an ``if`` without a false branch when its condition is false."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NULL"


#: Marks a value removed by a two-argument ``if``: dropped from lists and mappings.
NULL: Any = _Null()


class ConditionLookup(Protocol):
    """Evaluates condition names for ``if``, ``not``, ``and``, ``or`` and ``condition`` keys."""

    def is_enabled(self, condition: Any, path: Path) -> bool:
        """``condition`` is a bool or a condition name; unknown names are errors at ``path``."""


class Scope:
    """Everything a stack's template knows statically, shared by all its parsed functions."""

    __slots__ = (
        "all_resources",
        "budget",
        "conditions",
        "files",
        "mappings",
        "parameter_names",
        "parameters",
        "resources",
        "version",
    )

    def __init__(
        self,
        version: TemplateVersion,
        *,
        parameters: Mapping[str, Any] | None = None,
        parameter_names: frozenset[str] | None = None,
        files: Mapping[str, str] | None = None,
        mappings: Mapping[Any, Any] | None = None,
        resources: frozenset[str] = frozenset(),
        all_resources: frozenset[str] | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.version = version
        #: Parameter values by name (pseudo parameters included); absent when unknown.
        self.parameters: Mapping[str, Any] = parameters or {}
        #: Every declared parameter name, with or without a value.
        self.parameter_names = (
            frozenset(self.parameters) if parameter_names is None else parameter_names
        )
        self.files: Mapping[str, str] = files or {}
        self.mappings: Mapping[Any, Any] = mappings or {}
        #: Enabled resource names (references to these are allowed).
        self.resources = resources
        #: Every resource name in the template, enabled or not.
        self.all_resources = resources if all_resources is None else all_resources
        self.conditions: ConditionLookup | None = None
        #: The limits every evaluation of this template's functions runs under.
        self.budget = Budget() if budget is None else budget


class Function:
    """A parsed call ``{name: args}``; ``args`` is already parsed.

    Subclasses check the shape of their arguments in :meth:`check` (at parse time), compute
    their value in :meth:`evaluate`, and set :attr:`runtime` when they need data only the
    engine has.
    """

    __slots__ = ("args", "name", "needs_runtime", "path")

    #: Whether this function itself needs runtime data (a resource's id or attributes).
    runtime: ClassVar[bool] = False
    #: Whether its value exists already (a parameter, an attribute, a file): its size is
    #: spent from the evaluation's work but not held to the limit on built values.
    lookup: ClassVar[bool] = False

    def __init__(self, name: str, args: Any, path: Path) -> None:
        self.name = name
        self.args = args
        self.path = path
        self.needs_runtime: bool = self.runtime or contains_runtime(args)
        self.check()

    @classmethod
    def parse(cls, name: str, raw: Any, path: Path, parser: Parser) -> Any:
        """Build the node for ``{name: raw}`` found at ``path`` (``path`` ends with ``name``)."""
        return cls(name, parser.parse(raw, path), path)

    def check(self) -> None:
        """Reject malformed arguments while parsing (raise :meth:`error`)."""

    def evaluate(self, r: Resolver) -> Any:
        """Compute the value; resolve arguments with ``r.resolve``."""
        raise NotImplementedError

    def add_references(self, found: set[str]) -> None:
        """Add the names of the resources this call depends on to ``found``."""
        add_references(self.args, found)

    def error(self, message: str) -> FunctionError:
        """An error at this call's place in the template."""
        return FunctionError(message, path=self.path)

    def to_data(self) -> dict[str, Any]:
        """The call as it would be written in a template."""
        return {self.name: to_data(self.args)}

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, Function)
            and other.name == self.name
            and other.args == self.args
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}: {self.args!r}>"


#: Parses ``{name: raw}`` found at ``path``: a Function's ``parse`` or a special handler.
FunctionFactory = Callable[[str, Any, Path, "Parser"], Any]


class Parser:
    """Turns raw snippets into parsed data using one of a version's function tables."""

    __slots__ = ("functions", "scope")

    def __init__(self, scope: Scope, functions: Mapping[str, FunctionFactory] | None = None):
        self.scope = scope
        self.functions: Mapping[str, FunctionFactory] = (
            scope.version.functions if functions is None else functions
        )

    def parse(self, snippet: Any, path: Path) -> Any:
        """Parse ``snippet`` (found at ``path``) with this parser's functions."""
        if isinstance(snippet, dict):
            if len(snippet) == 1:
                name, raw = next(iter(snippet.items()))
                factory = self.functions.get(name) if isinstance(name, str) else None
                if factory is not None:
                    return factory(name, raw, (*path, name), self)
            return {k: self.parse(v, (*path, _key(k))) for k, v in snippet.items()}
        if isinstance(snippet, list):
            return [self.parse(v, (*path, i)) for i, v in enumerate(snippet)]
        return snippet

    def parse_condition(self, snippet: Any, path: Path) -> Any:
        """Parse a condition: only the version's condition functions are allowed in it."""
        return Parser(self.scope, self.scope.version.condition_functions).parse(snippet, path)


def _key(key: Any) -> PathElement:
    return key if isinstance(key, str) else str(key)


class Resolver:
    """Resolves parsed data: calls functions, drops :data:`NULL` items.

    Every call runs under the scope's budget, spent on ``meter`` (a fresh one unless an
    evaluation spanning several resolvers shares one).
    """

    __slots__ = ("ctx", "meter", "scope")

    def __init__(
        self, scope: Scope, ctx: ResolutionContext | None = None, meter: Meter | None = None
    ) -> None:
        self.scope = scope
        self.ctx: ResolutionContext = StaticContext() if ctx is None else ctx
        self.meter = Meter(scope.budget) if meter is None else meter

    def resolve(self, value: Any) -> Any:
        """Resolve ``value``; the result may be :data:`NULL` (the caller decides)."""
        if isinstance(value, Function):
            return self.call(value)
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                item = self.resolve(v)
                if item is not NULL:
                    out[k] = item
            return out
        if isinstance(value, list):
            return [item for item in map(self.resolve, value) if item is not NULL]
        return value

    def value(self, value: Any) -> Any:
        """Resolve ``value`` where it stands alone: :data:`NULL` becomes ``None``."""
        result = self.resolve(value)
        return None if result is NULL else result

    def call(self, fn: Function) -> Any:
        """Evaluate one function within the budget; unexpected Python errors become errors at
        its place."""
        meter = self.meter
        # The meter's methods, inlined for the common case: this runs for every call.
        if meter.depth >= meter.max_depth:
            meter.enter(fn)
        meter.depth += 1
        try:
            result = fn.evaluate(self)
        except ThermikError:
            raise
        except (TypeError, ValueError, LookupError, AttributeError, ArithmeticError) as exc:
            raise fn.error(f'"{fn.name}": {exc}') from None
        except RecursionError:
            raise fn.error(f'"{fn.name}": value is nested too deeply') from None
        finally:
            meter.depth -= 1
        if type(result) is str and len(result) + 2 <= meter.max_value_size:
            meter.spent += len(result) + 2
            if meter.spent > meter.max_work:
                meter.charge(fn, 0)
        else:
            meter.returned(fn, result)
        return result


def contains_runtime(value: Any) -> bool:
    """Whether parsed ``value`` holds a function that needs runtime data."""
    if isinstance(value, Function):
        return value.needs_runtime
    if isinstance(value, dict):
        return any(contains_runtime(v) for v in value.values())
    if isinstance(value, list):
        return any(contains_runtime(v) for v in value)
    return False


def add_references(value: Any, found: set[str]) -> None:
    """Add the names of the resources parsed ``value`` refers to to ``found``."""
    if isinstance(value, Function):
        value.add_references(found)
    elif isinstance(value, dict):
        for v in value.values():
            add_references(v, found)
    elif isinstance(value, list):
        for v in value:
            add_references(v, found)


def references(value: Any) -> set[str]:
    """Names of the resources parsed ``value`` refers to."""
    found: set[str] = set()
    add_references(value, found)
    return found


def to_data(value: Any) -> Any:
    """Render parsed ``value`` back into template data."""
    if isinstance(value, Function):
        return value.to_data()
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_data(v) for v in value]
    return value
