"""The decisions a resource actor makes about one node, apart from the messaging around them.

Which action a node really performs given its row, whether an update needs a replacement,
which properties and attributes apply, what a settled row records: small functions over the
row, the plan and the store, used by :class:`~thermik.actors.node.NodeWork`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

from thermik.actors import steps, suspension
from thermik.actors.plan import TraversalPlan, plugin_class
from thermik.actors.resolution import NodeResolution
from thermik.actors.retention import RETAIN, read_policies
from thermik.actors.services import Services
from thermik.actors.stored import split_attribute_key
from thermik.engine.messages import CheckResource
from thermik.engine.operations import TIMED_OUT, NodeAction
from thermik.engine.states import Action, Status
from thermik.errors import ActionAborted, PluginError, ThermikError
from thermik.persistence.resource_values import Resource, ResourceChanges
from thermik.persistence.store import Store
from thermik.persistence.values import KEEP, Keep
from thermik.resources.context import DELETE_POLICY, StackIdentity
from thermik.resources.net_constraints import PURE_CONSTRAINTS
from thermik.resources.plugin import Operation, Props, ResourcePlugin
from thermik.resources.schema import declared_secrets
from thermik.resources.template_resource import TemplateResource
from thermik.template import StackDefinition
from thermik.template.definitions import ResourceDefinition
from thermik.template.registry import is_template_name

#: Node actions that observe or change a live resource without converging its definition.
OBSERVATIONS = {
    NodeAction.CHECK: Operation.CHECK,
    NodeAction.SUSPEND: Operation.SUSPEND,
    NodeAction.RESUME: Operation.RESUME,
    NodeAction.SNAPSHOT: Operation.SNAPSHOT,
}
#: Node actions after which a version is converged to the traversal's template.
_CONVERGING = frozenset({NodeAction.CREATE, NodeAction.ADOPT, NodeAction.UPDATE})


def effective_action(action: NodeAction, row: Resource) -> NodeAction:
    """What the node does with the row as found: creating a created version updates it."""
    if action in (NodeAction.CREATE, NodeAction.ADOPT) and row.action != Action.INIT.value:
        return NodeAction.UPDATE
    return action


def observed_already(operation: Operation, row: Resource) -> bool:
    """Whether the version is suspended (resumed) already when a suspend (resume) reaches it:
    the traversal was resumed after a stop, or retries one that failed half way. As in Heat,
    that is no failure; there is nothing left to do for it."""
    settled = (row.action, row.status) == (operation.value, Status.COMPLETE.value)
    return settled and operation in (Operation.SUSPEND, Operation.RESUME)


def definition(plan: TraversalPlan) -> StackDefinition:
    """The definition the traversal converges to (update nodes always have one)."""
    if plan.definition is None:
        raise PluginError(f"{plan.operation.value} has no template to converge to")
    return plan.definition


def plugin_for(services: Services, plan: TraversalPlan, name: str) -> type[ResourcePlugin]:
    """The plugin class of resource ``name`` in the traversal's template."""
    return plugin_class(services.registry, definition(plan), name)


def release_dead(services: Services, plan: TraversalPlan | None, row: Resource) -> Resource:
    """Release the lock of a dead engine on ``row`` (see :func:`suspension.release_dead`)."""
    try:
        plugin: type[ResourcePlugin] | None = stored_plugin(services, plan, row)
    except ThermikError:
        plugin = None
    return suspension.release_dead(services.store, row, plugin)


def stored_plugin(
    services: Services, plan: TraversalPlan | None, row: Resource
) -> type[ResourcePlugin]:
    """The plugin class of a stored version, for acting on what it is (delete, suspend...).

    A template resource is known from the version's own template; when that cannot be built,
    a type that is no plugin but names a template gets the unbound template resource class
    (its child's id is all a delete needs).
    """
    found = None
    template_id = row.current_template_id
    # A template known to map no type would only confirm the row's own type.
    if plan is not None and (template_id is None or not services.plain.is_plain(template_id)):
        try:
            found = plan.definition_for(template_id)
        except ThermikError:
            found = None
    if found is not None and row.name in found.resources:
        resource = found.resources[row.name]
        if resource.type == row.resource_type:
            return plugin_class(services.registry, found, row.name)
    if row.resource_type not in services.registry and is_template_name(row.resource_type):
        return TemplateResource
    return services.registry.get(row.resource_type, resource=row.name)


def type_of(plan: TraversalPlan, row: Resource) -> str:
    """The resource type as written in the template the row converges to."""
    if plan.definition is not None and row.name in plan.definition.resources:
        return plan.definition.resources[row.name].type
    return row.resource_type


def resolve(
    store: Store, plan: TraversalPlan, check: CheckResource, plugin_cls: type[ResourcePlugin]
) -> Props:
    """Resolve and validate the properties of ``check``'s resource from its input data; a
    resource holding a secret its plugin declares is refused by a store without a key."""
    context = NodeResolution(check.input_data, plan.stored)
    stack = definition(plan)
    raw = stack.resolve_properties(check.name, context)
    path = ("resources", check.name, "properties")
    try:
        props = plugin_cls.check_properties(raw, path=path, custom_constraints=PURE_CONSTRAINTS)
        schemas = (plugin_cls.properties_schema, plugin_cls.attributes_schema)
        for section, name in declared_secrets(*schemas, props):
            store.require_encryption("resources", check.name, section, name)
    except ThermikError as error:
        if stack.resources[check.name].external_id is not None:
            # Adopted, never made from its properties: Heat does not check them (a server
            # named by external_id needs no flavor).
            return dict(raw)
        error.resource = check.name
        raise
    return props


def requires_during(row: Resource, check: CheckResource) -> tuple[int, ...] | Keep:
    """While converging, a version requires its old and its new dependencies (as Heat does);
    :data:`KEEP` when that is what the row holds already."""
    new = check.input_data.version_ids
    # Equal tuples first: a version updated in place keeps its dependencies, and a layer's
    # members compare hundreds of ids each.
    if new == row.requires or set(row.requires).issuperset(new):
        return KEEP
    if not row.requires:
        return new
    return tuple(sorted(set(new).union(row.requires)))


def requires_after(row: Resource, check: CheckResource) -> tuple[int, ...] | Keep:
    """After converging, a version requires its new dependencies only."""
    new = check.input_data.version_ids
    if new == row.requires or (len(new) == len(row.requires) and set(new) == set(row.requires)):
        return KEEP
    return new


def replacement_needed(
    services: Services, row: Resource, plugin_cls: type[ResourcePlugin], plan: TraversalPlan
) -> str | None:
    """Why an update must replace the version instead of updating it, or ``None``."""
    if row.status == Status.FAILED.value and plugin_cls.replace_if_failed:
        return f"{row.name} is {row.action}_FAILED"
    old, new = row.resource_type, type_of(plan, row)
    same_plugin = old in services.registry and services.registry.get(old) is plugin_cls
    if old != new and not same_plugin:
        return f"the type of {row.name} changed from {old} to {new}"
    return None


def stored_props(
    store: Store, plan: TraversalPlan | None, row: Resource, plugin_cls: type[ResourcePlugin]
) -> Props | None:
    """The properties a version was last converged with.

    ``None`` when none were stored and the version has no physical resource (its action
    failed before the plugin ran): there is then nothing for the plugin to act on.
    """
    if plan is None:
        stored = store.get_resource_properties(row.id)
    else:
        stored = plan.properties_of(store, row)
    if stored is not None:
        return stored
    if row.physical_resource_id is None:
        return None
    try:
        return plugin_cls.check_properties({})
    except ThermikError:
        return {}


def retained(services: Services, plan: TraversalPlan, row: Resource) -> bool:
    """Whether the version's own template says ``deletion_policy: Retain``."""
    return deletion_policy(services, plan, row) == RETAIN


def deletion_policy(services: Services, plan: TraversalPlan, row: Resource) -> str:
    """The deletion policy the version's own template gives it (``Delete`` when unknown)."""
    template_id = row.current_template_id
    if template_id is None:
        return DELETE_POLICY
    if template_id == plan.template_id and plan.definition is not None:
        found = plan.definition.resources.get(row.name)
        return DELETE_POLICY if found is None else found.deletion_policy
    try:
        policies = services.retention.policies(
            template_id,
            lambda: read_policies(services.store, template_id, plan.stack, services.budget),
        )
    except ThermikError:
        return DELETE_POLICY
    return policies.get(row.name, DELETE_POLICY)


def attribute_names(plugin: ResourcePlugin, referenced: Iterable[str] | None) -> list[str]:
    """The attributes resolved when an update node completes: the schema's (but the plugin's
    lazy ones no successor reads), plus any other name successors read (dynamic attributes),
    plus the path keys successors read when the plugin applies paths itself (for any other
    plugin, following the path into the whole value gives the same answer)."""
    lazy = plugin.lazy_attributes if referenced is not None else frozenset()
    names = [name for name in plugin.attributes_schema if name not in lazy]
    if referenced is not None:
        wanted = set(referenced) - set(names)
        if type(plugin).attribute is ResourcePlugin.attribute:
            wanted = {key for key in wanted if not split_attribute_key(key)[1]}
        names.extend(sorted(wanted))
    return names


def adopt_entry(plan: TraversalPlan, name: str) -> Mapping[str, Any]:
    """The adopt data of resource ``name``."""
    entry = (plan.adopt or {}).get(name)
    if not isinstance(entry, Mapping) or not entry.get("resource_id"):
        raise PluginError("Resource ID was not provided.", resource=name, kind="Exception")
    return entry


def adopt(call: steps.Call, entry: Mapping[str, Any]) -> steps.Completed:
    """Take over the physical resource of ``entry`` (an executor step)."""
    call.ctx.set_physical_id(str(entry["resource_id"]))
    for key, value in (entry.get("resource_data") or {}).items():
        call.ctx.data.set(str(key), value if isinstance(value, str) else json.dumps(value))
    return steps.attribute_values(call)


def previous_definition(plan: TraversalPlan, row: Resource) -> ResourceDefinition | None:
    """The resource as the template the version was last converged to defines it."""
    try:
        before = plan.definition_for(row.current_template_id)
    except ThermikError:
        return None
    if before is None:
        return None
    return before.resources.get(row.name)


def external_ids(plan: TraversalPlan, row: Resource) -> tuple[str | None, str | None]:
    """The ``external_id`` the version was converged with, and the one of the template the
    traversal converges to (``None`` where the resource is Thermik's own)."""
    new = definition(plan).resolve_external_id(row.name)
    old = None
    if previous_definition(plan, row) is not None:
        before = plan.definition_for(row.current_template_id)
        try:
            old = before.resolve_external_id(row.name) if before is not None else None
        except ThermikError:
            old = None
    return old, new


def restores_replaced(check: CheckResource, row: Resource) -> bool:
    """Whether a rollback converges a version a failed replacement was to replace: as in
    Heat's convergence engine, the original is then updated in place (``UPDATE_COMPLETE``,
    same physical resource) even when nothing about it changed."""
    return check.operation is Action.ROLLBACK and row.replaced_by is not None


def depends_on_changed(plan: TraversalPlan, row: Resource) -> bool:
    """Whether the resource's ``depends_on`` differs from the one it was converged with: as
    in Heat, that alone updates it (in place, with no property changed)."""
    before = previous_definition(plan, row)
    if before is None or row.current_template_id == plan.template_id:
        return False
    return before.depends_on != definition(plan).resources[row.name].depends_on


def external_id_changed(row: Resource, plan: TraversalPlan) -> PluginError:
    """Heat's refusal of an update that changes (sets, or drops) a resource's external_id."""
    kind = type_of(plan, row)
    return PluginError(
        f"Update to property external_id of {row.name} ({kind}) is not supported.",
        resource=row.name,
        kind="NotSupported",
    )


def adopt_external(call: steps.Call, external_id: str) -> steps.Pending | steps.Completed:
    """Take over the existing physical resource ``external_id`` (an executor step), as Heat
    does for a resource with an ``external_id``: the plugin creates nothing; one that can
    check its resource checks that it is there (a cloud type fetches it)."""
    call.ctx.set_physical_id(external_id)
    if not type(call.plugin).checks():
        return steps.attribute_values(call)
    return steps.start(call)


def restore_data(
    plan: TraversalPlan, check: CheckResource, call: steps.Call | None
) -> Mapping[str, str] | None:
    """The snapshot data to give the plugin once the node converged, if it is a restore's and
    the plugin restores anything (``None``: complete the node now)."""
    if plan.snapshot is None or call is None or call.operation is Operation.RESTORE:
        return None
    if not converges(check) or type(call.plugin).restore is ResourcePlugin.restore:
        return None
    entry = plan.snapshot.get(check.name)
    if not isinstance(entry, Mapping) or entry.get("type") != call.ctx.resource_type:
        return None
    data = entry.get("resource_data")
    if not isinstance(data, Mapping):
        return {}
    return {
        str(key): value if isinstance(value, str) else json.dumps(value)
        for key, value in data.items()
    }


def physical_change(call: steps.Call | None) -> str | Keep | None:
    """The physical id to store: what the plugin set, else :data:`KEEP`."""
    if call is None or not call.ctx.physical_id_changed:
        return KEEP
    return call.ctx.physical_id


def converges(check: CheckResource) -> bool:
    """Whether the node converges its version to the traversal's template."""
    return check.node.is_update and check.action in _CONVERGING


def completion_changes(
    row: Resource, check: CheckResource, plan: TraversalPlan, call: steps.Call | None
) -> ResourceChanges:
    """What a successful node records on its row besides the state."""
    physical = physical_change(call)
    if not converges(check):
        return ResourceChanges(physical_resource_id=physical)
    return ResourceChanges(
        physical_resource_id=physical,
        requires=requires_after(row, check),
        current_template_id=plan.template_id,
        replaced_by=None if row.replaced_by is not None else KEEP,
    )


def restore_previous(store: Store, row: Resource, previous: Resource) -> Resource:
    """Unlock a row an update locked but left untouched, back to its state before."""
    changes = ResourceChanges(
        action=previous.action,
        status=previous.status,
        status_reason=previous.status_reason,
        requires=previous.requires,
    )
    key = store.unlock_resource(row.id, row.engine_id or "", row.atomic_key, changes)
    return dataclasses.replace(previous, atomic_key=key, engine_id=None)


def aborted(
    row: Resource | None, name: str, why: str, task: str, waited: str | None = None
) -> ActionAborted:
    """The failure of a node the stack cancelled, in Heat's words: ``UPDATE aborted``, with the
    cause in brackets; a deadline's names the ``task`` that ran out of time, as Heat does:
    ``CREATE aborted (Task create from TestResource "web" Stack "s" [<id>] Timed out)``, and
    what the action waited for when a cloud service did not answer (``waited``)."""
    action = row.action if row is not None else "action"
    if why == TIMED_OUT:
        why = f"Task {action.lower()} from {task} {why}"
    text = f"{action} aborted ({why})" if why else f"{action} aborted"
    if waited:
        text = f"{text} waiting for the cloud: {waited}"
    return ActionAborted(text, resource=name)


def task_name(plugin: str, row: Resource | None, name: str, stack: StackIdentity) -> str:
    """How Heat names a resource in a task: ``TestResource "web" [<physical id>] Stack "s"
    [<stack id>]`` (the physical id the version had when its action started, if any)."""
    physical = row.physical_resource_id if row is not None else None
    where = f"[{physical}] " if physical else ""
    return f'{plugin} "{name}" {where}Stack "{stack.name}" [{stack.id}]'


def check_unsupported(row: Resource) -> str:
    """Heat's reason for a version a stack CHECK cannot check (its plugin has no check)."""
    return f"{Action.CHECK.value} not supported for {row.resource_type}"
