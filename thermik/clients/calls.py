"""A cloud call as plugins make it: errors mapped to Thermik's tree, retried when they may pass.

A :class:`CloudClient` wraps the shared connection of one credential for one service. Its
:meth:`~CloudClient.call` runs a function of the connection; what openstacksdk or keystoneauth
raises comes out as a :class:`thermik.errors.CloudError`, after retries with exponential backoff
(tenacity) when the error is retryable: a conflict (409) always, an unavailable service (5xx,
429, timeout, unreachable) only for a call that is safe to repeat (never inside :func:`once`,
where creates run).
"""

from __future__ import annotations

import contextlib
import contextvars
import types
from collections.abc import Callable, Iterator
from typing import TypeVar, cast

import tenacity
from openstack.connection import Connection

from thermik.clients.errors import is_cloud_exception, to_cloud_error
from thermik.errors import CloudConflict, CloudError, CloudUnavailable

T = TypeVar("T")

#: Backoff between retries: 0.5 s, 1 s, 2 s, ... at most 8 s, plus up to 0.25 s of jitter so
#: that the resources of one stack do not retry in step.
BACKOFF = tenacity.wait_exponential(multiplier=0.5, max=8) + tenacity.wait_random(0, 0.25)


#: Whether the calls of this thread are creates to be made at most once (see :func:`once`).
_ONCE: contextvars.ContextVar[bool] = contextvars.ContextVar("thermik_cloud_once", default=False)


@contextlib.contextmanager
def once() -> Iterator[None]:
    """Make the calls inside as non-idempotent ones: a create found by its tag afterwards
    (:func:`thermik.resources.cloud_access.create_once`) is never asked twice by a retry that
    does not look first, whatever its plugin said."""
    token = _ONCE.set(True)
    try:
        yield
    finally:
        _ONCE.reset(token)


class CloudClient:
    """The calls of one credential to one service (``service_type``: compute, network, ...)."""

    def __init__(
        self,
        connection: Connection,
        service_type: str,
        *,
        retry_limit: int,
        backoff: tenacity.wait.wait_base = BACKOFF,
    ) -> None:
        self.connection = connection
        self.service_type = service_type
        self.retry_limit = retry_limit
        self.backoff = backoff

    def call(self, action: Callable[[Connection], T], *, idempotent: bool = True) -> T:
        """``action(connection)``, its failures as :class:`CloudError`, retried as they allow.

        ``idempotent=False`` (a create without a name or tag to find it by) retries only a
        conflict: after a timeout or a 5xx the cloud may have made the resource already.
        """

        repeatable = idempotent and not _ONCE.get()

        def retry(error: BaseException) -> bool:
            if not isinstance(error, CloudError) or not error.retryable:
                return False
            return repeatable or isinstance(error, CloudConflict)

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retry_limit + 1),
            wait=self.backoff,
            retry=tenacity.retry_if_exception(retry),
            reraise=True,
        )
        result: T = retrying(self._once, action)
        return result

    def _once(self, action: Callable[[Connection], T]) -> T:
        try:
            result = action(self.connection)
            if isinstance(result, types.GeneratorType):
                # openstacksdk's listings are lazy: read here, their requests' failures are
                # mapped and retried like any other (read by the caller, they would escape).
                return cast("T", list(result))
            return result
        except Exception as error:
            if is_cloud_exception(error):
                mapped = to_cloud_error(error, self.service_type)
                if isinstance(mapped, CloudUnavailable):
                    forget_proxy(self.connection, self.service_type)
                raise mapped from error
            raise


def forget_proxy(connection: Connection, service_type: str) -> None:
    """Make ``connection`` discover ``service_type``'s API versions again on its next call.

    openstacksdk reads a service's version document once per connection; when the service
    does not answer it (down, 503) the connection stays on the unversioned endpoint for good,
    and every later call gets a 404 once the service is back. Deleting the connection's proxy
    attribute (openstacksdk's own way to replace a proxy) drops it and its endpoint.
    """
    with contextlib.suppress(AttributeError):
        delattr(connection, service_type.replace("-", "_"))
