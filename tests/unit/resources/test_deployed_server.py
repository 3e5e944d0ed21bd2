"""DeployedServer: an id of its own, a metadata endpoint, and the agent's configuration."""

from __future__ import annotations

import json

import pytest

from tests.unit.resources.software_harness import SoftwareCtx
from thermik.errors import PluginError
from thermik.resources import Registry, plan_update
from thermik.resources.software_services import SERVER_ENDPOINT_KEY

CLS = Registry.from_entry_points().get("OS::Heat::DeployedServer")


def test_create_provisions_the_endpoint_and_exposes_the_agent_config() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Heat::DeployedServer")
    props = CLS.check_properties({})
    plugin = CLS()
    assert plugin.create(ctx, props) is None
    server_id = ctx.physical_id
    assert server_id is not None
    assert ctx.software.servers == {server_id: "POLL_SERVER_CFN"}
    assert json.loads(ctx.data.values[SERVER_ENDPOINT_KEY]) == {"server": server_id}
    assert SERVER_ENDPOINT_KEY in ctx.data.redacted
    occ = plugin.attribute(ctx, props, "os_collect_config")
    assert occ["collectors"] == ["request", "local"]
    assert occ["request"]["metadata_url"].endswith(server_id)
    assert plugin.attribute(ctx, props, "name").startswith("teststack-server-")
    assert plugin.reference_id(ctx, props) == server_id
    assert plugin.delete(ctx, props) is None
    assert ctx.software.servers == {}
    assert plugin.attribute(ctx, props, "os_collect_config") is None


def test_name_and_transport_update_in_place() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Heat::DeployedServer")
    plugin = CLS()
    old = CLS.check_properties({"name": "one"})
    plugin.create(ctx, old)
    assert plugin.attribute(ctx, old, "name") == "one"
    new = CLS.check_properties({"name": "two", "software_config_transport": "POLL_TEMP_URL"})
    plan = plan_update(plugin, ctx, new, old)
    assert plan.replacement is None
    assert plugin.update(ctx, new, old, plan.changed) is None
    assert plugin.attribute(ctx, new, "name") == "two"
    assert ctx.software.servers[ctx.physical_id or ""] == "POLL_TEMP_URL"


def test_a_transport_the_engine_cannot_offer_fails_the_create() -> None:
    ctx = SoftwareCtx(resource_name="server", resource_type="OS::Heat::DeployedServer")
    props = CLS.check_properties({"software_config_transport": "ZAQAR_MESSAGE"})
    with pytest.raises(PluginError, match="ZAQAR_MESSAGE is not offered"):
        CLS().create(ctx, props)
