"""The engine side of software deployments (DESIGN.md §3).

:class:`~thermik.deployments.service.DeploymentService` gives the software config, deployment
and server plugins their ``ctx.software`` services, over the Store, the delivery backend and
one metadata writer actor per server (:mod:`~thermik.deployments.writers`). Configs and
derived configs are Store rows (:mod:`~thermik.deployments.configs`); a server's document is
rebuilt from them (:mod:`~thermik.deployments.source`); signals are judged in one place
(:mod:`~thermik.deployments.signals`); which transports an engine offers is decided in
:mod:`~thermik.deployments.transports`.
"""

from __future__ import annotations

from thermik.deployments.service import DeploymentService

__all__ = ["DeploymentService"]
