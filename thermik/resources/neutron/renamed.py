"""Heat's old property names of Neutron's types, moved to the new ones before validation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from thermik.resources.constraints import CustomValidator
from thermik.resources.neutron.common import moved
from thermik.resources.plugin import Props, ResourcePlugin
from thermik.resources.properties import Unresolved, never_unresolved


class RenamedProperties(ResourcePlugin):
    """A type that accepts Heat's hidden old names (``renamed_properties``: old -> new)."""

    renamed_properties: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        return super().check_properties(
            moved(values, cls.renamed_properties, path),
            unresolved=unresolved,
            custom_constraints=custom_constraints,
            path=path,
        )
