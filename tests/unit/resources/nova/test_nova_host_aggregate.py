"""The pure parts of OS::Nova::HostAggregate: registration, Heat's schema (a name required,
hosts checked as Nova hosts), and no replacement for any change."""

from __future__ import annotations

import pytest

from thermik.errors import PropertyError
from thermik.resources.constraints import CustomConstraint
from thermik.resources.nova.host_aggregate import HostAggregate
from thermik.resources.plugin import NeedsReplacement
from thermik.resources.registry import Registry


def test_the_type_is_registered() -> None:
    assert "OS::Nova::HostAggregate" in Registry.from_entry_points()


def test_a_name_is_required_and_hosts_are_nova_hosts() -> None:
    with pytest.raises(PropertyError) as caught:
        HostAggregate.check_properties({})
    assert "name" in str(caught.value)
    hosts = HostAggregate.properties_schema["hosts"].schema
    assert hosts is not None
    assert CustomConstraint("nova.host") in hosts.constraints  # type: ignore[union-attr]


def test_every_change_is_made_in_place() -> None:
    changed = frozenset({"name", "availability_zone", "hosts", "metadata"})
    plan = HostAggregate().needs_replacement(None, {}, {}, changed)  # type: ignore[arg-type]
    assert not isinstance(plan, NeedsReplacement)
