"""A resource type whose service is not in the caller's catalog is refused as Heat refuses it
(``HEAT-E99001``), unless the caller ignores that error; engine-made types need no service."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from thermik.conf.settings import LimitSettings
from thermik.errors import CloudUnavailable, ResourceTypeUnavailable
from thermik.orchestration.checks import check_resources
from thermik.orchestration.service_check import ServiceCheck, service_check
from thermik.orchestration.validation import known_types
from thermik.resources.registry import Registry
from thermik.resources.service_types import service_of
from thermik.template import Environment, Template, build_stack
from thermik.template.context import Identity

REGISTRY = Registry.from_entry_points()


class Catalog:
    """A caller's catalog: the service types it lists, and each type asked about."""

    def __init__(self, *service_types: str) -> None:
        self.service_types = set(service_types)
        self.asked: list[str] = []

    def __call__(self, service_type: str) -> bool:
        self.asked.append(service_type)
        return service_type in self.service_types


def check(text: str, catalog: Catalog, ignored: Collection[str] = ()) -> None:
    template = Template.load(text, {})
    environment = Environment.from_dict({"resource_registry": {"My::Net": "OS::Neutron::Net"}})
    definition = build_stack(
        template, environment, {}, Identity(stack_name="s"), known_types=known_types(REGISTRY)
    )
    check_resources(definition, REGISTRY, LimitSettings(), services=ServiceCheck(catalog, ignored))


NET = """
heat_template_version: 2018-08-31
resources:
  random: {type: OS::Heat::RandomString}
  net: {type: My::Net}
"""


def test_a_type_whose_service_is_missing_is_refused_with_heats_words() -> None:
    with pytest.raises(ResourceTypeUnavailable) as caught:
        check(NET, Catalog("compute"))
    assert str(caught.value) == (
        "resources.net: HEAT-E99001 Service neutron is not available for resource type "
        "My::Net, reason: neutron network endpoint is not in service catalog."
    )
    assert caught.value.http_status == 400


def test_the_service_in_the_catalog_passes_and_engine_types_ask_nothing() -> None:
    catalog = Catalog("network")
    check(NET, catalog)
    assert catalog.asked == ["network"]


def test_ignore_errors_99001_lets_the_template_pass() -> None:
    check(NET, Catalog(), ignored={"99001"})
    with pytest.raises(ResourceTypeUnavailable):
        check(NET, Catalog(), ignored={"12345"})


def test_any_one_of_a_services_types_is_enough() -> None:
    volume = (
        "heat_template_version: 2018-08-31\n"
        "resources:\n  v: {type: OS::Cinder::Volume, properties: {size: 1}}\n"
    )
    check(volume, Catalog("volumev3"))
    with pytest.raises(ResourceTypeUnavailable, match="cinder volumev3 endpoint is not"):
        check(volume, Catalog("compute"))


def test_an_unreadable_catalog_is_the_reason() -> None:
    def unreachable(service_type: str) -> bool:
        raise CloudUnavailable("Keystone did not answer")

    with pytest.raises(ResourceTypeUnavailable, match="reason: Keystone did not answer"):
        ServiceCheck(unreachable).check("OS::Nova::Server", "OS::Nova::Server", "web")


def test_the_type_alone_is_named_without_a_resource_path() -> None:
    with pytest.raises(ResourceTypeUnavailable) as caught:
        ServiceCheck(Catalog()).check("OS::Zaqar::Queue", "OS::Zaqar::Queue")
    assert str(caught.value).startswith("HEAT-E99001 Service zaqar is not available")


@pytest.mark.parametrize(
    ("type_name", "client"),
    [
        ("OS::Nova::Server", "nova"),
        ("OS::Heat::SwiftSignal", "swift"),
        ("OS::Keystone::Project", "keystone"),
        ("OS::Heat::RandomString", None),
        ("OS::Heat::Stack", None),
        ("My::Own::Thing", None),
    ],
)
def test_the_service_of_a_type_follows_its_namespace(type_name: str, client: str | None) -> None:
    need = service_of(type_name)
    assert (None if need is None else need.client) == client


def test_no_cloud_no_check() -> None:
    assert service_check(None, ("99001",)) is None
    made = service_check(Catalog(), ["99001"])
    assert made is not None
    assert made.ignored == frozenset({"99001"})
