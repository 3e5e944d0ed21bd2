"""What every client of Heat's v1 REST API shares, whatever carries its requests.

:class:`HeatTransport` is the one thing the remote orchestration service
(:mod:`thermik.remote`) needs of a carrier: JSON calls under a tenant's base URL. Two carry
them: :class:`thermik.clients.heat_api.HeatApi` (a keystoneauth session, for a remote Thermik
or Heat service) and :class:`thermik.clients.local_daemon.DaemonApi` (the state directory's
engine daemon on a loopback port). Both turn an error answer into Thermik's error tree with
:func:`error_of`. This module stays light: it imports neither keystoneauth nor openstacksdk, so
that local commands do not wait for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import quote

from thermik import errors

#: Heat's error types that name a more precise error than the HTTP status does.
_BY_TYPE: dict[str, type[errors.ThermikError]] = {
    "StackExists": errors.DuplicateName,
    "ActionInProgress": errors.InvalidTransition,
}
_BY_STATUS: dict[int, type[errors.ThermikError]] = {
    400: errors.InvalidInput,
    401: errors.Unauthorized,
    403: errors.Forbidden,
    404: errors.NotFound,
    409: errors.Conflict,
    413: errors.RequestTooLarge,
}


class HeatTransport(Protocol):
    """Heat v1 calls under one tenant's base URL (``http://host:port/v1/<project>``)."""

    @property
    def root(self) -> str:
        """``http://host:port/v1``: where the tenant's base URL is."""

    @property
    def tenant(self) -> str:
        """The project the base URL names."""

    def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """``method`` on ``path`` (under the base URL): the decoded JSON answer (None when
        there is no body).

        Raises:
            ThermikError: the service's refusal (:func:`error_of`), or it cannot be reached.
        """

    def location(self, path: str) -> str | None:
        """Where a ``GET`` of ``path`` redirects to (Heat's stack lookup), None if not."""

    def close(self) -> None:
        """Release the connections."""


def segment(value: str) -> str:
    """``value`` quoted as one URL path segment."""
    return quote(value, safe="")


def error_of(status: int, body: Any) -> errors.ThermikError:
    """The error for an HTTP error answer of the service (Heat's error document, or not)."""
    error = body.get("error") if isinstance(body, Mapping) else None
    heat_type = message = None
    if isinstance(error, Mapping):
        heat_type, message = error.get("type"), error.get("message")
    if not message and isinstance(body, Mapping):
        message = body.get("explanation") or body.get("title")
    text = str(message).strip() if message else ""
    kind = _BY_TYPE.get(str(heat_type)) or _BY_STATUS.get(status)
    if kind is None:
        said = f": {text}" if text else f" (HTTP {status})"
        return errors.RemoteUnavailable(f"the orchestration service failed{said}")
    return kind(text or f"the orchestration service answered HTTP {status}")


def jsonable(value: object) -> Any:
    """A value ``json`` cannot encode as it is: a read-only mapping, a set."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"{type(value).__name__} cannot be sent as JSON")
