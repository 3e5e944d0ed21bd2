"""Which resources of a stored template are retained on delete (``deletion_policy: Retain``).

A cleanup node must not delete a version its own template retains. Stored templates never
change, so the answer for a template id holds for the engine's life: it is noted whenever a
traversal builds the template's definition anyway, and otherwise read from the stored template
without building its definition (a delete after an update then reads no template at all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from thermik.actors.recent import RecentTemplates
from thermik.persistence.store import Store
from thermik.resources.context import StackIdentity
from thermik.template import Environment, Identity, StackDefinition, Template, deletion_policies
from thermik.template.budget import Budget

#: How many templates' answers an engine keeps (each is a set of names, usually empty).
REMEMBERED = 1024
RETAIN = "Retain"


def read_retained(
    store: Store, template_id: int, identity: StackIdentity, budget: Budget | None = None
) -> frozenset[str]:
    """The names a stored template retains, read without building its definition (its
    deletion policies evaluated under ``budget``)."""
    raw = store.get_raw_template(template_id)
    policies = deletion_policies(
        Template.from_document(raw.template, raw.files),
        Environment.from_dict(raw.environment),
        Identity(stack_name=identity.name, stack_id=identity.id, project_id=identity.tenant),
        budget,
    )
    return _retained(policies)


def _retained(policies: Mapping[str, str]) -> frozenset[str]:
    return frozenset(name for name, policy in policies.items() if policy == RETAIN)


class Retention:
    """The engine's memory of which names each template retains (the most recent ones)."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._known: RecentTemplates[frozenset[str]] = RecentTemplates(limit)

    def note(self, template_id: int, definition: StackDefinition) -> None:
        """Remember what a built definition of ``template_id`` retains."""
        self._known.note(
            template_id,
            lambda: _retained({n: r.deletion_policy for n, r in definition.resources.items()}),
        )

    def retained(self, template_id: int, read: Callable[[], frozenset[str]]) -> frozenset[str]:
        """The names ``template_id`` retains; ``read`` them once if not known (the nodes of
        one delete all ask at once: one reads)."""
        return self._known.get(template_id, read)
