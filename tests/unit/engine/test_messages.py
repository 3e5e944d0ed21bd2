"""Messages are frozen, slotted values."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from thermik.engine import messages
from thermik.engine.graph import Node


def message_classes() -> list[type]:
    return [
        obj
        for _, obj in inspect.getmembers(messages, inspect.isclass)
        if obj.__module__ == messages.__name__ and dataclasses.is_dataclass(obj)
    ]


@pytest.mark.parametrize("cls", message_classes(), ids=lambda c: c.__name__)
def test_every_message_is_frozen_and_slotted(cls: type) -> None:
    params = getattr(cls, "__dataclass_params__")  # noqa: B009
    assert params.frozen
    assert "__slots__" in vars(cls)


def test_messages_cannot_be_changed() -> None:
    message = messages.ResourceDone(Node(1, True), "t1", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.traversal_id = "t2"  # type: ignore[misc]


def test_events_and_commands_are_the_unions() -> None:
    assert messages.ResourceDone in messages.Event.__args__  # type: ignore[attr-defined]
    assert messages.DispatchNode in messages.Command.__args__  # type: ignore[attr-defined]
    assert messages.CheckResource not in messages.Command.__args__  # type: ignore[attr-defined]
