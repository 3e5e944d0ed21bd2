"""A remote service's HTTP error answers as Thermik's errors, in the service's own words."""

from __future__ import annotations

import pytest

from thermik import errors
from thermik.api.faults import error_document
from thermik.clients.heat_wire import error_of


@pytest.mark.parametrize(
    ("status", "heat_type", "kind"),
    [
        (400, "StackValidationFailed", errors.InvalidInput),
        (403, "Forbidden", errors.Forbidden),
        (404, "EntityNotFound", errors.NotFound),
        (409, "StackExists", errors.DuplicateName),
        (409, "ActionInProgress", errors.InvalidTransition),
        (409, "HTTPConflict", errors.Conflict),
        (413, "RequestLimitExceeded", errors.RequestTooLarge),
    ],
)
def test_heats_error_documents(status: int, heat_type: str, kind: type[Exception]) -> None:
    error = error_of(status, error_document(status, heat_type, "what the service said"))
    assert type(error) is kind
    assert str(error) == "what the service said"


def test_keystonemiddlewares_refusal() -> None:
    body = {
        "error": {
            "code": 401,
            "title": "Unauthorized",
            "message": "The request you have made requires authentication.",
        }
    }
    error = error_of(401, body)
    assert isinstance(error, errors.Unauthorized)
    assert str(error) == "The request you have made requires authentication."


def test_a_failing_service_without_a_document() -> None:
    error = error_of(502, None)
    assert isinstance(error, errors.RemoteUnavailable)
    assert str(error) == "the orchestration service failed (HTTP 502)"
    fault = error_of(500, error_document(500, "HeatException", "internal"))
    assert str(fault) == "the orchestration service failed: internal"
