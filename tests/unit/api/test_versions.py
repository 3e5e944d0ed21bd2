"""The version document at ``/`` and ``/v1`` (openstacksdk's discovery with auth none)."""

from __future__ import annotations

import falcon.testing
import pytest

from tests.unit.api.conftest import HOST


@pytest.mark.parametrize("path", ["/", "/v1", "/v1/"])
def test_version_document(client: falcon.testing.TestClient, path: str) -> None:
    result = client.simulate_get(path)
    assert result.status_code == 300
    assert result.headers["content-type"] == "application/json"
    assert result.json == {
        "versions": [
            {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": f"{HOST}/v1/"}]}
        ]
    }


def test_version_link_follows_the_proxy(client: falcon.testing.TestClient) -> None:
    result = client.simulate_get(
        "/v1", headers={"X-Forwarded-Proto": "https", "X-Forwarded-Host": "heat.example.org"}
    )
    assert result.json["versions"][0]["links"][0]["href"] == "https://heat.example.org/v1/"


def test_build_info(client: falcon.testing.TestClient) -> None:
    result = client.simulate_get("/v1/t/build_info")
    assert result.status_code == 200
    assert result.json["engine"] == {"revision": "memory-1"}
    assert result.json["api"]["revision"]


def test_services_need_an_admin(client: falcon.testing.TestClient) -> None:
    result = client.simulate_get("/v1/t/services")
    assert result.status_code == 403
