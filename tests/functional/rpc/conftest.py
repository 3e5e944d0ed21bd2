"""Fixtures of service mode's tests: a RabbitMQ virtual host and a PostgreSQL database of
their own, and a cluster of engines and API processes on them.

A missing RabbitMQ or PostgreSQL skips the tests with the reason, or fails them when
``THERMIK_REQUIRE_SERVICES=1`` (CI). The virtual host is made with ``rabbitmqctl`` when it is
installed (and deleted afterwards); otherwise the default virtual host is used with a
control exchange and topics of the run's own (``cluster.own_vhost``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import dbservers
from tests.e2e.api_process import ApiProcess
from tests.functional.rpc.cluster import (
    Api,
    EngineProcess,
    migrate,
    own_vhost,
    rabbit_unreachable,
    write_config,
)
from tests.functional.services import unavailable

#: The broker the tests use (the machine's RabbitMQ by default).
RABBIT_URL = os.environ.get("THERMIK_TEST_RABBIT_URL", "rabbit://guest:guest@127.0.0.1:5672/")
ENGINES = 3
APIS = 2


@pytest.fixture(scope="module")
def rabbit() -> Iterator[tuple[str, str]]:
    """``(transport_url, unique name)`` on a virtual host of the module's own."""
    reason = rabbit_unreachable(RABBIT_URL)
    if reason is not None:
        unavailable(reason)
    with own_vhost(RABBIT_URL) as found:
        yield found


@pytest.fixture(scope="module")
def postgresql(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A fresh PostgreSQL database, migrated."""
    reason = dbservers.unavailable("postgresql")
    if reason is not None:
        unavailable(reason)
    with dbservers.scratch_database("postgresql", tmp_path_factory.mktemp("db")) as url:
        migrate(url)
        yield url


class Cluster:
    """Engines and API processes on one database and one message bus."""

    def __init__(self, config: Path, notify_topic: str, transport: str) -> None:
        self.config = config
        self.notify_topic = notify_topic
        self.transport = transport
        self.engines: list[EngineProcess] = []
        self.apis: list[Api] = []

    def start(self) -> None:
        """Start the engines, then the API processes."""
        for _ in range(ENGINES):
            self.engines.append(EngineProcess(self.config))
        for _ in range(APIS):
            self.apis.append(Api(ApiProcess(self.config)))

    def engine(self, engine_id: str) -> EngineProcess:
        """The engine process of that id."""
        return next(e for e in self.engines if e.engine_id == engine_id)

    def close(self) -> None:
        """Stop every process; their logs are kept beside the configuration."""
        for number, api in enumerate(self.apis):
            api.process.close()
            log = self.config.with_name(f"api{number}.log")
            log.write_text(api.process.rest_of_log(), encoding="utf-8")
        for number, engine in enumerate(self.engines):
            engine.close()
            log = self.config.with_name(f"engine{number}.log")
            log.write_text("".join(engine.log), encoding="utf-8")


@pytest.fixture(scope="module")
def cluster(
    rabbit: tuple[str, str], postgresql: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Three engines and two engine-less API processes."""
    transport, name = rabbit
    directory = tmp_path_factory.mktemp("cluster")
    config = write_config(directory / "thermik.conf", postgresql, transport, name)
    built = Cluster(config, f"{name}_notifications", transport)
    try:
        built.start()
        yield built
    finally:
        built.close()
