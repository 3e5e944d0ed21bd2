"""Resource versions and the choice of which version each template resource converges.

A logical resource (a name in the template) has one or more *versions*: rows of the resource table.
Replacement inserts a new version (``replaces`` / ``replaced_by``) instead of mutating the old one,
so create-before-delete, rollback to the old physical resource and recovery from a failed
replacement need no special cases (``reference/heat-study.md`` §2.2, §2.7).

Before a traversal the shell reads the stack's versions, calls :func:`select_versions` with the
names of the new template, inserts an ``INIT_COMPLETE`` version for every name in
:attr:`Selection.missing` (``template_id`` = the new template), and then builds the graph
(:func:`thermik.engine.graph.build_graph`) from all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from thermik.engine.states import Action, State, Status

#: Primary key of a resource version row.
VersionId = int
#: Primary key of a stored (raw) template.
TemplateId = int


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceVersion:
    """What the engine needs to know about one version row of a resource.

    Attributes:
        id: the row's primary key.
        name: the logical resource name in the template.
        state: the row's action and status.
        template_id: the template the row was last converged to (Heat's current_template_id).
        requires: ids of the versions this one depended on when last converged.
        replaces: the version this one was created to replace.
        replaced_by: the version created to replace this one.
    """

    id: VersionId
    name: str
    state: State
    template_id: TemplateId | None = None
    requires: frozenset[VersionId] = frozenset()
    replaces: VersionId | None = None
    replaced_by: VersionId | None = None

    @property
    def deleted(self) -> bool:
        """Whether the version is gone (DELETE_COMPLETE rows only wait to be purged)."""
        return self.state.action is Action.DELETE and self.state.status is Status.COMPLETE


@dataclasses.dataclass(frozen=True, slots=True)
class Selection:
    """The outcome of :func:`select_versions`.

    Attributes:
        chosen: for each template name that has a usable version, the version to converge.
        missing: template names with no usable version: the shell inserts one INIT row each.
    """

    chosen: Mapping[str, VersionId]
    missing: tuple[str, ...]


def version_score(
    version: ResourceVersion,
    *,
    new_template_id: TemplateId,
    current_template_id: TemplateId | None,
) -> tuple[int, int]:
    """Rank a candidate version for its name; higher wins (Heat's ``best_existing_resource``).

    A failed or deleting version loses to a healthy one, a replaced one to its replacement, and a
    version already converged to the target template (a rollback returning to it) beats the live
    one. Ties go to the newer row.
    """
    score = 0
    if version.state.status is Status.FAILED:
        score -= 30
    if version.state.action is Action.DELETE:
        score -= 50
    if version.replaced_by is not None:
        score -= 1
    if current_template_id is not None and version.template_id == current_template_id:
        score += 5
    if version.template_id == new_template_id:
        score += 10
    return score, version.id


def select_versions(
    versions: Iterable[ResourceVersion],
    names: Iterable[str],
    *,
    new_template_id: TemplateId,
    current_template_id: TemplateId | None,
) -> Selection:
    """Choose, for each name of the new template, the existing version to converge.

    Args:
        versions: the stack's versions; DELETE_COMPLETE ones are never chosen.
        names: the resource names of the template being converged to.
        new_template_id: that template.
        current_template_id: the stack's template before this traversal (the live one).
    """
    best: dict[str, tuple[tuple[int, int], VersionId]] = {}
    for version in versions:
        if version.deleted:
            continue
        score = version_score(
            version, new_template_id=new_template_id, current_template_id=current_template_id
        )
        held = best.get(version.name)
        if held is None or score > held[0]:
            best[version.name] = (score, version.id)
    chosen: dict[str, VersionId] = {}
    missing: list[str] = []
    for name in names:
        if name in best:
            chosen[name] = best[name][1]
        else:
            missing.append(name)
    return Selection(chosen, tuple(missing))
