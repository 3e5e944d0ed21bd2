"""What crosses the message bus comes back as it was sent."""

from __future__ import annotations

import json

from thermik import errors
from thermik.engine.messages import ConvergeRequest
from thermik.engine.states import Action
from thermik.persistence.values import NewLease, NewStack
from thermik.rpc import codec


def over_the_wire(value: object) -> object:
    """What the other side decodes: JSON primitives only."""
    return json.loads(json.dumps(value))


def test_a_converge_request_round_trips() -> None:
    request = ConvergeRequest(
        stack_id="s1",
        operation=Action.ADOPT,
        template_id=7,
        expected_traversal="t0",
        disable_rollback=False,
        timeout_mins=3,
        adopt_data={"resources": {"a": {"resource_id": "x"}}},
        timeout_seconds=1.5,
    )
    wire = over_the_wire(codec.converge_request(request))
    assert isinstance(wire, dict)
    assert codec.converge_request_from(wire) == request


def test_a_new_stack_round_trips() -> None:
    new = NewStack(
        name="web",
        tenant="t",
        raw_template_id=3,
        username="u",
        id="s1",
        tags=("a", "b"),
        current_deps={"edges": [[1, 2]]},
        lease=NewLease("e1", 60.0),
    )
    wire = over_the_wire(codec.new_stack(new))
    assert isinstance(wire, dict)
    assert codec.new_stack_from(wire) == new


def test_an_engines_refusal_is_raised_as_its_own_class_with_its_fields() -> None:
    sent = errors.InvalidTransition("cannot cancel now", stack="web", path=("a", 1))
    wire = over_the_wire(codec.error(sent))
    assert isinstance(wire, dict)
    received = codec.error_from(wire)
    assert type(received) is errors.InvalidTransition
    assert received.http_status == 409
    assert (received.message, received.stack, received.path) == (
        "cannot cancel now",
        "web",
        ("a", 1),
    )
    assert str(received) == str(sent)


def test_an_error_class_this_side_does_not_know_is_a_plain_thermik_error() -> None:
    received = codec.error_from({"type": "FromANewerEngine", "message": "m"})
    assert type(received) is errors.ThermikError
    assert received.message == "m"
