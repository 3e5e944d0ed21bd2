"""What a cleanup node does with a version its own stored template gives a deletion policy:
``Retain`` keeps the physical resource, ``Snapshot`` lets the plugin keep a copy before the
delete (a volume's backup).

Stored templates never change, so the answer for a template id holds for the engine's life: it
is noted whenever a traversal builds the template's definition anyway, and otherwise read from
the stored template without building its definition (a delete after an update then reads no
template at all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from thermik.actors.recent import RecentTemplates
from thermik.persistence.store import Store
from thermik.resources.context import DELETE_POLICY, StackIdentity
from thermik.template import Environment, Identity, StackDefinition, Template, deletion_policies
from thermik.template.budget import Budget

#: How many templates' answers an engine keeps (each is a map of names, usually empty).
REMEMBERED = 1024
RETAIN = "Retain"

#: Resource name -> deletion policy, for the names whose policy is not ``Delete``.
Policies = Mapping[str, str]


def read_policies(
    store: Store, template_id: int, identity: StackIdentity, budget: Budget | None = None
) -> Policies:
    """The deletion policies (other than ``Delete``) of a stored template, read without
    building its definition (evaluated under ``budget``)."""
    raw = store.get_raw_template(template_id)
    policies = deletion_policies(
        Template.from_document(raw.template, raw.files),
        Environment.from_dict(raw.environment),
        Identity(stack_name=identity.name, stack_id=identity.id, project_id=identity.tenant),
        budget,
    )
    return _kept(policies)


def read_retained(
    store: Store, template_id: int, identity: StackIdentity, budget: Budget | None = None
) -> frozenset[str]:
    """The names a stored template retains."""
    return retained_names(read_policies(store, template_id, identity, budget))


def retained_names(policies: Policies) -> frozenset[str]:
    """The names whose policy is ``Retain``."""
    return frozenset(name for name, policy in policies.items() if policy == RETAIN)


def _kept(policies: Mapping[str, str]) -> Policies:
    return {name: policy for name, policy in policies.items() if policy != DELETE_POLICY}


class Retention:
    """The engine's memory of each template's deletion policies (the most recent ones)."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._known: RecentTemplates[Policies] = RecentTemplates(limit)

    def note(self, template_id: int, definition: StackDefinition) -> None:
        """Remember the policies of a built definition of ``template_id``."""
        self._known.note(
            template_id,
            lambda: _kept({n: r.deletion_policy for n, r in definition.resources.items()}),
        )

    def policies(self, template_id: int, read: Callable[[], Policies]) -> Policies:
        """The policies of ``template_id``; ``read`` them once if not known (the nodes of one
        delete all ask at once: one reads)."""
        return self._known.get(template_id, read)

    def retained(self, template_id: int, read: Callable[[], Policies]) -> frozenset[str]:
        """The names ``template_id`` retains."""
        return retained_names(self.policies(template_id, read))
