"""A Keystone identity of its own for a server's agent on the loopback cloud, and Zaqar in the
catalog its token carries.

os-collect-config's ``zaqar`` collector logs in to Keystone with the credentials in the
server's boot data and finds Zaqar as the ``messaging`` service of the token's catalog. The
loopback cloud's catalog has no Zaqar (tools/zaqar-up.sh runs one without Keystone, which
trusts the project the request names), so :func:`agent_identity` registers the loopback Zaqar
as ``messaging`` in a region of its own (no other client picks it), beside a project and a
member user for the agent, and removes them all at the end. The stack domain users of issue 15
will take the user's place.
"""

from __future__ import annotations

import contextlib
import dataclasses
import uuid
from collections.abc import Iterator

from openstack.identity.v3 import _proxy as identity_v3

from tests.functional.cloud.cloud import CloudEnv


@dataclasses.dataclass(frozen=True)
class AgentIdentity:
    """The agent's credentials, as a server's ZAQAR_MESSAGE settings name them."""

    auth_url: str
    user_id: str
    password: str
    project_id: str
    region_name: str

    def credentials(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@contextlib.contextmanager
def agent_identity(cloud: CloudEnv, prefix: str, zaqar_url: str) -> Iterator[AgentIdentity]:
    """A project, a member user and a region whose ``messaging`` endpoint is ``zaqar_url``."""
    admin = cloud.connect(admin=True)
    identity = admin.identity
    assert isinstance(identity, identity_v3.Proxy), "the loopback cloud speaks Keystone v3"
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    password = uuid.uuid4().hex
    with contextlib.ExitStack() as undo:
        project = identity.create_project(name=name, domain_id="default")
        undo.callback(identity.delete_project, project.id)
        user = identity.create_user(
            name=name, password=password, domain_id="default", default_project_id=project.id
        )
        undo.callback(identity.delete_user, user.id)
        member = identity.find_role("member", ignore_missing=False)
        identity.assign_project_role_to_user(project.id, user.id, member.id)
        region = identity.create_region(id=name, description="the agent's Zaqar (a test's)")
        undo.callback(identity.delete_region, region.id)
        service = identity.create_service(name=name, type="messaging")
        undo.callback(identity.delete_service, service.id)
        endpoint = identity.create_endpoint(
            service_id=service.id, interface="public", url=zaqar_url, region_id=region.id
        )
        undo.callback(identity.delete_endpoint, endpoint.id)
        yield AgentIdentity(cloud.auth_url, str(user.id), password, str(project.id), name)
