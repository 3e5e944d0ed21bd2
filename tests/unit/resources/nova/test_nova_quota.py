"""The pure parts of OS::Nova::Quota: registration, the one-quota-at-least check, and what
needs replacement."""

from __future__ import annotations

import pytest

from thermik.errors import PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.nova.quota import Quota
from thermik.resources.plugin import NeedsReplacement
from thermik.resources.registry import Registry


def test_the_type_is_registered() -> None:
    assert "OS::Nova::Quota" in Registry.from_entry_points()


def test_a_quota_needs_one_quota_at_least() -> None:
    with pytest.raises(PropertyError) as caught:
        Quota().validate({"project": "p"}, ValidationContext())
    assert "cores, injected_file_content_bytes" in str(caught.value)
    Quota().validate({"project": "p", "ram": -1}, ValidationContext())


def test_a_limit_below_minus_one_is_refused() -> None:
    with pytest.raises(PropertyError) as caught:
        Quota.check_properties({"project": "p", "cores": -2})
    assert "cores" in str(caught.value)


@pytest.mark.parametrize(("changed", "replaced"), [({"cores", "ram"}, False), ({"project"}, True)])
def test_what_needs_replacement(changed: set[str], replaced: bool) -> None:
    plan = Quota().needs_replacement(None, {}, {}, frozenset(changed))  # type: ignore[arg-type]
    assert isinstance(plan, NeedsReplacement) is replaced
