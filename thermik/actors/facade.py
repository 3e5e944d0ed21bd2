"""``resource_facade`` inside a nested stack: what the parent resource's definition says.

A child stack's template may read its parent resource's ``metadata``, ``update_policy`` and
``deletion_policy`` (Heat's facade). They come from the parent stack's current template, the
metadata and update policy resolved against the parent's stored resources.
"""

from __future__ import annotations

from typing import Any

from thermik.errors import FunctionError, NotFound
from thermik.persistence.store import Store
from thermik.persistence.values import RawTemplate, Stack
from thermik.template import Environment, Identity, StackDefinition, Template, build_stack
from thermik.template.budget import Budget
from thermik.template.context import ResolutionContext

#: The parent stack's id, its definition and the parent resource's name.
Parent = tuple[str, StackDefinition, str]


def parent_definition(store: Store, stack_id: str) -> Parent | None:
    """The parent stack's id, its definition and the parent resource's name (``None`` for a
    top-level stack, or one whose parent is gone)."""
    try:
        stack = store.get_stack(stack_id, show_deleted=True)
        if stack.owner_id is None or stack.parent_resource_name is None:
            return None
        parent = store.get_stack(stack.owner_id, show_deleted=True)
        definition = stack_definition(store, parent)
    except NotFound:
        return None
    if stack.parent_resource_name not in definition.resources:
        return None
    return parent.id, definition, stack.parent_resource_name


def stack_definition(
    store: Store, stack: Stack, raw: RawTemplate | None = None, budget: Budget | None = None
) -> StackDefinition:
    """The definition of ``stack``'s current template (functions unresolved, evaluated under
    ``budget``); ``raw`` is that template when the caller read it already."""
    if raw is None:
        raw = store.get_raw_template(stack.raw_template_id)
    return build_stack(
        Template.from_document(raw.template, raw.files),
        Environment.from_dict(raw.environment),
        None,
        Identity(stack_name=stack.name, stack_id=stack.id, project_id=stack.tenant),
        strict=False,
        budget=budget,
    )


def facade(found: Parent | None, key: str, parent_ctx: ResolutionContext) -> Any:
    """The parent resource's ``key`` (``metadata``, ``update_policy``, ``deletion_policy``).

    Raises:
        FunctionError: the stack is not a nested stack.
    """
    if found is None:
        raise FunctionError(f'resource_facade "{key}" is only available inside a nested stack')
    _, definition, name = found
    if key == "deletion_policy":
        return definition.resources[name].deletion_policy
    if key == "update_policy":
        return definition.resolve_update_policy(name, parent_ctx)
    return definition.resolve_metadata(name, parent_ctx)
