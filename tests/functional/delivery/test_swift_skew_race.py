"""The metadata race against the real Swift with a lagging proxy (tools/swift-skew-up.sh).

Twenty deployments to one server at once, delivered through proxies A and B, B's clock 2 s
behind: a write through B soon after one through A is answered 202 and dropped. Every round
must end with every deployment in the served document (and the newest generation served).
Heat's algorithm runs against the same proxies as an oracle, and its stale or lost rounds are
reported. The figures are printed (-s) and kept as test properties.

The skew test proves the lag is there, and the race asserts that some of its writes were
dropped, so it cannot pass without skew. Rounds: ``THERMIK_SKEW_RACE_ROUNDS`` (default 100, about
12 s; Heat's oracle plays 10, about 30 s, as it writes some 160 times a round).
"""

from __future__ import annotations

import os
import statistics
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from swiftclient import client as swift

from tests.functional.delivery.skew_rounds import (
    CountingSwiftBackend,
    RoundResult,
    SkewWorld,
    heat_round,
    thermik_round,
)
from tests.functional.services import SwiftAccount, SwiftEnv, service_settings
from thermik.delivery.impl_swift import connect

pytestmark = pytest.mark.functional

ROUNDS = int(os.environ.get("THERMIK_SKEW_RACE_ROUNDS", "100"))
PARALLEL = 5
HEAT_ROUNDS = 10


@pytest.fixture(scope="module")
def skewed_url(swift_env: SwiftEnv) -> str:
    """Proxy B's base URL (tools/swift-skew-up.sh writes it to .state/swift.env)."""
    return service_settings("swift", ("THERMIK_SWIFT_SKEWED_URL",))["THERMIK_SWIFT_SKEWED_URL"]


def through(url: str, storage_url: str) -> str:
    """``storage_url`` with the scheme and address of proxy ``url``."""
    base = urlsplit(url)
    return urlsplit(storage_url)._replace(scheme=base.scheme, netloc=base.netloc).geturl()


def test_a_write_through_the_lagging_proxy_is_dropped(
    swift_account: SwiftAccount, skewed_url: str
) -> None:
    a = swift_account.connection()
    b = swift.Connection(
        preauthurl=through(skewed_url, swift_account.storage_url),
        preauthtoken=swift_account.token,
    )
    a.put_container("skew")
    a.put_object("skew", "o", b"through A")
    response: dict[str, object] = {}
    b.put_object("skew", "o", b"through B", response_dict=response)
    assert response["status"] == 202
    for conn in (a, b):
        assert conn.get_object("skew", "o", headers={"X-Newest": "true"})[1] == b"through A"


@pytest.fixture
def world(swift_env: SwiftEnv, skewed_url: str) -> Iterator[SkewWorld]:
    settings = swift_env.delivery(f"thermik-skew-{uuid.uuid4().hex[:8]}")
    backend = CountingSwiftBackend(settings, proxy_urls=[skewed_url])
    proxy_a = connect(settings)
    with ThreadPoolExecutor(max_workers=16) as executor, backend:
        yield SkewWorld(backend, executor, proxy_a)
    proxy_a.close()


def play(rounds: int, play_one: Callable[[int], RoundResult]) -> list[RoundResult]:
    """Play ``rounds`` rounds, ``PARALLEL`` at a time (each round has its own server)."""
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return list(pool.map(play_one, range(rounds)))


def figures(results: list[RoundResult]) -> str:
    writes = [r.writes for r in results]
    dropped = sum(r.dropped for r in results)
    return (
        f"{len(results)} rounds: {sum(r.missing > 0 for r in results)} lost a deployment, "
        f"{sum(r.stale for r in results)} stale; object writes per round mean "
        f"{statistics.mean(writes):.1f} max {max(writes)}, {dropped} dropped (202) in all"
    )


def test_no_deployment_is_lost_under_proxy_skew(
    world: SkewWorld, record_property: Callable[[str, object], None]
) -> None:
    results = play(ROUNDS, lambda seed: thermik_round(world, seed))
    summary = figures(results)
    record_property("thermik", summary)
    print(f"\nthermik, 20 deployments at once, proxy B -2 s: {summary}")
    assert [r.missing for r in results] == [0] * ROUNDS, summary
    assert not any(r.stale for r in results), summary
    # Writes were dropped, so the rounds really raced the lagging proxy.
    assert sum(r.dropped for r in results) > 0, summary


def test_heat_oracle_against_the_same_proxies(
    world: SkewWorld, record_property: Callable[[str, object], None]
) -> None:
    results = play(HEAT_ROUNDS, lambda _: heat_round(world))
    summary = figures(results)
    record_property("heat", summary)
    print(f"\nheat 46132999c0, 20 deployments at once, proxy B -2 s: {summary}")
    assert sum(r.dropped for r in results) > 0, summary
