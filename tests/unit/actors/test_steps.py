"""Executor steps call a real plugin once per step and say what comes next."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.resources.harness import Context
from thermik.actors import steps
from thermik.errors import CloudUnavailable, PluginError, PropertyError
from thermik.resources import CheckResult, PollAfter, Progress, Props, ResourcePlugin
from thermik.resources.plugin import Operation
from thermik.resources.test_resource import TestResource


def call(operation: Operation, attributes: list[str] | None = None, **props: Any) -> steps.Call:
    values = TestResource.check_properties(props)
    return steps.Call(TestResource(), Context(), values, operation, attributes)  # type: ignore[arg-type]


def test_an_instant_create_completes_in_one_step_with_its_attributes() -> None:
    done = steps.start(call(Operation.CREATE, ["output"], value="hello"))
    assert isinstance(done, steps.Completed)
    assert done.attributes == {"output": "hello"}
    assert done.reference_id is not None
    assert done.reference_id.startswith("teststack-r-")


def test_a_slow_action_asks_to_be_polled_after_the_plugins_hint() -> None:
    waiting = call(Operation.CREATE, wait_secs=5)
    pending = steps.start(waiting)
    assert isinstance(pending, steps.Pending)
    assert pending.poll_after == 5
    waiting.ctx.clock.advance(5)  # type: ignore[attr-defined]
    assert isinstance(steps.poll(waiting, pending.progress), steps.Completed)


def test_plan_decides_between_no_change_in_place_and_replacement() -> None:
    same = call(Operation.UPDATE, ["output"], value="a")
    assert isinstance(steps.plan(same, same.props), steps.Completed)
    changed = call(Operation.UPDATE, value="b")
    assert steps.plan(changed, same.props) == steps.Planned(frozenset({"value"}))
    replaced = call(Operation.UPDATE, value="b", update_replace=True)
    old = {**replaced.props, "value": "a"}
    assert isinstance(steps.plan(replaced, old), steps.Replace)


def test_a_plugin_failure_is_raised_to_the_caller() -> None:
    with pytest.raises(PluginError, match="Test Resource failed r"):
        steps.start(call(Operation.CREATE, fail=True))


class Confused(ResourcePlugin):
    def create(self, ctx: Any, props: Props) -> Progress | None:
        return None

    def check_create_complete(self, ctx: Any, props: Props, progress: Progress | None) -> Any:
        return "maybe"


def test_a_check_that_answers_nonsense_fails_clearly() -> None:
    confused = steps.Call(Confused(), Context(), {}, Operation.CREATE)  # type: ignore[arg-type]
    with pytest.raises(PluginError, match="check of CREATE returned 'maybe'"):
        steps.start(confused)


class Staged(ResourcePlugin):
    """Two stages: the check moves the progress on, then completes."""

    def create(self, ctx: Any, props: Props) -> Progress | None:
        return Progress({"stage": 1})

    def check_create_complete(
        self, ctx: Any, props: Props, progress: Progress | None
    ) -> CheckResult:
        assert progress is not None
        if progress.state["stage"] == 1:
            return PollAfter(3, Progress({"stage": 2}))
        return PollAfter(4) if progress.state.get("waited") is None else True


def test_a_poll_hint_may_move_the_progress_on() -> None:
    staged = steps.Call(Staged(), Context(), {}, Operation.CREATE)  # type: ignore[arg-type]
    first = steps.start(staged)
    assert first == steps.Pending(Progress({"stage": 2}), 3)
    # A hint without a progress keeps the one the action has.
    assert steps.poll(staged, first.progress) == steps.Pending(Progress({"stage": 2}), 4)
    done = steps.poll(staged, Progress({"stage": 2, "waited": True}))
    assert isinstance(done, steps.Completed)


class Picky(ResourcePlugin):
    def create(self, ctx: Any, props: Props) -> Progress | None:
        raise AssertionError("never created: the properties do not validate")

    def validate(self, props: Props, vctx: Any) -> None:
        raise PropertyError("too small", path=("properties", "size"))


def test_the_plugins_own_validation_runs_before_it_acts() -> None:
    picky = steps.Call(Picky(), Context(), {}, Operation.CREATE)  # type: ignore[arg-type]
    with pytest.raises(PropertyError, match=r"^resources\.r\.properties\.size: too small$"):
        steps.start(picky)
    with pytest.raises(PropertyError, match="too small"):
        steps.plan(picky, {})


class Flaky(ResourcePlugin):
    """A cloud type whose service is down for the first ``outage`` calls of its create and of
    its check."""

    def __init__(self, outage: int) -> None:
        self.create_outage = self.check_outage = outage
        self.creates = 0

    def create(self, ctx: Any, props: Props) -> Progress | None:
        self.creates += 1
        if self.create_outage:
            self.create_outage -= 1
            raise CloudUnavailable("Service Unavailable", service="network", status=503)
        return Progress({"mine": 1})

    def check_create_complete(
        self, ctx: Any, props: Props, progress: Progress | None
    ) -> CheckResult:
        assert progress == Progress({"mine": 1}), "the plugin sees its own progress only"
        if self.check_outage:
            self.check_outage -= 1
            raise CloudUnavailable("Bad Gateway", service="network", status=502)
        return True


def test_an_unavailable_cloud_is_waited_for_with_backoff_and_the_action_goes_on() -> None:
    flaky = Flaky(outage=2)
    waiting = steps.Call(flaky, Context(), {}, Operation.CREATE)  # type: ignore[arg-type]
    first = steps.start(waiting)
    assert isinstance(first, steps.Pending)
    assert first.poll_after == 1.0
    assert steps.unavailable_reason(first.progress) == "ServiceUnavailable: Service Unavailable"
    second = steps.poll(waiting, first.progress)
    assert isinstance(second, steps.Pending)
    assert second.poll_after == 2.0, "backing off"
    # The create is started again and succeeds; its check then finds the service down.
    third = steps.poll(waiting, second.progress)
    assert isinstance(third, steps.Pending)
    assert steps.unavailable_reason(third.progress) == "ServiceUnavailable: Bad Gateway"
    fourth = steps.poll(waiting, third.progress)
    assert isinstance(fourth, steps.Pending)
    assert isinstance(steps.poll(waiting, fourth.progress), steps.Completed)
    assert flaky.creates == 3
