"""A template stored for a step that is refused is dropped again, and only then."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.unit.orchestration.conftest import CTX, TEMPLATE, create, settle
from thermik.api.boundary import StackIdentity, StackRequest, StackUpdate
from thermik.errors import EngineStopping, EngineUnavailable, NotFound, TraversalConflict
from thermik.orchestration import Orchestrator
from thermik.orchestration.stored_templates import dropped_if_refused


def test_a_refused_step_drops_its_template_and_the_refusal_propagates(
    service: Orchestrator,
) -> None:
    template_id = service.store.store_raw_template(TEMPLATE, {}, {})
    refusal = TraversalConflict("refused")
    with (
        pytest.raises(TraversalConflict) as caught,
        dropped_if_refused(service.store, template_id),
    ):
        raise refusal
    assert caught.value is refusal
    with pytest.raises(NotFound):
        service.store.get_raw_template(template_id)


def test_the_template_stays_after_success_or_an_unexpected_error(service: Orchestrator) -> None:
    store = service.store
    kept = store.store_raw_template(TEMPLATE, {}, {})
    with dropped_if_refused(store, kept):
        pass
    crashed = store.store_raw_template(TEMPLATE, {}, {})
    with pytest.raises(RuntimeError), dropped_if_refused(store, crashed):
        raise RuntimeError("not a refusal")
    assert store.get_raw_template(kept).template == TEMPLATE
    assert store.get_raw_template(crashed).template == TEMPLATE


def test_an_engine_that_did_not_answer_keeps_the_template_and_its_503(
    service: Orchestrator,
) -> None:
    """A service-mode engine whose RPC call timed out may be creating the stack with it."""
    store = service.store
    template_id = store.store_raw_template(TEMPLATE, {}, {})
    with pytest.raises(EngineUnavailable), dropped_if_refused(store, template_id):
        raise EngineUnavailable("no engine answered in time")
    assert store.get_raw_template(template_id).template == TEMPLATE


def test_a_template_the_step_took_after_all_leaves_the_refusal_as_the_answer(
    service: Orchestrator,
) -> None:
    stack = create(service)
    in_use = service.store.get_stack(stack.id).raw_template_id
    with pytest.raises(TraversalConflict), dropped_if_refused(service.store, in_use):
        raise TraversalConflict("refused")
    assert service.store.get_raw_template(in_use).template


def test_without_a_stored_template_the_refusal_just_propagates(service: Orchestrator) -> None:
    with pytest.raises(TraversalConflict), dropped_if_refused(service.store, None):
        raise TraversalConflict("refused")


def _update(service: Orchestrator, stack: StackIdentity, snapshot_id: str) -> None:
    request = StackRequest(template=TEMPLATE, parameters={"word": "other"})
    service.update_stack(CTX, stack, StackUpdate(request))


def _restore(service: Orchestrator, stack: StackIdentity, snapshot_id: str) -> None:
    service.restore_snapshot(CTX, stack, snapshot_id)


@pytest.mark.parametrize("attempt", [_update, _restore], ids=["update", "restore"])
def test_a_request_the_stopping_engine_refuses_leaves_no_template(
    service: Orchestrator, attempt: Callable[[Orchestrator, StackIdentity, str], None]
) -> None:
    stack = create(service)
    taken = service.create_snapshot(CTX, stack, "snap")
    settle(service, stack)
    # Templates are numbered in order: the request's own comes right after this one.
    probe = service.store.store_raw_template(TEMPLATE, {}, {})
    service.runtime.stop()
    with pytest.raises(EngineStopping):
        attempt(service, stack, taken.id)
    with pytest.raises(NotFound):
        service.store.get_raw_template(probe + 1)
