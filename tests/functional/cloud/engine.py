"""A Thermik engine in local mode on the loopback cloud, driven as a user drives it.

Settings as ``thermik --os-cloud loopback`` makes them: the embedded SQLite database under the
test's directory and the cloud of the loopback cloud's ``clouds.yaml`` (the demo user).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.functional.cloud.cloud import CloudEnv
from thermik.api.boundary import (
    RequestContext,
    ResourceQuery,
    ResourceView,
    StackAction,
    StackIdentity,
    StackRequest,
    StackUpdate,
    StackView,
)
from thermik.conf.settings import EngineSettings, Settings
from thermik.orchestration import Orchestrator
from thermik.service import Engine, orchestrator_for, start_engine
from thermik.template.loader import load_document

CTX = RequestContext(tenant="local", user="tester")
#: Longest wait for a stack operation on the loopback cloud.
WAIT = 240.0


def local_settings(
    root: Path,
    env: CloudEnv,
    tune: Callable[[EngineSettings], EngineSettings] | None = None,
    *,
    admin: bool = False,
    config_file: Path | None = None,
    client_timeout: int | None = None,
) -> Settings:
    """The embedded default under ``root``, acting as the demo user of the loopback cloud (as
    its admin with ``admin``), from the cloud's clouds.yaml or ``config_file``, with
    ``[clients] timeout`` ``client_timeout`` when given."""
    settings = Settings.embedded(root)
    clients = dataclasses.replace(
        settings.clients,
        cloud=env.admin_cloud if admin else env.cloud,
        cloud_config_file=str(config_file or env.config_file),
    )
    if client_timeout is not None:
        defaults = dataclasses.replace(clients.defaults, timeout=client_timeout)
        clients = dataclasses.replace(clients, defaults=defaults)
    engine = settings.engine if tune is None else tune(settings.engine)
    return dataclasses.replace(settings, clients=clients, engine=engine)


class CloudEngine:
    """One local-mode engine on the loopback cloud, acting as demo (or admin, for the types
    Nova keeps to administrators), with the cloud's clouds.yaml or one of the test's own."""

    def __init__(
        self,
        root: Path,
        env: CloudEnv,
        *,
        tune: Callable[[EngineSettings], EngineSettings] | None = None,
        admin: bool = False,
        config_file: Path | None = None,
        client_timeout: int | None = None,
    ) -> None:
        self.settings = local_settings(
            root, env, tune, admin=admin, config_file=config_file, client_timeout=client_timeout
        )
        self.engine: Engine = start_engine(self.settings, serve_urls=False)
        self.service: Orchestrator = orchestrator_for(self.engine, self.settings)

    @property
    def requests(self) -> int:
        """Cloud requests this engine sent so far (token requests included)."""
        assert self.engine.cloud is not None
        return self.engine.cloud.pool.counter.total()

    def create(self, stack_name: str, template: str, **parameters: Any) -> StackIdentity:
        request = StackRequest(
            name=stack_name, template=load_document(template), parameters=parameters
        )
        return self.service.create_stack(CTX, request)

    def update(self, stack: StackIdentity, template: str | None = None, **parameters: Any) -> None:
        document = None if template is None else load_document(template)
        request = StackRequest(template=document, parameters=parameters)
        self.service.update_stack(CTX, stack, StackUpdate(request, existing=True))

    def delete(self, stack: StackIdentity) -> StackView:
        self.service.delete_stack(CTX, stack)
        return self.wait(stack)

    def check(self, stack: StackIdentity) -> StackView:
        self.service.stack_action(CTX, stack, StackAction.CHECK)
        return self.wait(stack)

    def suspend(self, stack: StackIdentity) -> StackView:
        self.service.stack_action(CTX, stack, StackAction.SUSPEND)
        return self.wait(stack)

    def resume(self, stack: StackIdentity) -> StackView:
        self.service.stack_action(CTX, stack, StackAction.RESUME)
        return self.wait(stack)

    def wait(self, stack: StackIdentity, timeout: float = WAIT) -> StackView:
        self.service.runtime.wait(stack.id, timeout)
        return self.service.show_stack(CTX, stack)

    def resource(self, stack: StackIdentity, name: str) -> ResourceView:
        return self.service.show_resource(CTX, stack, name)

    def resources(self, stack: StackIdentity) -> list[ResourceView]:
        return list(self.service.list_resources(CTX, stack, ResourceQuery()))

    def outputs(self, stack: StackIdentity) -> dict[str, Any]:
        view = self.service.show_stack(CTX, stack, resolve_outputs=True)
        return {output.key: output.value for output in view.outputs or ()}

    def close(self) -> None:
        self.service.close()
