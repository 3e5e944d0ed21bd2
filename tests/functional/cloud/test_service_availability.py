"""Resource types whose service the caller's catalog lacks, on the real loopback cloud (which
runs no DNS service): validate and create refuse them with Heat's ``HEAT-E99001`` error,
validate with ``ignore_errors=99001`` passes them, and types whose services run pass."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine
from thermik.api.boundary import StackRequest
from thermik.errors import ResourceTypeUnavailable, StackNotFound
from thermik.resources.heat_basic import NoneResource
from thermik.template.loader import load_document

pytestmark = pytest.mark.functional

#: A type of the DNS service's namespace (the loopback cloud has no ``dns`` endpoint).
ZONE = "OS::Designate::ThermikTestZone"


@pytest.fixture
def engine(cloud_env: CloudEnv, tmp_path: Path) -> Iterator[CloudEngine]:
    engine = CloudEngine(tmp_path / "state", cloud_env)
    engine.engine.registry.register(ZONE, NoneResource)
    try:
        yield engine
    finally:
        engine.close()


def template(resource_type: str, properties: str = "{}") -> str:
    return (
        "heat_template_version: 2018-08-31\nresources:\n"
        f"  zone: {{type: {resource_type}, properties: {properties}}}\n"
    )


def test_a_type_without_its_service_is_refused_unless_ignored(engine: CloudEngine) -> None:
    request = StackRequest(template=load_document(template(ZONE)))
    expected = (
        f"resources.zone: HEAT-E99001 Service designate is not available for resource type "
        f"{ZONE}, reason: designate dns endpoint is not in service catalog."
    )
    with pytest.raises(ResourceTypeUnavailable) as validate:
        engine.service.validate_template(CTX, request)
    assert str(validate.value) == expected
    engine.service.validate_template(CTX, request, ignore_errors=["99001"])

    name = f"no-dns-{uuid.uuid4().hex[:6]}"
    with pytest.raises(ResourceTypeUnavailable) as create:
        engine.create(name, template(ZONE))
    assert str(create.value) == expected
    with pytest.raises(StackNotFound):
        engine.service.store.get_stack_by_name(CTX.tenant, name)


def test_types_whose_services_run_pass(engine: CloudEngine) -> None:
    for resource_type, properties in (
        ("OS::Nova::KeyPair", "{name: k}"),
        ("OS::Neutron::Net", "{}"),
        ("OS::Cinder::Volume", "{size: 1}"),
        ("OS::Swift::Container", "{}"),
    ):
        document = load_document(template(resource_type, properties))
        engine.service.validate_template(CTX, StackRequest(template=document))
