"""``thermik --os-endpoint URL --os-cloud NAME``: the real ``thermik`` CLI as the demo user of
the real Keystone, driving a ``thermik-api`` with ``auth_strategy = keystone``.

The cloud's Keystone authenticates the CLI (keystoneauth, from ``clouds.yaml``), the endpoint
names no project (``.../v1``: the token's project is appended), and the service acts for the
user by a trust. A plain token (``--os-token``) works the same; a token Keystone does not
know is refused in one line. With ``--remote`` the endpoint is the one the cloud's catalog
names for ``orchestration`` in the cloud's region (a region of the test's own).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.e2e.api_process import ApiProcess
from tests.e2e.remote_cli import RemoteCli, ok
from tests.e2e.support import TEMPLATE
from tests.functional.cloud.agent_region import agent_region
from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.keystone_support import requester_of, service_user
from tests.functional.cloud.test_service_trusts import service_config

pytestmark = [
    pytest.mark.functional,
    pytest.mark.filterwarnings("ignore:'cgi' is deprecated:DeprecationWarning"),
]


@pytest.fixture
def api(tmp_path: Path, cloud_env: CloudEnv) -> Iterator[ApiProcess]:
    with service_user(cloud_env) as trustee:
        running = ApiProcess(service_config(tmp_path, cloud_env, trustee))
        try:
            yield running
        finally:
            running.close()


def clouds_yaml(path: Path, cloud_env: CloudEnv, region: str) -> str:
    """A ``clouds.yaml`` of ``cloud_env``'s demo cloud in ``region`` (named ``in-region``)."""
    document = yaml.safe_load(cloud_env.config_file.read_text(encoding="utf-8"))
    clouds = document["clouds"]
    clouds["in-region"] = {**clouds[cloud_env.cloud], "region_name": region}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return str(path)


def test_the_cli_drives_a_keystone_service_as_the_clouds_user(
    tmp_path: Path, cloud_env: CloudEnv, api: ApiProcess
) -> None:
    template = tmp_path / "stack.yaml"
    template.write_text(yaml.safe_dump(TEMPLATE), encoding="utf-8")
    env = {"OS_CLIENT_CONFIG_FILE": str(cloud_env.config_file)}
    cli = RemoteCli(tmp_path, f"{api.root}/v1", ("--os-cloud", cloud_env.cloud), env)
    demo = requester_of(cloud_env.connect())
    name = f"remote-{uuid.uuid4().hex[:8]}"

    created = ok(cli("stack", "create", "--wait", "-t", str(template), name, "-f", "json"))
    assert created.json()["stack_status"] == "CREATE_COMPLETE", created.err
    try:
        shown = ok(cli("stack", "show", name, "-f", "json")).json()
        assert shown["parameters"]["OS::project_id"] == demo.project_id
        assert shown["outputs"][0]["output_value"] == "hello"
        listed = ok(cli("stack", "list", "-f", "json")).json()
        assert [row["Stack Name"] for row in listed] == [name]

        assert demo.token is not None
        by_token = RemoteCli(
            tmp_path, f"{api.root}/v1/{demo.project_id}", ("--os-token", demo.token)
        )
        echo = ok(by_token("stack", "output", "show", name, "echo", "-f", "json")).json()
        assert echo["output_value"] == "hello"
        refused = RemoteCli(tmp_path, by_token.endpoint, ("--os-token", "not-a-token"))(
            "stack", "list"
        )
        assert refused.status == 1
        assert refused.err.startswith("ERROR: "), refused.err
        assert len(refused.err.splitlines()) == 1, refused.err

        region = f"remote-cli-{uuid.uuid4().hex[:8]}"
        catalog = {"orchestration": f"{api.root}/v1/$(project_id)s"}
        with agent_region(cloud_env, region, catalog):
            config = clouds_yaml(tmp_path / "clouds.yaml", cloud_env, region)
            remote = RemoteCli(
                tmp_path,
                None,
                ("--remote", "--os-cloud", "in-region"),
                {"OS_CLIENT_CONFIG_FILE": config},
            )
            listed = ok(remote("stack", "list", "-f", "json")).json()
            assert [row["Stack Name"] for row in listed] == [name]
    finally:
        deleted = ok(cli("stack", "delete", "--yes", "--wait", name))
    assert "DELETE_COMPLETE" in deleted.err
    assert not cli.state.exists(), "a remote command used the local state directory"
