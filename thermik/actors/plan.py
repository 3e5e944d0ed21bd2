"""What every node of one traversal shares: the stack definition and the rows it started from.

A :class:`TraversalPlan` travels in every :class:`~thermik.engine.messages.RunNode` of its
traversal, so a resource actor finds the definition, the attributes its successors need and a
lock hint for its row without reading the stack, the template or its siblings again.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from thermik.actors.stored import StoredResolution, attribute_key
from thermik.engine.states import Action
from thermik.persistence.resource_values import Resource
from thermik.persistence.store import Store
from thermik.resources.context import StackIdentity
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import ResourcePlugin
from thermik.resources.registry import Registry
from thermik.resources.template_resource import TemplateResource
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack
from thermik.template.budget import Budget
from thermik.template.functions.base import Function
from thermik.template.functions.references import GetAtt, GetAttThenSelect
from thermik.template.loader import load_document

#: A resource whose whole attribute set is referenced (``get_attr: [name]`` or a computed name).
EVERY_ATTRIBUTE: frozenset[str] | None = None


def load_definition(
    store: Store,
    template_id: int,
    identity: StackIdentity,
    registry: Registry,
    budget: Budget | None = None,
) -> StackDefinition:
    """Build the stack definition of a stored template (already validated by the service);
    its functions are evaluated under ``budget``."""
    raw = store.get_raw_template(template_id)
    return build_stack(
        Template.from_document(raw.template, raw.files),
        Environment.from_dict(raw.environment),
        {},
        Identity(stack_name=identity.name, stack_id=identity.id, project_id=identity.tenant),
        known_types=registry.__contains__,
        budget=budget,
    ).with_implied(registry.implied)


def referenced_attributes(definition: StackDefinition) -> dict[str, frozenset[str] | None]:
    """For each resource, the attributes other resources' definitions and the outputs read.

    ``None`` (:data:`EVERY_ATTRIBUTE`) when the whole set may be read. Successors receive only
    these values in the join's node data; anything else is read from the store on demand.
    A ``get_attr`` whose plugin applies the path itself (2014-10-16 and later, with a literal
    path) also names the :func:`~thermik.actors.stored.attribute_key` of attribute and path.
    """
    found: dict[str, set[str] | None] = {}
    readers = [[r.properties, r.metadata] for r in definition.resources.values()]
    # Outputs read attributes too (a deployment's declared outputs exist only by name).
    readers.append([output.value for output in definition.outputs.values()])
    for fn in _functions(readers):
        if not isinstance(fn, GetAttThenSelect):
            continue
        args = fn.args if isinstance(fn.args, list) else []
        held = found.setdefault(fn.resource, set())
        if held is None:
            continue
        if len(args) >= 2 and isinstance(args[1], str):
            held.add(args[1])
            path = args[2:]
            if path and isinstance(fn, GetAtt) and all(_literal_step(step) for step in path):
                held.add(attribute_key(args[1], path))
        else:
            found[fn.resource] = None
    return {name: None if attrs is None else frozenset(attrs) for name, attrs in found.items()}


def _literal_step(step: Any) -> bool:
    return isinstance(step, str | int) and not isinstance(step, bool)


def _functions(value: Any) -> Iterator[Function]:
    """Every function call in parsed template data, nested ones included."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, Function):
            yield item
            pending.append(item.args)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def plugin_class(
    registry: Registry, definition: StackDefinition, name: str
) -> type[ResourcePlugin]:
    """The plugin class implementing resource ``name`` of ``definition``.

    A nested-stack type is bound to the stack's files (its child gets them); a template
    resource gets the class of its template.
    """
    resolved = definition.resources[name].resolved
    files = definition.template.files
    if resolved.is_template:
        assert resolved.template is not None
        defaulted = frozenset(definition.environment.parameter_defaults)
        return _template_class(resolved.template, defaulted).bind_files(files)
    plugin = registry.get(resolved.implementation, resource=name)
    if issubclass(plugin, NestedStackResource):
        return plugin.bind_files(files)
    return plugin


@functools.lru_cache(maxsize=256)
def _template_class(text: str, defaulted: frozenset[str]) -> type[TemplateResource]:
    """The plugin class of the template resources of one template text (parsed once) in a
    stack whose ``parameter_defaults`` name ``defaulted``."""
    return TemplateResource.for_template(load_document(text), {}, defaulted)


class DefinitionCache:
    """Definitions of the templates the versions of a stack were converged to, built once."""

    def __init__(self, build: Callable[[int], StackDefinition]) -> None:
        self._build = build
        self._built: dict[int, StackDefinition] = {}
        self._lock = threading.Lock()

    def get(self, template_id: int) -> StackDefinition:
        """The definition of ``template_id`` (built on first use)."""
        with self._lock:
            found = self._built.get(template_id)
            if found is None:
                found = self._build(template_id)
                self._built[template_id] = found
            return found

    def seed(self, template_id: int, definition: StackDefinition) -> None:
        """Remember a definition built elsewhere."""
        with self._lock:
            self._built.setdefault(template_id, definition)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class TraversalPlan:
    """The shell context of one traversal.

    Attributes:
        traversal_id: the traversal.
        operation: what it does.
        stack: the stack's identity (for contexts and events).
        root_id: the stack's root (for new rows).
        template_id: the template converged to (``None`` for delete and abandon).
        definition: that template's definition (``None`` for delete and abandon).
        referenced: per resource, the attributes successors need (see
            :func:`referenced_attributes`).
        rows: the rows read when the traversal started: lock hints, never trusted blindly.
        properties: the stored properties of those rows, read with them.
        definitions: definitions of other templates (a cleanup node's deletion policy).
        stored: stored attribute values of the stack, for data the join does not carry.
        adopt: ADOPT: the ``resources`` map of the adopt data.
        snapshot: RESTORE: the ``resources`` map of the snapshot's data.
        closed: set once the traversal is over: queued nodes of it are dropped.
    """

    traversal_id: str
    operation: Action
    stack: StackIdentity
    root_id: str
    template_id: int | None
    definition: StackDefinition | None
    referenced: Mapping[str, frozenset[str] | None]
    rows: Mapping[int, Resource]
    properties: Mapping[int, Mapping[str, Any]]
    definitions: DefinitionCache
    stored: StoredResolution
    adopt: Mapping[str, Any] | None = None
    snapshot: Mapping[str, Any] | None = None
    closed: threading.Event = dataclasses.field(default_factory=threading.Event)

    def properties_of(self, store: Store, row: Resource) -> Mapping[str, Any] | None:
        """The stored properties of ``row``: read at the start if ``row`` is the row read then
        (a row that moved on since is read again)."""
        if self.rows.get(row.id) is row:
            return self.properties.get(row.id)
        return store.get_resource_properties(row.id)

    def definition_for(self, template_id: int | None) -> StackDefinition | None:
        """The definition of ``template_id`` (a version's own template), if it can be built."""
        if template_id is None:
            return None
        if template_id == self.template_id:
            return self.definition
        return self.definitions.get(template_id)
