"""Judging deployment signals against the stored deployments, and routing pushed ones.

:class:`SignalJudge` applies a signal payload the way Heat does
(:func:`thermik.delivery.document.parse_signal`): only to a deployment that is IN_PROGRESS,
FAILED for a non-zero ``deploy_status_code`` or a present ``error_output``, else COMPLETE, the
declared outputs and ``deploy_*`` values stored as its output values. One lock serialises the
read-judge-write, so a signal seen both pushed and polled is applied once.

:class:`SignalRoutes` remembers which deployment action each signal endpoint belongs to, for
backends that tell the engine when a signal arrives (builtin).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Mapping
from typing import Any

from thermik.delivery.base import SignalEndpoint
from thermik.delivery.document import STATUS_CODE, decode_signal, parse_signal
from thermik.deployments.configs import output_decls
from thermik.errors import InvalidSignal, NotFound
from thermik.persistence.software_values import DeploymentChanges
from thermik.persistence.store import Store
from thermik.resources.software_services import FAILED, IN_PROGRESS, DeploymentHandle

LOG = logging.getLogger(__name__)


def event_reason(payload: Mapping[str, Any]) -> str:
    """The reason of the SIGNAL event a deployment signal records."""
    if STATUS_CODE not in payload:
        return "Signal: outputs received"
    code = payload[STATUS_CODE]
    if str(code) == "0":
        return "Signal: deployment succeeded"
    return f"Signal: deployment failed ({code})"


class SignalJudge:
    """Applies signals and failures to stored deployments."""

    def __init__(self, store: Store, max_size: int) -> None:
        self._store = store
        self._max_size = max_size
        self._lock = threading.Lock()

    def apply(self, deployment_id: str, data: Any) -> str:
        """Apply one signal; the event reason.

        Raises:
            InvalidSignal: the data is not a JSON object (nothing is changed), or the
                deployment no longer exists.
        """
        if data is None:
            payload: dict[str, Any] = {}
        elif isinstance(data, Mapping | str | bytes):
            payload = decode_signal(data, self._max_size)
        else:
            raise InvalidSignal(
                f"a deployment signal must be a JSON object, not {type(data).__name__}"
            )
        reason = event_reason(payload)
        with self._lock:
            try:
                row = self._store.get_software_deployment(deployment_id)
            except NotFound:
                raise InvalidSignal(f"deployment {deployment_id} no longer exists") from None
            if row.status != IN_PROGRESS:
                return f"{reason} (ignored: the deployment is {row.action} {row.status})"
            outputs = output_decls(self._store.get_software_config(row.config_id))
            result = parse_signal(payload, outputs, max_size=self._max_size)
            changes = DeploymentChanges(
                status=result.status.value,
                status_reason=result.reason,
                output_values=dict(result.outputs),
            )
            self._store.update_software_deployment(deployment_id, changes)
        return reason

    def apply_quietly(self, deployment_id: str, payload: Any) -> None:
        """:meth:`apply`, logging instead of raising: a malformed signal changes nothing."""
        try:
            self.apply(deployment_id, payload)
        except InvalidSignal as error:
            LOG.warning("signal to deployment %s ignored: %s", deployment_id, error)

    def fail(self, deployment_id: str, reason: str) -> None:
        """Fail the deployment with ``reason`` if it is still IN_PROGRESS."""
        with self._lock:
            try:
                row = self._store.get_software_deployment(deployment_id)
            except NotFound:
                return
            if row.status == IN_PROGRESS:
                changes = DeploymentChanges(status=FAILED, status_reason=reason)
                self._store.update_software_deployment(deployment_id, changes)


@dataclasses.dataclass(frozen=True, slots=True)
class Route:
    """Where a pushed signal goes: the deployment action, and the resource to wake."""

    endpoint: SignalEndpoint
    handle: DeploymentHandle
    stack_id: str
    owner: str


def _key(endpoint: SignalEndpoint) -> tuple[str, tuple[tuple[str, str], ...]]:
    return endpoint.backend, tuple(sorted(endpoint.locator.items()))


class SignalRoutes:
    """Signal endpoint -> :class:`Route`, for the actions this process started."""

    def __init__(self) -> None:
        self._routes: dict[tuple[str, tuple[tuple[str, str], ...]], Route] = {}
        self._lock = threading.Lock()

    def add(
        self, endpoint: SignalEndpoint, handle: DeploymentHandle, stack_id: str, owner: str
    ) -> None:
        """Route signals at ``endpoint`` to ``handle``'s deployment."""
        with self._lock:
            self._routes[_key(endpoint)] = Route(endpoint, handle, stack_id, owner)

    def drop(self, endpoint: SignalEndpoint) -> None:
        """The endpoint was revoked."""
        with self._lock:
            self._routes.pop(_key(endpoint), None)

    def find(self, endpoint: SignalEndpoint) -> Route | None:
        """The route of a signal that arrived at ``endpoint``."""
        with self._lock:
            return self._routes.get(_key(endpoint))
