"""Which :class:`~thermik.errors.DeliveryError` a failed request to a delivery service becomes.

Shared by the drivers' ``map_*_errors()`` context managers: HTTP statuses, and the transport
and identity exceptions (requests, keystoneauth1, sockets) that every OpenStack client lets
through. Retryable means "the same request may succeed later" (down, overloaded, raced).
"""

from __future__ import annotations

import json

import urllib3.exceptions
from keystoneauth1 import exceptions as ksa
from requests import exceptions as requests_errors

from thermik.errors import (
    DeliveryError,
    DeliveryRejected,
    DeliveryTargetMissing,
    DeliveryUnavailable,
)

_RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 498, 499})
_CONFIGURATION_ERRORS = (
    requests_errors.InvalidURL,
    requests_errors.MissingSchema,
    requests_errors.InvalidSchema,
    requests_errors.URLRequired,
    requests_errors.InvalidHeader,
    requests_errors.InvalidJSONError,
)


def status_error(status: int | None) -> type[DeliveryError]:
    """The error class for an HTTP answer; None means the client gave up before one came."""
    if status is None:
        return DeliveryRejected
    if status == 404:
        return DeliveryTargetMissing
    if status >= 500 or status in _RETRYABLE_STATUSES:
        return DeliveryUnavailable
    return DeliveryRejected


def transport_error(exc: BaseException) -> type[DeliveryError] | None:
    """The error class for a transport or identity failure, or None if ``exc`` is neither."""
    if isinstance(exc, ksa.HttpError):
        return status_error(exc.http_status)
    if isinstance(exc, ksa.ConnectionError | ksa.RetriableConnectionFailure):
        return DeliveryUnavailable
    if isinstance(exc, ksa.ClientException | ksa.ImpliedVersionMismatch):
        # Missing plugins, options, catalog entries or versions: the settings are wrong.
        return DeliveryRejected
    if isinstance(exc, requests_errors.HTTPError):
        response = getattr(exc, "response", None)
        return status_error(response.status_code if response is not None else None)
    if isinstance(exc, _CONFIGURATION_ERRORS):
        return DeliveryRejected
    transport = (requests_errors.RequestException, urllib3.exceptions.HTTPError, OSError)
    if isinstance(exc, transport):
        return DeliveryUnavailable
    if isinstance(exc, json.JSONDecodeError):
        # A client library could not parse the service's answer.
        return DeliveryUnavailable
    return None
