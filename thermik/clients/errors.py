"""Turn what openstacksdk and keystoneauth raise into Thermik's error tree.

Every exception of either library becomes a :class:`thermik.errors.CloudError` whose message is
the cloud's own answer (the ``message`` of its error body), never a URL or a host: a status
reason is shown to the stack's user. Which subclass it is decides what happens next: a gone
resource ends a delete, a conflict or an unavailable service is retried, the rest fails the
resource with that message.
"""

from __future__ import annotations

from typing import Any

from keystoneauth1 import exceptions as ksa
from openstack import exceptions as sdk

from thermik.errors import (
    CloudConflict,
    CloudError,
    CloudFault,
    CloudGone,
    CloudNoAnswer,
    CloudQuotaExceeded,
    CloudUnavailable,
)

#: HTTP statuses at which a service says "not now" rather than "no".
_RETRY_LATER = frozenset({408, 429})
#: Statuses at which Nova (403), Neutron (409) and Cinder (413) report an exceeded quota.
_QUOTA_STATUSES = frozenset({403, 409, 413})


def is_cloud_exception(exc: BaseException) -> bool:
    """Whether ``exc`` comes from openstacksdk or keystoneauth (and :func:`to_cloud_error` maps
    it)."""
    return isinstance(exc, sdk.SDKException | ksa.ClientException)


def to_cloud_error(exc: BaseException, service: str | None = None) -> CloudError:
    """The :class:`CloudError` for an exception of openstacksdk or keystoneauth.

    ``service`` is the service type the call went to, used when the cloud gave no message.
    """
    if isinstance(exc, CloudError):
        return exc
    if _is_authentication(exc):
        # The call never reached ``service``: Keystone refused the credential first.
        service = "identity"
    status = _status(exc)
    message = _cloud_message(exc) or _fallback_message(exc, service, status)
    kind: type[CloudError]
    if isinstance(exc, ksa.ConnectTimeout):
        kind = CloudNoAnswer
    elif isinstance(exc, ksa.ConnectionError | ksa.DiscoveryFailure):
        kind = CloudFault if isinstance(exc, ksa.SSLError) else CloudUnavailable
    elif isinstance(exc, sdk.NotFoundException | ksa.NotFound):
        kind = CloudGone
    elif status in _QUOTA_STATUSES and _is_quota(exc, message):
        kind = CloudQuotaExceeded
    elif status == 409:
        kind = CloudConflict
    elif status is not None and (status >= 500 or status in _RETRY_LATER):
        kind = CloudUnavailable
    else:
        kind = CloudFault
    return kind(message, service=service, status=status)


def _status(exc: BaseException) -> int | None:
    for attribute in ("status_code", "http_status"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int):
            return value
    return None


def _cloud_message(exc: BaseException) -> str | None:
    """The message of the cloud's error body, when it sent one."""
    details = getattr(exc, "details", None)
    if isinstance(details, str) and details.strip() and not details.lstrip().startswith("<"):
        return details.strip()
    if isinstance(
        exc,
        sdk.ResourceFailure | sdk.ResourceTimeout | sdk.DuplicateResource | sdk.ConfigException,
    ):
        # Raised by the SDK itself (wait_for_status, find): its message names no URL.
        return exc.message
    return None


def _is_authentication(exc: BaseException) -> bool:
    """Whether ``exc`` is Keystone's answer to a token request (keystoneauth's, before the
    call itself)."""
    url = getattr(exc, "url", None)
    return isinstance(exc, ksa.HttpError) and isinstance(url, str) and url.endswith("/auth/tokens")


def _fallback_message(exc: BaseException, service: str | None, status: int | None) -> str:
    if status == 401 and _is_authentication(exc):
        return (
            "Keystone refused to authenticate the credential (a wrong password, or an "
            "expired token or deleted trust)"
        )
    what = f"the {service} service" if service else "the cloud"
    if isinstance(exc, ksa.ConnectTimeout):
        return f"{what} did not answer in time"
    if isinstance(exc, ksa.SSLError):
        return f"{what} failed the TLS handshake (check [clients] ca_file and insecure)"
    if isinstance(exc, ksa.ConnectionError):
        return f"{what} is unreachable"
    if isinstance(exc, ksa.EndpointNotFound | sdk.EndpointNotFound):
        return f"{what} has no endpoint in the catalog for this region and interface"
    if isinstance(exc, ksa.MissingAuthPlugin | ksa.AuthorizationFailure):
        return f"{what} could not be authenticated against: {type(exc).__name__}"
    if status is not None:
        return f"{what} answered HTTP {status} ({type(exc).__name__})"
    return f"{what} failed: {type(exc).__name__}"


def _is_quota(exc: BaseException, message: str) -> bool:
    if "quota" in message.lower():
        return True
    body = _json_body(exc)
    # Neutron: {"NeutronError": {"type": "OverQuota", ...}}
    return any(
        isinstance(value, dict) and str(value.get("type", "")).startswith("OverQuota")
        for value in body.values()
    )


def _json_body(exc: BaseException) -> dict[str, Any]:
    response = getattr(exc, "response", None)
    try:
        body = response.json() if response is not None else {}
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
