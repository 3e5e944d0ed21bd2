"""What openstacksdk and keystoneauth raise becomes Thermik's error tree, with the cloud's own
message and never its URL. The exceptions are the libraries' own, built from real HTTP
responses as openstacksdk builds them."""

from __future__ import annotations

import json

import pytest
import requests
from keystoneauth1 import exceptions as ksa
from openstack import exceptions as sdk

from thermik.clients import to_cloud_error
from thermik.errors import (
    CloudConflict,
    CloudError,
    CloudFault,
    CloudGone,
    CloudNoAnswer,
    CloudQuotaExceeded,
    CloudUnavailable,
    Failure,
)

URL = "http://10.0.0.5:9696/v2.0/ports"


def answer(status: int, body: object) -> BaseException:
    """The exception openstacksdk raises for ``status`` with the JSON ``body``."""
    response = requests.Response()
    response.status_code = status
    response._content = json.dumps(body).encode()
    response.headers["Content-Type"] = "application/json"
    response.request = requests.Request("POST", URL).prepare()
    response.url = URL
    try:
        sdk.raise_from_response(response)
    except sdk.SDKException as error:
        return error
    raise AssertionError(f"no exception for {status}")


def neutron_error(kind: str, message: str) -> dict[str, object]:
    return {"NeutronError": {"type": kind, "message": message, "detail": ""}}


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (
            answer(404, {"itemNotFound": {"code": 404, "message": "Flavor m9 not found."}}),
            CloudGone,
            "Flavor m9 not found.",
        ),
        (
            answer(409, neutron_error("IpAddressAlreadyAllocated", "IP 10.0.0.3 is in use.")),
            CloudConflict,
            "IP 10.0.0.3 is in use.",
        ),
        (
            answer(409, neutron_error("OverQuota", "Quota exceeded for resources: ['port'].")),
            CloudQuotaExceeded,
            "Quota exceeded for resources: ['port'].",
        ),
        (
            answer(
                403,
                {"forbidden": {"code": 403, "message": "Quota exceeded for instances: 1 of 1"}},
            ),
            CloudQuotaExceeded,
            "Quota exceeded for instances: 1 of 1",
        ),
        (
            answer(413, {"overLimit": {"code": 413, "message": "VolumeLimitExceeded: max 1"}}),
            CloudFault,
            "VolumeLimitExceeded: max 1",
        ),
        (
            answer(400, {"badRequest": {"code": 400, "message": "Invalid flavorRef."}}),
            CloudFault,
            "Invalid flavorRef.",
        ),
        (
            answer(503, {"message": "The server is currently unavailable."}),
            CloudUnavailable,
            "The server is currently unavailable.",
        ),
        (
            answer(429, {"message": "Rate limit exceeded."}),
            CloudUnavailable,
            "Rate limit exceeded.",
        ),
    ],
)
def test_an_http_error_maps_by_status_with_the_clouds_message(
    error: BaseException, kind: type[CloudError], message: str
) -> None:
    mapped = to_cloud_error(error, "network")
    assert type(mapped) is kind
    assert mapped.message == message
    assert mapped.status == getattr(error, "status_code", None)
    assert mapped.service == "network"


def test_retryable_errors_are_conflicts_and_unavailable_services() -> None:
    assert CloudConflict.retryable
    assert CloudUnavailable.retryable
    assert not any(k.retryable for k in (CloudGone, CloudQuotaExceeded, CloudFault))


def test_an_unreachable_service_names_the_service_not_its_url() -> None:
    error = ksa.ConnectFailure(f"Unable to establish connection to {URL}: refused")
    mapped = to_cloud_error(error, "network")
    assert type(mapped) is CloudUnavailable
    assert mapped.message == "the network service is unreachable"
    timeout = to_cloud_error(ksa.ConnectTimeout(f"timed out: {URL}"), "compute")
    assert (type(timeout), timeout.message) == (
        CloudNoAnswer,
        "the compute service did not answer in time",
    )


def test_a_tls_failure_is_not_retried_and_says_what_to_check() -> None:
    mapped = to_cloud_error(ksa.SSLError(f"certificate verify failed: {URL}"), "image")
    assert type(mapped) is CloudFault
    assert "ca_file" in mapped.message
    assert "10.0.0.5" not in mapped.message


def test_an_html_error_page_gives_its_text_not_the_url() -> None:
    response = requests.Response()
    response.status_code = 502
    response._content = b"<html><body>Bad Gateway</body></html>"
    response.headers["Content-Type"] = "text/html"
    response.request = requests.Request("GET", URL).prepare()
    with pytest.raises(sdk.HttpException) as caught:
        sdk.raise_from_response(response)
    mapped = to_cloud_error(caught.value, "network")
    assert type(mapped) is CloudUnavailable
    assert (mapped.message, mapped.status) == ("Bad Gateway", 502)


def test_an_sdk_wait_failure_keeps_its_message() -> None:
    mapped = to_cloud_error(sdk.ResourceFailure("Error in creating the server."), "compute")
    assert (type(mapped), mapped.message) == (CloudFault, "Error in creating the server.")


def test_a_mapped_error_is_a_resource_failure_heat_style() -> None:
    mapped = to_cloud_error(
        answer(404, {"itemNotFound": {"code": 404, "message": "Image x not found."}}), "image"
    )
    failure = Failure.from_exception(mapped).of_resource("server")
    assert str(failure) == "NotFound: resources.server: Image x not found."


def test_a_refused_authentication_blames_keystone_not_the_service() -> None:
    auth_url = "http://10.0.0.5:5000/v3/auth/tokens"
    response = requests.Response()
    response.status_code = 401
    response._content = b'{"error": {"code": 401, "title": "Unauthorized"}}'
    response.headers["Content-Type"] = "application/json"
    refused = ksa.from_response(response, "POST", auth_url)
    error = to_cloud_error(refused, "network")
    assert isinstance(error, CloudFault)
    assert (error.service, error.status) == ("identity", 401)
    assert error.message.startswith("Keystone refused to authenticate the credential")
    assert "10.0.0.5" not in error.message
