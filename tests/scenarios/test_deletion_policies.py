"""A plugin's delete learns the deletion policy its version's own template gives it
(``Snapshot`` lets a volume back itself up first); ``Retain`` never reaches the plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from tests.scenarios.runtime_harness import harness_with_types
from thermik.engine.states import Action
from thermik.resources.context import ResourceContext, deletion_policy
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import PropertiesSchema, PropertySchema, Type

TYPE = "Test::PolicyRecorder"


class PolicyRecorder(ResourcePlugin):
    """Records, per resource name, the deletion policy each delete was called with."""

    properties_schema: ClassVar[PropertiesSchema] = {"value": PropertySchema(Type.STRING)}
    deletes: ClassVar[list[tuple[str, str]]] = []
    snapshots_on_delete: ClassVar[bool] = True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        ctx.set_physical_id(f"{ctx.resource_name}-{ctx.version_id}")
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self.deletes.append((ctx.resource_name, deletion_policy(ctx)))
        return None


def _recorder(value: str, policy: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"type": TYPE, "properties": {"value": value}}
    if policy is not None:
        found["deletion_policy"] = policy
    return found


def test_deletes_are_told_the_policy_of_their_own_template(tmp_path: Path) -> None:
    PolicyRecorder.deletes.clear()
    with harness_with_types(tmp_path, {TYPE: PolicyRecorder}) as harness:
        stack_id = harness.create(
            {
                "snap": _recorder("1", "Snapshot"),
                "plain": _recorder("1"),
                "kept": _recorder("1", "Retain"),
            }
        )
        # A replacement's old version is cleaned up with the policy of the template it was
        # made by (read back from the stored template), not the new one's.
        new = harness.template(
            {"snap": _recorder("2"), "plain": _recorder("2", "Snapshot"), "kept": _recorder("1")}
        )
        assert harness.run(stack_id, Action.UPDATE, new) == "UPDATE_COMPLETE"
        assert sorted(PolicyRecorder.deletes) == [("plain", "Delete"), ("snap", "Snapshot")]

        PolicyRecorder.deletes.clear()
        assert harness.run(stack_id, Action.DELETE) == "DELETE_COMPLETE"
        assert sorted(PolicyRecorder.deletes) == [
            ("kept", "Delete"),
            ("plain", "Snapshot"),
            ("snap", "Delete"),
        ]
