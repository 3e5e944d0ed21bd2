"""What travels over RPC: the runtime's requests and Thermik's errors as JSON primitives.

oslo.messaging serialises primitives only; these functions turn the frozen request values and
a :class:`~thermik.errors.ThermikError` into them and back. An error crosses as its class name
and structured fields, so the API answers an engine's refusal exactly as it would its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from thermik import errors
from thermik.engine.messages import ConvergeRequest
from thermik.engine.states import Action
from thermik.persistence.values import NewLease, NewStack

Wire = dict[str, Any]


def converge_request(request: ConvergeRequest) -> Wire:
    """A converge request as primitives."""
    wire = {f.name: getattr(request, f.name) for f in dataclasses.fields(request)}
    wire["operation"] = request.operation.value
    if request.adopt_data is not None:
        wire["adopt_data"] = dict(request.adopt_data)
    return wire


def converge_request_from(wire: Mapping[str, Any]) -> ConvergeRequest:
    """The converge request :func:`converge_request` encoded."""
    return ConvergeRequest(**{**wire, "operation": Action(wire["operation"])})


def new_stack(new: NewStack) -> Wire:
    """A new stack row as primitives."""
    wire = {f.name: getattr(new, f.name) for f in dataclasses.fields(new)}
    wire["tags"] = list(new.tags)
    wire["lease"] = None if new.lease is None else dataclasses.asdict(new.lease)
    return wire


def new_stack_from(wire: Mapping[str, Any]) -> NewStack:
    """The new stack row :func:`new_stack` encoded."""
    lease = wire.get("lease")
    return NewStack(
        **{
            **wire,
            "tags": tuple(wire.get("tags") or ()),
            "lease": None if lease is None else NewLease(**lease),
        }
    )


def error(exc: errors.ThermikError) -> Wire:
    """A refusal as primitives: the error's class and fields."""
    return {
        "type": type(exc).__name__,
        "message": exc.message,
        "path": list(exc.path),
        "resource": exc.resource,
        "parameter": exc.parameter,
        "stack": exc.stack,
    }


def error_from(wire: Mapping[str, Any]) -> errors.ThermikError:
    """The error :func:`error` encoded, of the same class when this side knows it (else
    :class:`~thermik.errors.ThermikError` itself: an engine of a newer version may have more)."""
    kind = _error_classes().get(str(wire.get("type")), errors.ThermikError)
    exc = kind.__new__(kind)
    errors.ThermikError.__init__(
        exc,
        str(wire.get("message", "")),
        path=tuple(wire.get("path") or ()),
        resource=wire.get("resource"),
        parameter=wire.get("parameter"),
        stack=wire.get("stack"),
    )
    return exc


def _error_classes() -> dict[str, type[errors.ThermikError]]:
    return {kind.__name__: kind for kind in _subclasses(errors.ThermikError)}


def _subclasses(kind: type[errors.ThermikError]) -> Iterator[type[errors.ThermikError]]:
    yield kind
    for sub in kind.__subclasses__():
        yield from _subclasses(sub)
