"""Wait condition signal bookkeeping, as Heat's handles and wait conditions do it."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import InvalidSignal, PluginError
from thermik.resources.wait_condition import judge_signals, normalise_signal, signal_reason


def test_empty_signal_defaults_to_success_numbered_by_arrival() -> None:
    assert normalise_signal(None, 0) == (
        "1",
        {"reason": "Signal 1 received", "data": None, "status": "SUCCESS"},
    )
    assert normalise_signal({}, 2)[0] == "3"


def test_signal_keeps_what_was_sent() -> None:
    signal_id, entry = normalise_signal(
        {"status": "FAILURE", "reason": "boom", "data": {"k": 1}, "id": "inst-1"}, 0
    )
    assert signal_id == "inst-1"
    assert entry == {"status": "FAILURE", "reason": "boom", "data": {"k": 1}}
    assert signal_reason(entry) == "status:FAILURE reason:boom"


@pytest.mark.parametrize("data", [{"status": "MAYBE"}, {"extra": 1}, "text", [1]])
def test_malformed_signals_are_refused(data: Any) -> None:
    with pytest.raises(InvalidSignal, match="Metadata format invalid"):
        normalise_signal(data, 0)


def ok(reason: str) -> dict[str, Any]:
    return {"status": "SUCCESS", "reason": reason, "data": None}


def test_enough_successes_complete_the_wait() -> None:
    assert judge_signals({"1": ok("a")}, count=2, timed_out=False) is False
    assert judge_signals({"1": ok("a"), "2": ok("b")}, count=2, timed_out=False) is True


def test_a_failure_fails_with_its_reasons() -> None:
    signals = {"1": ok("a"), "2": {"status": "FAILURE", "reason": "disk full", "data": None}}
    with pytest.raises(PluginError, match=r"^disk full$"):
        judge_signals(signals, count=1, timed_out=False)


def test_timeout_reports_what_arrived() -> None:
    with pytest.raises(PluginError, match=r"^1 of 3 received - a$"):
        judge_signals({"1": ok("a")}, count=3, timed_out=True)
    with pytest.raises(PluginError, match=r"^0 of 1 received$"):
        judge_signals({}, count=1, timed_out=True)
