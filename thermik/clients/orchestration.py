"""Stacks on an orchestration API (Thermik's or Heat's) as ``OS::Heat::Stack`` reaches them.

A remote stack lives behind the ``orchestration`` endpoint of some region of the Keystone
catalog. These functions speak Heat's v1 REST API through the keystoneauth session of a
connection (so the call carries that connection's token: the stack's trust) against the
endpoint of :class:`Target`'s region, each in one request, and raise what the API answered as
:class:`~thermik.errors.CloudError` carrying the API's own message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import tempfile
import threading
import urllib.parse
from collections.abc import Mapping
from typing import Any

from keystoneauth1 import exceptions as ksa_exceptions
from openstack.connection import Connection

from thermik.errors import CloudConflict, CloudError, CloudFault, CloudGone, CloudUnavailable

#: The service type of orchestration APIs in the catalog.
SERVICE_TYPE = "orchestration"


class EndpointMissing(CloudFault):
    """The catalog has no orchestration endpoint in the region (keystoneauth's wording)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, service=SERVICE_TYPE)


@dataclasses.dataclass(frozen=True)
class Target:
    """Where a remote stack lives: a region's orchestration endpoint, and how to verify TLS.

    ``ca_cert`` is a PEM text (the ``context`` property's), not a path.
    """

    region: str | None
    #: The catalog interface; ``None``: the connection's for orchestration (``[clients]``).
    interface: str | None = None
    ca_cert: str | None = None
    insecure: bool = False


@dataclasses.dataclass(frozen=True)
class RemoteState:
    """What a remote stack shows: its name, latest action and status, and outputs."""

    id: str
    name: str
    action: str
    status: str
    reason: str
    outputs: Mapping[str, Any]


def endpoint(conn: Connection, target: Target, service_type: str = SERVICE_TYPE) -> str | None:
    """The catalog's URL of ``service_type`` in the target's region, ``None`` if it has none."""
    try:
        url = conn.session.get_endpoint(
            service_type=service_type, region_name=target.region, interface=interface(conn, target)
        )
    except ksa_exceptions.EndpointNotFound:
        return None
    return None if url is None else str(url)


def interface(conn: Connection, target: Target) -> str:
    """The catalog interface the target is reached on."""
    found = target.interface or conn.config.get_interface(SERVICE_TYPE)
    return str(found or "public")


def base_url(conn: Connection, target: Target) -> str:
    """The target's orchestration endpoint.

    Raises:
        EndpointMissing: the catalog has none in that region (for that interface).
    """
    url = endpoint(conn, target)
    if url is None:
        raise EndpointMissing(missing_message(interface(conn, target), target.region))
    return url


def missing_message(interface: str, region: str | None) -> str:
    """keystoneauth's words for a catalog without orchestration in ``region`` (which Heat's
    remote stack errors quote)."""
    where = region or "the default"
    return f"{interface} endpoint for {SERVICE_TYPE} service in {where} region not found"


def validate(conn: Connection, target: Target, body: Mapping[str, Any]) -> None:
    """Ask the API to validate a template (``template``, ``files``, ``environment``)."""
    _request(conn, target, "POST", "/validate", body)


def create(conn: Connection, target: Target, body: Mapping[str, Any]) -> str:
    """Create a stack; its id."""
    answer = _request(conn, target, "POST", "/stacks", body)
    return str(answer["stack"]["id"])


def find_tagged(conn: Connection, target: Target, tag: str) -> str | None:
    """The id of the stack carrying ``tag`` (a creation tag), if any."""
    query = urllib.parse.urlencode({"tags": tag})
    stacks = _request(conn, target, "GET", f"/stacks?{query}")["stacks"]
    return str(stacks[0]["id"]) if stacks else None


def show(conn: Connection, target: Target, stack_id: str) -> RemoteState:
    """The stack ``stack_id``; CloudGone when there is none (or it is deleted)."""
    stack = _request(conn, target, "GET", f"/stacks/{_quote(stack_id)}")["stack"]
    action, status = split_status(str(stack.get("stack_status") or ""))
    return RemoteState(
        id=str(stack["id"]),
        name=str(stack["stack_name"]),
        action=action,
        status=status,
        reason=str(stack.get("stack_status_reason") or ""),
        outputs={
            o["output_key"]: o.get("output_value")
            for o in stack.get("outputs") or ()
            if isinstance(o, Mapping) and "output_key" in o
        },
    )


def split_status(stack_status: str) -> tuple[str, str]:
    """The action and status of a ``stack_status`` (``CREATE_IN_PROGRESS``: CREATE,
    PROGRESS, as :class:`RemoteState` keeps them)."""
    action, _, status = stack_status.partition("_")
    return action, status.rsplit("_", 1)[-1]


def update(conn: Connection, target: Target, stack: RemoteState, body: Mapping[str, Any]) -> None:
    """Update the stack to ``body`` (a full update: template, parameters, files ...)."""
    _request(conn, target, "PUT", _stack_path(stack), body)


def delete(conn: Connection, target: Target, stack: RemoteState) -> None:
    """Delete the stack (one gone already: CloudGone)."""
    _request(conn, target, "DELETE", _stack_path(stack))


def act(conn: Connection, target: Target, stack: RemoteState, action: str) -> None:
    """Start ``action`` (suspend, resume, check) on the stack."""
    _request(conn, target, "POST", f"{_stack_path(stack)}/actions", {action: None})


def _stack_path(stack: RemoteState) -> str:
    return f"/stacks/{_quote(stack.name)}/{_quote(stack.id)}"


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _request(
    conn: Connection,
    target: Target,
    method: str,
    path: str,
    body: Mapping[str, Any] | None = None,
) -> Any:
    response = conn.session.request(
        base_url(conn, target).rstrip("/") + path,
        method,
        json=None if body is None else dict(body),
        headers={"Accept": "application/json"},
        raise_exc=False,
        verify=_verify(target),
    )
    if response.status_code >= 400:
        raise _error(response.status_code, _message(response))
    if response.status_code == 204 or not response.content:
        return {}
    return response.json()


def _error(status: int, message: str) -> CloudError:
    kind: type[CloudError] = CloudFault
    if status == 404:
        kind = CloudGone
    elif status == 409:
        kind = CloudConflict
    elif status >= 500 or status in (408, 429):
        kind = CloudUnavailable
    return kind(message, service=SERVICE_TYPE, status=status)


def _message(response: Any) -> str:
    """The API's message (Heat's error body: ``{"error": {"message": ...}}``)."""
    with contextlib.suppress(ValueError, AttributeError, TypeError):
        body = response.json()
        error = body.get("error")
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])
        if body.get("explanation"):
            return str(body["explanation"])
    return f"the orchestration service answered HTTP {response.status_code}"


#: PEM texts written to files for requests' ``verify`` (one file per distinct certificate).
_CA_FILES: dict[str, str] = {}
_CA_LOCK = threading.Lock()


def _verify(target: Target) -> bool | str:
    """requests' ``verify`` for the target: False, a CA bundle file, or True."""
    if target.insecure:
        return False
    if not target.ca_cert:
        return True
    return _ca_file(target.ca_cert)


def _ca_file(pem: str) -> str:
    digest = hashlib.sha256(pem.encode()).hexdigest()
    with _CA_LOCK:
        path = _CA_FILES.get(digest)
        if path is None or not os.path.exists(path):
            handle, path = tempfile.mkstemp(prefix="thermik-ca-", suffix=".pem")
            with os.fdopen(handle, "w") as out:
                out.write(pem)
            _CA_FILES[digest] = path
        return path
