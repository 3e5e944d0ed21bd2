"""A Keystone region of a test's own, where the agents inside servers find the services the
test runs (Thermik's API as ``orchestration``, Zaqar as ``messaging``).

The loopback cloud's catalog is shared: another test may have registered an ``orchestration``
service in its region, and os-collect-config's collectors and heat-config-notify pick their
endpoint by service type and region. So the test registers its own services in a region no
other client asks for and names it to the engine (``region_name_for_agents``); everything is
deleted at the end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

from openstack.identity.v3 import _proxy as identity_v3

from tests.functional.cloud.cloud import CloudEnv


@contextlib.contextmanager
def agent_region(cloud: CloudEnv, name: str, services: Mapping[str, str]) -> Iterator[str]:
    """Region ``name`` (unique to the test) whose public endpoints are ``services`` (service
    type -> URL); its id."""
    admin = cloud.connect(admin=True)
    identity = admin.identity
    assert isinstance(identity, identity_v3.Proxy), "the loopback cloud speaks Keystone v3"
    with contextlib.ExitStack() as undo:
        undo.callback(admin.close)
        region = identity.create_region(id=name, description="a test's agent services")
        undo.callback(identity.delete_region, region.id)
        for kind, url in services.items():
            service = identity.create_service(name=f"{name}-{kind}", type=kind)
            undo.callback(identity.delete_service, service.id)
            endpoint = identity.create_endpoint(
                service_id=service.id, interface="public", url=url, region_id=region.id
            )
            undo.callback(identity.delete_endpoint, endpoint.id)
        yield str(region.id)
