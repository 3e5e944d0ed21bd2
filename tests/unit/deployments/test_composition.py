"""The composition root's delivery: a builtin backend served by the engine (at a remembered
loopback address) or left to the REST API to mount; plugins get the deployment services."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

from thermik.conf.settings import Settings
from thermik.delivery.base import ServerRef
from thermik.delivery.impl_builtin import BuiltinBackend
from thermik.service import (
    DELIVERY_URL_FILE,
    build_api_service,
    build_delivery,
    serve_delivery,
    start_engine,
)


def test_the_engine_serves_builtin_urls_where_it_served_them_before(tmp_path: Path) -> None:
    settings = Settings.embedded(tmp_path)
    first = build_delivery(settings)
    serve_delivery(settings, first)
    url = (tmp_path / DELIVERY_URL_FILE).read_text()
    assert url.startswith("http://127.0.0.1:")
    endpoint = first.provision(ServerRef("srv"))
    assert endpoint.collector_settings["metadata_url"].startswith(url + "/delivery/v1/")
    first.close()
    second = build_delivery(settings)
    serve_delivery(settings, second)
    again = second.provision(ServerRef("srv"))
    # Same address, same key (the embedded key file), same token: the old URL still works.
    assert (
        again.collector_settings["metadata_url"].split("?")[0]
        == (endpoint.collector_settings["metadata_url"].split("?")[0])
    )
    third = build_delivery(settings)
    serve_delivery(settings, third)  # the remembered port is taken: another one
    assert (tmp_path / DELIVERY_URL_FILE).read_text() != url
    second.close()
    third.close()


def test_a_configured_public_url_is_used(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings.embedded(tmp_path)
    public = f"http://127.0.0.1:{port}"
    settings = dataclasses.replace(
        settings, delivery=dataclasses.replace(settings.delivery, public_url=public)
    )
    backend = build_delivery(settings)
    serve_delivery(settings, backend)
    try:
        url = backend.provision(ServerRef("srv")).collector_settings["metadata_url"]
        assert url.startswith(public + "/delivery/v1/metadata/")
        assert not (tmp_path / DELIVERY_URL_FILE).exists()
    finally:
        backend.close()


def test_the_api_mounts_what_the_engine_does_not_serve(tmp_path: Path) -> None:
    service, handler = build_api_service(Settings.embedded(tmp_path))
    try:
        assert handler is not None
        assert not (tmp_path / DELIVERY_URL_FILE).exists()
    finally:
        service.close()


def test_the_engine_hands_the_deployment_services_to_the_runtime(tmp_path: Path) -> None:
    engine = start_engine(Settings.embedded(tmp_path))
    try:
        assert isinstance(engine.delivery, BuiltinBackend)
        assert engine.deployments is not None
        assert engine.deployments.backend is engine.delivery
    finally:
        engine.close()
