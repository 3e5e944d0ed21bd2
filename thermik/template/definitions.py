"""Stack definitions: a template applied to an environment, parameters and an identity.

:func:`build_stack` checks everything that can be checked without a cloud (parameters,
conditions, every function's arguments, references to resources, resource types through the
environment, the dependency graph) and returns a :class:`StackDefinition`: the enabled
resources as frozen :class:`ResourceDefinition` values whose properties still hold parsed,
unresolved functions, the outputs, the dependency graph, and the resolution API the engine
uses with its :class:`~thermik.template.context.ResolutionContext`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from thermik.errors import FunctionError, TemplateTooLarge, ThermikError
from thermik.template.budget import Budget, Meter
from thermik.template.constraints import CustomValidator
from thermik.template.context import Identity, ResolutionContext
from thermik.template.environment import Environment
from thermik.template.functions.base import Resolver, Scope, add_references, contains_runtime
from thermik.template.graph import topological_order
from thermik.template.implied import ImpliedRule, StackView, add_implied
from thermik.template.loader import collection_paused
from thermik.template.parameters import Parameters
from thermik.template.registry import KnownTypes, ResolvedType
from thermik.template.template import Template


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ResourceDefinition:
    """One enabled resource of a stack, as written, with functions parsed but unresolved.

    ``properties``, ``metadata`` and ``update_policy`` are mappings (or a function that
    resolves to one); resolve them with :meth:`StackDefinition.resolve_properties` and
    friends. ``deletion_policy`` is canonical (``Delete``, ``Retain`` or ``Snapshot``; an
    ``external_id`` implies ``Retain``). ``resolved`` says which plugin type or template
    implements ``type`` in this stack's environment.
    """

    name: str
    type: str
    properties: Any
    metadata: Any
    depends_on: tuple[str, ...]
    deletion_policy: str
    update_policy: Any
    condition: Any
    external_id: Any
    description: str
    resolved: ResolvedType
    hooks: frozenset[str] = frozenset()
    restricted_actions: frozenset[str] = frozenset()

    def requires(self) -> frozenset[str]:
        """Resources this one depends on: ``depends_on`` plus references in properties and
        metadata (none for an external resource)."""
        if self.external_id is not None:
            return frozenset()
        return frozenset(self.depends_on).union(self.references())

    def references(self) -> set[str]:
        """Resources the properties and metadata refer to."""
        found: set[str] = set()
        add_references(self.properties, found)
        add_references(self.metadata, found)
        return found


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class OutputDefinition:
    """A stack output; a disabled one (false condition) has ``enabled`` false and no value."""

    name: str
    value: Any
    description: str | None = None
    enabled: bool = True


@dataclasses.dataclass(frozen=True, slots=True)
class OutputResult:
    """A resolved output: its value, or the error that prevented resolving it."""

    name: str
    value: Any
    description: str | None = None
    error: ThermikError | None = None


def is_unresolved(value: Any) -> bool:
    """Whether parsed ``value`` holds a function that needs runtime data (``get_attr``,
    ``get_resource``, ``resource_facade``, ...), so it cannot be checked before the stack
    runs. Functions of parameters or files alone are not unresolved."""
    return contains_runtime(value)


class StackDefinition:
    """A stack's definition: resources, outputs, dependencies and the resolution API."""

    def __init__(
        self,
        template: Template,
        environment: Environment,
        parameters: Parameters,
        identity: Identity,
        scope: Scope,
        resources: Mapping[str, ResourceDefinition],
        outputs: Mapping[str, OutputDefinition],
        implied: ImpliedRule | None = None,
    ) -> None:
        self.template = template
        self.environment = environment
        self.parameters = parameters
        self.identity = identity
        self.scope = scope
        self.resources: Mapping[str, ResourceDefinition] = resources
        self.outputs: Mapping[str, OutputDefinition] = outputs
        self._requires: dict[str, frozenset[str]] | None = None
        #: The resource types' own inferred dependencies (see :mod:`thermik.template.implied`).
        self.implied = implied

    @property
    def description(self) -> Any:
        return self.template.description

    @property
    def all_resource_names(self) -> frozenset[str]:
        """Every resource in the template, including those disabled by a condition."""
        return self.scope.all_resources

    def with_implied(self, rule: ImpliedRule) -> StackDefinition:
        """This definition, its dependencies including those ``rule`` infers from the
        resources' types and properties (see :mod:`thermik.template.implied`)."""
        return StackDefinition(
            self.template,
            self.environment,
            self.parameters,
            self.identity,
            self.scope,
            self.resources,
            self.outputs,
            rule,
        )

    def dependencies(self) -> Mapping[str, frozenset[str]]:
        """Resource name -> names of the resources it requires (enabled resources only):
        what it references and lists in ``depends_on``, and what its type infers (the
        :attr:`implied` rule)."""
        if self._requires is None:
            requires = {}
            # Resources requiring the same names share one set (layers where every resource
            # requires a whole previous layer would otherwise hold millions of entries).
            shared: dict[frozenset[str], frozenset[str]] = {}
            # Needs of resources that only list the same ``depends_on`` (checked once).
            listed: dict[tuple[str, ...], frozenset[str]] = {}
            for name, defn in self.resources.items():
                references = defn.references() if defn.external_id is None else None
                needs = listed.get(defn.depends_on) if references == set() else None
                if needs is None:
                    needs = frozenset(filter(self.resources.__contains__, defn.requires()))
                    needs = shared.setdefault(needs, needs)
                    if references == set():
                        listed[defn.depends_on] = needs
                requires[name] = needs
            if self.implied is not None:
                view = StackView(self.resources, dict(requires), self.resolve)
                requires = add_implied(requires, view, self.implied)
            self._requires = requires
        return self._requires

    def required_by(self) -> Mapping[str, frozenset[str]]:
        """Resource name -> names of the resources that require it."""
        # Resources requiring the same set form a group; a resource's users are the union of
        # the groups requiring it, built once per distinct combination of groups.
        groups: dict[frozenset[str], list[str]] = {}
        for name, deps in self.dependencies().items():
            groups.setdefault(deps, []).append(name)
        member_of: dict[str, list[int]] = {name: [] for name in self.resources}
        for index, deps in enumerate(groups):
            for dep in deps:
                member_of[dep].append(index)
        members = list(groups.values())
        shared: dict[tuple[int, ...], frozenset[str]] = {}
        users = {}
        for name, indexes in member_of.items():
            key = tuple(indexes)
            found = shared.get(key)
            if found is None:
                found = shared[key] = frozenset(n for i in key for n in members[i])
            users[name] = found
        return users

    def creation_order(self) -> list[str]:
        """Resources in an order that creates each after what it requires."""
        return topological_order(self.dependencies())

    def meter(self) -> Meter:
        """A fresh account of this template's budget, for an evaluation spanning several
        :meth:`resolve` calls (checking or previewing a whole stack)."""
        return Meter(self.scope.budget)

    def resolve(
        self, value: Any, ctx: ResolutionContext | None = None, meter: Meter | None = None
    ) -> Any:
        """Resolve parsed ``value`` (a removed ``if`` item at the top gives ``None``).

        Without ``ctx`` only static data is available; asking for a resource's id or
        attributes is then an error. The evaluation spends ``meter`` (a fresh one if
        ``None``) and fails with :class:`~thermik.errors.TemplateTooLarge` past its budget.
        """
        try:
            return Resolver(self.scope, ctx, meter).value(value)
        except RecursionError:
            raise TemplateTooLarge("value is nested too deeply to resolve") from None

    def _resolve_map(self, name: str, field: str, ctx: ResolutionContext | None) -> dict[Any, Any]:
        value = getattr(self.resources[name], field)
        result = self.resolve(value, ctx) if value is not None else None
        if result is None:
            return {}
        if not isinstance(result, dict):
            raise FunctionError(
                f"{field} must resolve to a map, not {type(result).__name__}",
                path=("resources", name, field),
                resource=name,
            )
        return result

    def resolve_properties(
        self, name: str, ctx: ResolutionContext | None = None
    ) -> dict[Any, Any]:
        """Resource ``name``'s properties with every function resolved."""
        return self._resolve_map(name, "properties", ctx)

    def resolve_metadata(self, name: str, ctx: ResolutionContext | None = None) -> dict[Any, Any]:
        """Resource ``name``'s template metadata, resolved."""
        return self._resolve_map(name, "metadata", ctx)

    def resolve_external_id(self, name: str) -> str | None:
        """The id of the existing physical resource resource ``name`` refers to, if any
        (``external_id`` resolved: it cannot depend on other resources)."""
        value = self.resources[name].external_id
        if value is None:
            return None
        result = self.resolve(value, None)
        if result is None:
            return None
        if not isinstance(result, str | int) or isinstance(result, bool):
            raise FunctionError(
                f"external_id must resolve to a string, not {type(result).__name__}",
                path=("resources", name, "external_id"),
                resource=name,
            )
        return str(result)

    def resolve_update_policy(
        self, name: str, ctx: ResolutionContext | None = None
    ) -> dict[Any, Any]:
        """Resource ``name``'s update policy, resolved."""
        return self._resolve_map(name, "update_policy", ctx)

    def resolve_output(self, name: str, ctx: ResolutionContext | None = None) -> Any:
        """The value of output ``name`` (``None`` for a disabled output)."""
        output = self.outputs[name]
        return self.resolve(output.value, ctx) if output.enabled else None

    def resolve_outputs(self, ctx: ResolutionContext | None = None) -> dict[str, OutputResult]:
        """Every output resolved; an output that fails carries its error instead of a value
        (as Heat shows ``output_error`` without failing the stack)."""
        results = {}
        for name, output in self.outputs.items():
            try:
                value, error = self.resolve_output(name, ctx), None
            except ThermikError as exc:
                value, error = None, exc
            results[name] = OutputResult(name, value, output.description, error)
        return results


@contextlib.contextmanager
def _depth_guard() -> Iterator[None]:
    # Only reachable when a caller raised the loader's nesting limit far above its default.
    try:
        yield
    except RecursionError:
        raise TemplateTooLarge("template is nested too deeply") from None


def build_stack(
    template: Template,
    environment: Environment | None = None,
    user_params: Mapping[str, Any] | None = None,
    identity: Identity | None = None,
    *,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    known_types: KnownTypes | None = None,
    strict: bool = True,
    budget: Budget | None = None,
) -> StackDefinition:
    """Apply ``template`` to an environment, parameters and identity; check everything.

    ``user_params`` are added on top of the environment's ``parameters`` (the API's
    ``parameters`` field). ``custom_constraints`` maps constraint names to validators
    (``None``: custom constraints are not checked). ``known_types`` tells which built-in
    types exist (``None``: any). With ``strict`` false, parameter values are not required
    or checked (Heat's template-validate behaviour). Every evaluation of the template's
    functions runs under ``budget`` (:class:`~thermik.template.budget.Budget`'s defaults if
    ``None``). The dependencies the resource types infer are added with
    :meth:`StackDefinition.with_implied`.
    """
    from thermik.template.builder import StackBuilder  # noqa: PLC0415 - avoids a cycle

    environment = environment or Environment()
    params = {**environment.parameters, **(user_params or {})}
    with collection_paused(), _depth_guard():
        builder = StackBuilder(
            template,
            environment,
            params,
            identity or Identity(),
            custom_constraints=custom_constraints,
            known_types=known_types,
            strict=strict,
            budget=budget,
        )
        return builder.build()


def deletion_policies(
    template: Template,
    environment: Environment | None = None,
    identity: Identity | None = None,
    budget: Budget | None = None,
) -> Mapping[str, str]:
    """Resource name -> deletion policy (``Delete``/``Retain``/``Snapshot``) of the enabled
    resources of a stored (already validated) template, without building their definitions:
    what deleting a version converged to that template needs to know."""
    from thermik.template.builder import StackBuilder  # noqa: PLC0415 - avoids a cycle

    environment = environment or Environment()
    with collection_paused(), _depth_guard():
        builder = StackBuilder(
            template,
            environment,
            dict(environment.parameters),
            identity or Identity(),
            custom_constraints=None,
            known_types=None,
            strict=True,
            budget=budget,
        )
        return builder.deletion_policies()
