"""Wait condition signal bookkeeping, as Heat's handles and wait conditions do it."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import InvalidSignal, PluginError
from thermik.resources import PollAfter
from thermik.resources.wait_condition import (
    WaitCondition,
    WaitConditionHandle,
    judge_signals,
    normalise_signal,
    signal_reason,
)


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


def handle_and_condition(count: int = 2, timeout: int = 10) -> tuple[Context, Context, Any]:
    handle_ctx = Context(resource_name="h", resource_type="OS::Heat::WaitConditionHandle")
    WaitConditionHandle().create(handle_ctx, {})
    assert handle_ctx.physical_id is not None
    wait_ctx = Context(resource_name="w", resource_type="OS::Heat::WaitCondition")
    wait_ctx.peers[handle_ctx.physical_id] = handle_ctx.data
    props = WaitCondition.check_properties(
        {"handle": handle_ctx.physical_id, "timeout": timeout, "count": count}
    )
    return handle_ctx, wait_ctx, props


def test_a_handle_keeps_each_signal_and_the_wait_completes_on_count() -> None:
    handle_ctx, wait_ctx, props = handle_and_condition(count=2)
    handle = WaitConditionHandle()
    wait = WaitCondition()
    progress = wait.create(wait_ctx, props)
    assert isinstance(wait.check_create_complete(wait_ctx, props, progress), PollAfter)
    reason = handle.handle_signal(handle_ctx, {}, {"data": "one"})
    assert reason == "status:SUCCESS reason:Signal 1 received"
    assert isinstance(wait.check_create_complete(wait_ctx, props, progress), PollAfter)
    handle.handle_signal(handle_ctx, {}, {"id": "web", "data": {"ip": "10.0.0.1"}})
    assert wait.check_create_complete(wait_ctx, props, progress) is True
    assert json.loads(wait.resolve_attribute(wait_ctx, props, "data")) == {
        "1": "one",
        "web": {"ip": "10.0.0.1"},
    }


def test_a_failure_signal_fails_the_wait() -> None:
    handle_ctx, wait_ctx, props = handle_and_condition(count=1)
    wait = WaitCondition()
    progress = wait.create(wait_ctx, props)
    WaitConditionHandle().handle_signal(handle_ctx, {}, {"status": "FAILURE", "reason": "no disk"})
    with pytest.raises(PluginError, match=r"^no disk$"):
        wait.check_create_complete(wait_ctx, props, progress)


def test_the_wait_times_out_on_the_context_clock() -> None:
    _, wait_ctx, props = handle_and_condition(count=1, timeout=5)
    wait = WaitCondition()
    progress = wait.create(wait_ctx, props)
    wait_ctx.clock.advance(5)
    with pytest.raises(PluginError, match=r"^0 of 1 received$"):
        wait.check_create_complete(wait_ctx, props, progress)


def test_a_malformed_signal_stores_nothing() -> None:
    handle_ctx = Context(resource_name="h")
    with pytest.raises(InvalidSignal):
        WaitConditionHandle().handle_signal(handle_ctx, {}, {"status": "MAYBE"})
    assert handle_ctx.data.as_dict() == {}


def test_a_wait_on_something_that_is_no_handle_fails_clearly() -> None:
    wait_ctx = Context(resource_name="w")
    props = WaitCondition.check_properties({"handle": "nowhere", "timeout": 5})
    with pytest.raises(PluginError, match="handle nowhere of w is not a resource of this stack"):
        WaitCondition().check_create_complete(wait_ctx, props, None)


class SignalUrls:
    """The engine's handle signal services of an engine without a REST API (local mode)."""

    api_url: str | None = None

    def handle_signal_url(self, stack_id: str, resource_name: str) -> str | None:
        return f"http://127.0.0.1:9/delivery/v1/handle/{stack_id}/{resource_name}?sig=1&e=2"


@dataclasses.dataclass
class LocalContext(Context):
    """A handle's context on an engine with builtin delivery and no stack user domain."""

    software: SignalUrls = dataclasses.field(default_factory=SignalUrls)


def handle_attributes(ctx: Context, transport: str) -> dict[str, Any]:
    props = WaitConditionHandle.check_properties({"signal_transport": transport})
    WaitConditionHandle().create(ctx, props)
    return {
        name: WaitConditionHandle().resolve_attribute(ctx, props, name)
        for name in ("token", "endpoint", "curl_cli", "signal")
    }


def test_a_token_signal_handle_in_local_mode_hands_out_the_builtin_handle_url() -> None:
    url = "http://127.0.0.1:9/delivery/v1/handle/stack-id/r?sig=1&e=2"
    assert handle_attributes(LocalContext(), "TOKEN_SIGNAL") == {
        "token": None,
        "endpoint": url,
        "curl_cli": "curl -i -X POST -H 'Content-Type: application/json' "
        f"-H 'Accept: application/json' '{url}'",
        "signal": json.dumps({"alarm_url": url}),
    }


def test_zaqar_signal_needs_a_stack_user_domain() -> None:
    with pytest.raises(PluginError, match="needs a Keystone user of its own"):
        handle_attributes(LocalContext(), "ZAQAR_SIGNAL")


@pytest.mark.parametrize("transport", ["TEMP_URL_SIGNAL", "CFN_SIGNAL"])
def test_transports_without_a_signaller_yet_hand_out_nothing(transport: str) -> None:
    assert handle_attributes(LocalContext(), transport) == {
        "token": None,
        "endpoint": None,
        "curl_cli": None,
        "signal": "null",
    }


def test_heat_signal_needs_the_engines_rest_api() -> None:
    with pytest.raises(PluginError, match="HEAT_SIGNAL needs the engine's REST API"):
        handle_attributes(LocalContext(), "HEAT_SIGNAL")


def test_a_no_signal_handle_signals_itself_and_the_wait_completes() -> None:
    handle = LocalContext()
    assert handle_attributes(handle, "NO_SIGNAL")["signal"] == "{}"
    wait = Context(peers={"h": handle.data})
    props = WaitCondition.check_properties({"handle": "h", "timeout": 10})
    progress = WaitCondition().create(wait, props)
    assert WaitCondition().check_create_complete(wait, props, progress) is True
