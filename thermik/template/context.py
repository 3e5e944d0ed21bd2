"""What the template layer needs from whoever resolves functions at run time.

The template layer knows parameters, files, mappings and conditions; everything else (a
resource's reference id, its attributes, the parent resource of a nested stack, the cloud's
availability zones) lives in the engine, which passes an object satisfying
:class:`ResolutionContext` when it resolves properties or outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import quote

from thermik.errors import FunctionError


class ResolutionContext(Protocol):
    """Runtime data for ``get_resource``, ``get_attr``, ``resource_facade`` and friends.

    Implemented by the engine. Each method is called only for resources the stack definition
    knows and that are enabled; names are already validated.
    """

    def reference_id(self, name: str) -> str | None:
        """Reference id of resource ``name`` (``get_resource``/``Ref``): usually its physical
        id; ``None`` while the resource has not been created."""

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        """Value of attribute ``attr`` of resource ``name`` with ``path`` applied.

        ``path`` holds the extra ``get_attr`` arguments (keys and indices into the value);
        apply them as :func:`thermik.template.paths.select_path` does (a missing key gives
        ``None``). Return ``None`` while the resource is not ready. For
        ``heat_template_version: 2013-05-23`` the template layer always passes an empty path
        and selects itself, as Heat does for that version.
        """

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        """Every attribute of resource ``name`` (``get_attr: [name]``, 2015-10-15 and later)."""

    def facade(self, key: str) -> Any:
        """``resource_facade``: ``"metadata"``, ``"deletion_policy"`` or ``"update_policy"``
        of the parent resource when this stack is a template resource's nested stack."""

    def availability_zones(self) -> list[str]:
        """``Fn::GetAZs``: the cloud's availability zone names (Heat returns ``["nova"]``
        without a cloud)."""


class StaticContext:
    """A context for places where no runtime data exists (conditions, validation, policies).

    Any request for runtime data is an error naming what was asked.
    """

    def _refuse(self, what: str) -> FunctionError:
        return FunctionError(f"{what} is not available before the stack exists")

    def reference_id(self, name: str) -> str | None:
        raise self._refuse(f'the reference id of resource "{name}"')

    def attribute(self, name: str, attr: str, path: Sequence[str | int]) -> Any:
        raise self._refuse(f'attribute "{attr}" of resource "{name}"')

    def all_attributes(self, name: str) -> Mapping[str, Any]:
        raise self._refuse(f'the attributes of resource "{name}"')

    def facade(self, key: str) -> Any:
        raise self._refuse(f'the parent resource\'s "{key}"')

    def availability_zones(self) -> list[str]:
        raise self._refuse("the availability zones")


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """Who and where a stack is: the source of the pseudo parameters.

    ``OS::stack_id``/``AWS::StackId``, ``OS::stack_name``/``AWS::StackName``,
    ``OS::project_id``, ``OS::region``/``AWS::Region``.
    """

    stack_name: str = ""
    stack_id: str = ""
    project_id: str = ""
    region: str | None = None

    def arn(self) -> str:
        """The stack ARN Heat gives CFN templates as ``AWS::StackId``."""
        return (
            f"arn:openstack:heat::{quote(self.project_id, '')}:"
            f"stacks/{quote(self.stack_name, '')}/{quote(self.stack_id, '')}"
        )
