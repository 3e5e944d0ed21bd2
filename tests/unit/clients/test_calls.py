"""CloudClient.call: failures come out mapped, and only those that may pass are retried (a
conflict always, an unavailable service only for a call that is safe to repeat)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
import requests
import tenacity
from openstack import exceptions as sdk
from openstack.config.loader import OpenStackConfig
from openstack.connection import Connection

from thermik.clients import CloudClient
from thermik.clients.calls import once
from thermik.errors import CloudConflict, CloudGone, CloudUnavailable


def offline_connection() -> Connection:
    """A real connection that is never used for a request here."""
    region = OpenStackConfig(load_yaml_config=False, load_envvars=False).get_one(
        auth_type="none", auth={"endpoint": "http://127.0.0.1:9/"}
    )
    return Connection(config=region)


def client(retry_limit: int = 2) -> CloudClient:
    return CloudClient(
        offline_connection(), "network", retry_limit=retry_limit, backoff=tenacity.wait_none()
    )


def http_error(status: int) -> sdk.SDKException:
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps({"message": f"status {status}"}).encode()
    response.headers["Content-Type"] = "application/json"
    response.request = requests.Request("POST", "http://127.0.0.1:9/v2.0/ports").prepare()
    try:
        sdk.raise_from_response(response)
    except sdk.SDKException as error:
        return error
    raise AssertionError(status)


def failing(times: int, status: int, calls: list[Connection]) -> Callable[[Connection], str]:
    def action(connection: Connection) -> str:
        calls.append(connection)
        if len(calls) <= times:
            raise http_error(status)
        return "done"

    return action


def test_a_conflict_is_retried_until_it_passes() -> None:
    calls: list[Connection] = []
    cloud = client()
    assert cloud.call(failing(2, 409, calls)) == "done"
    assert len(calls) == 3
    assert all(c is cloud.connection for c in calls)


def test_retries_stop_at_the_limit_with_the_mapped_error() -> None:
    calls: list[Connection] = []
    with pytest.raises(CloudConflict) as caught:
        client(retry_limit=1).call(failing(5, 409, calls))
    assert len(calls) == 2
    assert caught.value.message == "status 409"
    assert isinstance(caught.value.__cause__, sdk.ConflictException)


def test_an_unavailable_service_is_retried_only_for_a_repeatable_call() -> None:
    calls: list[Connection] = []
    assert client().call(failing(1, 503, calls)) == "done"
    assert len(calls) == 2
    once: list[Connection] = []
    with pytest.raises(CloudUnavailable):
        client().call(failing(1, 503, once), idempotent=False)
    assert len(once) == 1


def test_inside_once_every_call_is_made_once_but_a_conflict_still_retried() -> None:
    tried: list[Connection] = []
    with once(), pytest.raises(CloudUnavailable):
        client().call(failing(1, 503, tried))
    assert len(tried) == 1
    conflicted: list[Connection] = []
    with once():
        assert client().call(failing(1, 409, conflicted)) == "done"
    assert len(conflicted) == 2
    after: list[Connection] = []
    assert client().call(failing(1, 503, after)) == "done"
    assert len(after) == 2


def test_a_conflict_is_retried_even_for_a_create() -> None:
    calls: list[Connection] = []
    assert client().call(failing(1, 409, calls), idempotent=False) == "done"
    assert len(calls) == 2


def test_gone_is_never_retried() -> None:
    calls: list[Connection] = []
    with pytest.raises(CloudGone):
        client().call(failing(1, 404, calls))
    assert len(calls) == 1


def test_an_error_outside_the_cloud_libraries_passes_unchanged() -> None:
    def broken(connection: Connection) -> None:
        raise KeyError("addresses")

    with pytest.raises(KeyError):
        client().call(broken)
