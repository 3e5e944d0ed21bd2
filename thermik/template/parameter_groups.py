"""``parameter_groups``: presentation-only grouping of parameters, checked as Heat checks it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.errors import ParameterError


def check_parameter_groups(groups: Any, names: frozenset[str], key: str) -> None:
    """``parameter_groups``: a list of groups, each naming existing parameters, each at most
    once across all groups."""
    if not groups:
        return
    if not isinstance(groups, list):
        raise ParameterError(f"The {key} should be a list.", path=(key,))
    seen: set[Any] = set()
    for index, group in enumerate(groups):
        if not isinstance(group, Mapping):
            raise ParameterError("A parameter group must be a map.", path=(key, index))
        where = (key, str(group.get("label", index)))
        members = group.get("parameters")
        if members is None:
            raise ParameterError(
                "The parameters must be provided for each parameter group.", path=where
            )
        if not isinstance(members, list):
            raise ParameterError("The parameters of parameter group should be a list.", path=where)
        for member in members:
            if not isinstance(member, str) or member not in names:
                raise ParameterError(
                    f"The grouped parameter {member} does not reference a valid parameter.",
                    path=where,
                )
            if member in seen:
                raise ParameterError(
                    f"The {member} parameter must be assigned to one parameter group only.",
                    path=where,
                )
            seen.add(member)
