"""What OS::Nova::Server calls to become a deployment target: reserve, boot data, bind, release."""

from __future__ import annotations

import base64
import email
import json

import pytest

from tests.unit.resources.software_harness import SoftwareCtx
from thermik.errors import PluginError
from thermik.resources.nova import server_agent
from thermik.resources.software_services import SERVER_ENDPOINT_KEY

SCRIPT = "#!/bin/sh\necho hi\n"


def boot_metadata(encoded: str | None) -> dict[str, object]:
    assert encoded is not None
    message = email.message_from_string(base64.b64decode(encoded).decode())
    (part,) = [p for p in message.walk() if p.get_filename() == "cfn-init-data"]
    raw = part.get_payload(decode=True)
    assert isinstance(raw, bytes)
    metadata: dict[str, object] = json.loads(raw)
    return metadata


def test_a_software_config_server_boots_with_its_reserved_endpoint() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Nova::Server")
    props = {"user_data_format": "SOFTWARE_CONFIG", "user_data": SCRIPT}
    encoded = server_agent.boot_user_data(ctx, props)
    name = server_agent.endpoint_name(ctx)
    assert ctx.software.reserved == {name: "POLL_SERVER_CFN"}
    assert ctx.software.servers == {}  # nothing is served before the server exists
    assert json.loads(ctx.data.values[SERVER_ENDPOINT_KEY]) == {
        "server": name,
        "collectors": ["ec2"],
    }
    assert boot_metadata(encoded) == {
        "os-collect-config": {
            "collectors": ["ec2", "request", "local"],
            "request": {"metadata_url": f"http://agent.invalid/{name}"},
        },
        "deployments": [],
    }
    ctx.set_physical_id("nova-1")
    server_agent.bind_endpoint(ctx)
    assert ctx.software.servers == {"nova-1": "POLL_SERVER_CFN"}
    assert server_agent.agent_config(ctx) == boot_metadata(encoded)["os-collect-config"]
    server_agent.release_endpoint(ctx)
    assert ctx.software.servers == {}
    assert ctx.software.revoked == [name]
    assert server_agent.agent_config(ctx) is None


def test_other_formats_have_no_endpoint() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Nova::Server")
    unknown = "0b0f7c1e-7a51-4f0e-9d47-3c8e8d5b1a2f"  # the id of no config: used as is
    encoded = server_agent.boot_user_data(ctx, {"user_data_format": "RAW", "user_data": unknown})
    assert encoded is not None
    assert base64.b64decode(encoded).decode() == unknown
    assert server_agent.boot_user_data(ctx, {"user_data_format": "RAW"}) is None
    ctx.set_physical_id("nova-2")
    server_agent.bind_endpoint(ctx)
    assert server_agent.agent_config(ctx) is None
    server_agent.release_endpoint(ctx)
    assert ctx.software.reserved == {}
    assert ctx.software.revoked == []


def test_a_transport_the_engine_cannot_offer_fails_before_nova_is_asked() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Nova::Server")
    props = {"user_data_format": "SOFTWARE_CONFIG", "software_config_transport": "ZAQAR_MESSAGE"}
    with pytest.raises(PluginError, match="ZAQAR_MESSAGE is not offered"):
        server_agent.boot_user_data(ctx, props)
    assert SERVER_ENDPOINT_KEY not in ctx.data.values


def test_boot_text_is_the_user_data_before_base64() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Nova::Server")
    props = {"user_data_format": "SOFTWARE_CONFIG", "user_data": SCRIPT}
    text = server_agent.boot_text(ctx, props)
    assert text is not None
    assert base64.b64decode(server_agent.boot_user_data(ctx, props) or "").decode() == text
