"""OS::Swift::Container's schema as Heat has it: defaults, and every change a replacement."""

from __future__ import annotations

from thermik.resources.schema import update_allowed_names
from thermik.resources.swift.container import Container


def test_heats_defaults_and_attributes() -> None:
    props = Container.check_properties({})
    assert (props["X-Container-Meta"], props["X-Account-Meta"], props["PurgeOnDelete"]) == (
        {},
        {},
        False,
    )
    assert set(Container.attributes_schema) == {
        "DomainName",
        "WebsiteURL",
        "RootURL",
        "ObjectCount",
        "BytesUsed",
        "HeadContainer",
    }


def test_every_property_change_replaces_the_container() -> None:
    assert update_allowed_names(Container.properties_schema) == frozenset()
