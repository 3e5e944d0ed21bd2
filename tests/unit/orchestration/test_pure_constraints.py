"""The cloud-free custom constraints apply to resource properties with no cloud configured."""

from __future__ import annotations

import pytest

from tests.unit.orchestration.conftest import CTX, request
from thermik.errors import PropertyError
from thermik.orchestration import Orchestrator


def subnet_template(cidr: str) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {"network": "private", "cidr": cidr},
            }
        },
    }


def test_a_bad_cidr_is_refused_without_a_cloud(service: Orchestrator) -> None:
    with pytest.raises(PropertyError) as caught:
        service.create_stack(CTX, request(template=subnet_template("10.0.0.0")))
    assert "resources.subnet.properties.cidr" in str(caught.value)
    assert "not a recognized IP subnet cidr" in str(caught.value)


def test_a_bad_nested_address_is_refused_without_a_cloud(service: Orchestrator) -> None:
    template = subnet_template("10.0.0.0/24")
    properties = template["resources"]["subnet"]["properties"]  # type: ignore[index]
    properties["allocation_pools"] = [{"start": "10.0.0.10", "end": "10.0.0.300"}]
    with pytest.raises(PropertyError) as caught:
        service.create_stack(CTX, request(template=template))
    assert "allocation_pools" in str(caught.value)
    assert "Invalid IP address" in str(caught.value)
