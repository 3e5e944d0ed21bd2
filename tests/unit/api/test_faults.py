"""Errors leave the API as Heat's error document with the class's status and type."""

from __future__ import annotations

import logging
from typing import Any

import falcon.testing
import pytest

from tests.unit.api.conftest import TENANT, tenant_path
from tests.unit.api.memory_service import MemoryService
from thermik import errors
from thermik.api.app import make_app
from thermik.api.boundary import RequestContext
from thermik.api.faults import DATABASE_MESSAGE, error_document
from thermik.conf.settings import ApiSettings, LimitSettings


def assert_heat_error(result: Any, status: int, heat_type: str) -> dict[str, Any]:
    assert result.status_code == status, result.text
    assert result.headers["content-type"] == "application/json"
    body = result.json
    assert set(body) == {"code", "title", "explanation", "error"}
    assert body["code"] == status
    assert body["error"]["type"] == heat_type
    assert body["error"]["traceback"] is None
    assert body["error"]["message"]
    return body


def test_error_document_shape() -> None:
    assert error_document(404, "EntityNotFound", "The Stack (x) could not be found.") == {
        "code": 404,
        "title": "Not Found",
        "explanation": "The resource could not be found.",
        "error": {
            "type": "EntityNotFound",
            "message": "The Stack (x) could not be found.",
            "traceback": None,
        },
    }


def test_unknown_status_has_a_title() -> None:
    assert error_document(599, "X", "m")["title"] == "Error"


def test_unknown_route_is_a_heat_404(client: falcon.testing.TestClient) -> None:
    body = assert_heat_error(client.simulate_get("/v1/t/no_such_thing"), 404, "HTTPNotFound")
    assert "/v1/t/no_such_thing" in body["error"]["message"]


def test_unlisted_method_is_405_with_allow(client: falcon.testing.TestClient) -> None:
    result = client.simulate_delete(tenant_path("/stacks"))
    assert_heat_error(result, 405, "HTTPMethodNotAllowed")
    assert "POST" in result.headers["allow"]


def test_stack_not_found_maps_to_404(client: falcon.testing.TestClient) -> None:
    body = assert_heat_error(
        client.simulate_get(tenant_path("/stacks/nope")), 404, "EntityNotFound"
    )
    assert body["error"]["message"] == "The Stack (nope) could not be found."


def test_invalid_input_names_the_field(client: falcon.testing.TestClient) -> None:
    result = client.simulate_post(
        tenant_path("/stacks"), json={"stack_name": "s", "template": {}, "timeout_mins": "x"}
    )
    body = assert_heat_error(result, 400, "HTTPBadRequest")
    assert body["error"]["message"] == "timeout_mins: must be an integer, not 'x'"


DB_URL = "postgresql+psycopg://heat@db.example:5432/thermik"


class ExplodingService(MemoryService):
    """A service with a bug in one method."""

    def list_stacks(self, ctx: RequestContext, query: Any) -> Any:
        raise RuntimeError("secret internal detail")

    def engine_revision(self, ctx: RequestContext) -> str:
        raise errors.DatabaseUnavailable(f"database {DB_URL} is unavailable: connection refused")


@pytest.fixture
def exploding() -> falcon.testing.TestClient:
    return falcon.testing.TestClient(
        make_app(ExplodingService(), ApiSettings(), limits=LimitSettings())
    )


def test_unexpected_exception_is_a_generic_500(
    exploding: falcon.testing.TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="thermik.api.faults"):
        result = exploding.simulate_get(tenant_path("/stacks"))
    body = assert_heat_error(result, 500, "HeatException")
    assert "secret" not in result.text
    assert body["error"]["message"] == "The server encountered an internal error."
    assert "secret internal detail" in caplog.text


def test_store_errors_are_a_generic_503_and_the_details_are_logged(
    exploding: falcon.testing.TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="thermik.api.faults"):
        result = exploding.simulate_get(tenant_path("/build_info"))
    body = assert_heat_error(result, 503, "HeatException")
    assert body["error"]["message"] == DATABASE_MESSAGE
    for internal in ("db.example", "heat@", "5432", "postgresql", "refused"):
        assert internal not in result.text
    assert f"database {DB_URL} is unavailable: connection refused" in caplog.text


def test_every_response_has_a_request_id(client: falcon.testing.TestClient) -> None:
    first = client.simulate_get(tenant_path("/stacks"))
    second = client.simulate_get(f"/v1/{TENANT}/nothing")
    ids = {first.headers["x-openstack-request-id"], second.headers["x-openstack-request-id"]}
    assert len(ids) == 2
    assert all(i.startswith("req-") for i in ids)


def test_a_client_error_is_one_log_line_it_cannot_forge(
    client: falcon.testing.TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        result = client.simulate_get(tenant_path("/stacks/no%0Ape"))
    assert result.status_code == 404
    assert [(r.name, r.levelno, r.exc_info) for r in caplog.records] == [
        ("thermik.api.faults", logging.INFO, None)
    ]
    assert caplog.records[0].getMessage() == (
        f"GET /v1/{TENANT}/stacks/no\\x0ape: 404 StackNotFound: "
        "The Stack (no\\x0ape) could not be found."
    )
