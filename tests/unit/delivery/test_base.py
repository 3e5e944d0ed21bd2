"""Endpoints survive a trip through JSON, so the persistence layer can store them."""

from __future__ import annotations

import json

from thermik.delivery.base import MetadataEndpoint, SignalEndpoint


def test_metadata_endpoint_round_trips_through_json() -> None:
    endpoint = MetadataEndpoint(
        backend="fakeswift",
        server_id="srv-1",
        collector="request",
        collector_settings={"metadata_url": "http://h/v1/AUTH_a/c/o?temp_url_sig=x"},
        locator={"container": "c", "object": "o"},
    )
    again = MetadataEndpoint.from_dict(json.loads(json.dumps(endpoint.to_dict())))
    assert again == endpoint


def test_signal_endpoint_round_trips_through_json() -> None:
    endpoint = SignalEndpoint(
        backend="builtin",
        deployment_id="dep-1",
        transport="TEMP_URL_SIGNAL",
        inputs={"deploy_signal_id": "http://h/s", "deploy_signal_verb": "PUT"},
        locator={"key": "k"},
    )
    again = SignalEndpoint.from_dict(json.loads(json.dumps(endpoint.to_dict())))
    assert again == endpoint
