"""Where a wait condition handle is signalled: what the engine tells the handle's plugin.

Heat's ``TOKEN_SIGNAL`` handle gives its signaller the orchestration API's signal URL of the
resource and a Keystone token of the handle's stack user; Thermik does the same when the engine
is served by its REST API and has a stack user domain (service mode). An engine without either
(local mode) hands out the builtin delivery's capability URL of the handle instead: a signed
URL that takes the signal's JSON by POST with no token at all.

A plugin finds these services on its context with :func:`handle_signal_services`; the engine's
software deployment services (:mod:`thermik.deployments`) implement them over the delivery
backend.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable
from urllib.parse import quote

from thermik.resources.context import ResourceContext, StackIdentity


@runtime_checkable
class HandleSignalServices(Protocol):
    """The URLs a wait condition handle is signalled at."""

    @property
    def api_url(self) -> str | None:
        """The root of the Heat v1 API serving this engine, as servers reach it (None: no
        REST API serves this engine's stacks)."""
        ...

    def handle_signal_url(self, stack_id: str, resource_name: str) -> str | None:
        """A capability URL that signals the resource when its JSON is POSTed to it (None:
        the delivery backend serves none)."""
        ...


def handle_signal_services(ctx: ResourceContext) -> HandleSignalServices | None:
    """The handle signal services of ``ctx``, if its engine has them."""
    found = getattr(ctx, "software", None)
    return found if isinstance(found, HandleSignalServices) else None


def api_signal_url(api_url: str, project_id: str, stack: StackIdentity, name: str) -> str:
    """The orchestration API's signal URL of resource ``name`` as the stack user project
    ``project_id`` addresses it (Heat's TOKEN_SIGNAL endpoint)."""
    path = f"stacks/{quote(stack.name, safe='')}/{stack.id}/resources/{quote(name, safe='')}"
    return f"{api_url.rstrip('/')}/v1/{project_id}/{path}/signal"
