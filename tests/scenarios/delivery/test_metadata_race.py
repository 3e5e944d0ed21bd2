"""Racing deployments on one server through a fake Swift whose proxies' clocks disagree.

Every round is deterministic for its seed and runs on a virtual clock, so a thousand rounds of
+-2 s proxy skew take a couple of seconds. Heat's algorithm runs in the same world as an
oracle: it must lose updates there (or the fake does not model skew), while Thermik's writer
loses none.
"""

from __future__ import annotations

import dataclasses
import statistics

import pytest

from tests.scenarios.delivery.heat_oracle import run_heat_round
from thermik.delivery.fakeswift_cluster import Knobs
from thermik.delivery.messages import MetadataDelivered, MetadataDeliveryFailed
from thermik.delivery.metadata_writer import DeliveryPolicy
from thermik.delivery.race import NETWORK, RaceConfig, RaceWorld, SimulatedWriter, run_round

ROUNDS = 1000
AT_ONCE = RaceConfig(deployments=20, max_skew=2.0)
ONE_BY_ONE = dataclasses.replace(AT_ONCE, deployments=5, arrival_spread=1.0)


def test_twenty_deployments_at_once_lose_nothing_in_a_thousand_skewed_rounds(
    record_property: pytest.RecordProperty,
) -> None:
    results = [run_round(AT_ONCE, seed) for seed in range(ROUNDS)]
    assert [r.missing for r in results] == [0] * ROUNDS
    assert not any(r.stale for r in results)
    writes = [r.writes for r in results]
    record_property("object_writes_mean", statistics.mean(writes))
    record_property("object_writes_max", max(writes))
    # Coalescing: twenty deployments take a couple of writes, not twenty.
    assert statistics.mean(writes) <= 4
    assert max(writes) <= 12
    assert sum(r.dropped_writes for r in results) > 0, "skew never dropped a write"


def test_heats_double_cas_loses_updates_under_the_same_skew() -> None:
    # Measured on real Swift 2.38 with one proxy 2 s behind: 38% of such rounds stale, and
    # 39% of rounds with deployments arriving over a second lost one.
    stale = sum(run_heat_round(AT_ONCE, seed).stale for seed in range(30))
    lost = sum(run_heat_round(ONE_BY_ONE, seed).missing > 0 for seed in range(200))
    assert stale >= 5, f"Heat was left stale in {stale}/30 rounds: does the fake model skew?"
    assert lost >= 40, f"Heat lost deployments in {lost}/200 rounds: does the fake model skew?"


def test_without_skew_heat_loses_nothing_either() -> None:
    """Reordering alone is survivable; only the proxies' clocks break Heat (swift-skew §7)."""
    for config in (AT_ONCE, ONE_BY_ONE):
        calm = dataclasses.replace(config, max_skew=0.0)
        results = [run_heat_round(calm, seed) for seed in range(30)]
        assert sum(r.missing for r in results) == 0
        assert not any(r.stale for r in results)


def test_deployments_one_by_one_lose_nothing() -> None:
    results = [run_round(ONE_BY_ONE, seed) for seed in range(300)]
    assert sum(r.missing for r in results) == 0
    assert not any(r.stale for r in results)


def test_several_engine_processes_lose_nothing() -> None:
    for config in (AT_ONCE, ONE_BY_ONE):
        crowded = dataclasses.replace(config, engines=3)
        results = [run_round(crowded, seed) for seed in range(200)]
        assert sum(r.missing for r in results) == 0
        assert not any(r.stale for r in results)


def test_replica_lag_on_read_back_is_written_through() -> None:
    lagging = dataclasses.replace(
        NETWORK, stale_read_probability=0.5, stale_read_window=0.5, honour_newest=False
    )
    results = [run_round(dataclasses.replace(AT_ONCE, knobs=lagging), s) for s in range(200)]
    assert sum(r.missing for r in results) == 0
    assert not any(r.stale for r in results)


@pytest.mark.parametrize(
    "knobs",
    [
        dataclasses.replace(NETWORK, error_rate=0.2),
        dataclasses.replace(NETWORK, reset_rate=0.2),
        dataclasses.replace(NETWORK, latency=(0.2, 2.0), commit_delay=(0.05, 0.5)),
    ],
    ids=["5xx", "resets", "slow"],
)
def test_flaky_or_slow_swift_still_delivers_everything(knobs: Knobs) -> None:
    config = dataclasses.replace(AT_ONCE, knobs=knobs)
    results = [run_round(config, seed) for seed in range(100)]
    assert sum(r.missing for r in results) == 0
    assert not any(r.stale for r in results)


def test_delivery_resumes_when_swift_returns_and_the_outage_was_reported() -> None:
    config = dataclasses.replace(AT_ONCE, outages=((0.0, 20.0),))
    for seed in range(20):
        result = run_round(config, seed)
        assert result.missing == 0
        assert not result.stale
        failed, delivered = result.reports[0], result.reports[-1]
        assert isinstance(failed, MetadataDeliveryFailed)
        assert "fake Swift connection failed: connection refused" in failed.failure.message
        assert isinstance(delivered, MetadataDelivered)
        assert delivered.recovered


def test_persistent_outage_is_a_failure_with_a_reason_and_never_a_success() -> None:
    config = dataclasses.replace(AT_ONCE, outages=((0.0, 1e9),), horizon=600.0)
    result = run_round(config, seed=3)
    assert [type(r) for r in result.reports] == [MetadataDeliveryFailed]
    failure = result.reports[0].failure  # type: ignore[union-attr]
    assert str(failure) == (
        "DeliveryUnavailable: metadata delivery to server srv-race failed 8 time(s) in a row, "
        "still retrying: fake Swift connection failed: connection refused"
    )
    assert result.missing == 20


def test_an_object_stamped_an_hour_ahead_is_reported_stuck_and_never_delivered() -> None:
    """A proxy whose clock was an hour ahead wrote once; now no write can replace it."""
    config = dataclasses.replace(
        AT_ONCE, proxies=1, max_skew=0.0, horizon=300.0, policy=DeliveryPolicy(stuck_after=30.0)
    )
    world = RaceWorld(config, seed=1)
    world.cluster.configure(proxy_offsets=(3600.0,))
    world.sim.spawn(world.backend.publish_process(world.endpoint, {"deployments": []}), print)
    world.sim.run()
    world.cluster.configure(proxy_offsets=(0.0,))
    writer = SimulatedWriter(world, seed=1)
    world.schedule_arrivals(lambda index: writer.changed())
    world.sim.run(until=world.sim.now + config.horizon)
    kinds = [type(report) for _, report in writer.reports]
    assert kinds == [MetadataDeliveryFailed]
    at, report = writer.reports[0]
    assert 30.0 <= at <= 32.0
    assert isinstance(report, MetadataDeliveryFailed)
    assert report.failure.type_name == "DeliveryStuck"
    assert "older than the latest" in report.failure.message
    assert world.missing() == 20


def test_a_round_is_a_pure_function_of_its_seed() -> None:
    config = dataclasses.replace(AT_ONCE, knobs=dataclasses.replace(NETWORK, error_rate=0.1))
    assert run_round(config, 17) == run_round(config, 17)
    assert run_heat_round(ONE_BY_ONE, 17) == run_heat_round(ONE_BY_ONE, 17)
