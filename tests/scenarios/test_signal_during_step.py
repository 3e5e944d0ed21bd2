"""A signal that arrives while the resource's plugin call runs waits for the call to return.

The gated type stores what a signal needs at the end of its create call, as a software
deployment stores its handle: a signal sent as soon as the row is ``CREATE_IN_PROGRESS`` must
find it, not fail with "has not started" because it ran beside the call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.scenarios.runtime_harness import Harness, harness_with_types, wait_until
from thermik.engine.states import Action
from thermik.errors import InvalidSignal
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props, ResourcePlugin

#: How long the test lets a signal run beside the blocked call before it opens the gate.
BESIDE = 1.0


class Gated(ResourcePlugin):
    """Its create call blocks on a gate, then stores the key its signals look for."""

    takes_signals: ClassVar[bool] = True
    entered: ClassVar[threading.Event]
    gate: ClassVar[threading.Event]
    signalled: ClassVar[threading.Event]

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        self.entered.set()
        self.gate.wait(30)
        ctx.data.set("handle", "ready")
        return Progress({"waiting": True})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> bool:
        return self.signalled.is_set()

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        if ctx.data.get("handle") is None:
            raise InvalidSignal("gated has not started", resource=ctx.resource_name)
        self.signalled.set()
        return None


@pytest.fixture
def gated_harness(tmp_path: Path) -> Iterator[Harness]:
    Gated.entered, Gated.gate, Gated.signalled = (threading.Event() for _ in range(3))
    with harness_with_types(tmp_path, {"Test::Gated": Gated}) as harness:
        try:
            yield harness
        finally:
            Gated.gate.set()


def test_a_signal_sent_during_the_create_call_is_handled_after_it(gated_harness: Harness) -> None:
    harness = gated_harness
    stack_id = harness.stack({"g": {"type": "Test::Gated"}})
    harness.converge(stack_id, Action.CREATE)
    assert Gated.entered.wait(20)
    wait_until(lambda: harness.states(stack_id).get("g") == "CREATE_IN_PROGRESS")
    outcome: list[BaseException | None] = []

    def signal() -> None:
        try:
            harness.runtime.signal(stack_id, "g", {"status": "SUCCESS"})
            outcome.append(None)
        except BaseException as error:  # the outcome under test
            outcome.append(error)

    sender = threading.Thread(target=signal)
    sender.start()
    sender.join(BESIDE)
    # Still waiting for the call: handled beside it, the signal would have failed by now.
    assert outcome == []
    Gated.gate.set()
    sender.join(20)
    assert outcome == [None]
    assert harness.wait(stack_id) == "CREATE_COMPLETE", harness.reason(stack_id)
