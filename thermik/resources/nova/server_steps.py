"""Waiting on a Nova server: the steps of an action, each a call and the status it ends in.

An action on a server (boot, resize and confirm, rebuild, suspend, resume) is a list of
:class:`Step` values in the action's :class:`~thermik.resources.plugin.Progress`. :func:`advance`
starts each step's call, then polls the server until the step's status is reached, never
sleeping: it returns a :class:`~thermik.resources.plugin.PollAfter`. The first poll of a step
comes after :data:`FIRST_POLL` seconds without asking Nova (a boot takes 1-4 s on a small
cloud, so an earlier look only costs a request), then every second, backing off to 8 s.

Statuses other than the expected ones fail the action with Nova's own reason: an ``ERROR``
server with its fault (``Went to status ERROR due to "Message: No valid host was found. ...,
Code: 500"``, as Heat words it).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from thermik.clients.calls import CloudClient
from thermik.clients.rounds import PollRounds
from thermik.errors import PluginError
from thermik.resources.plugin import CheckResult, PollAfter, Progress

#: Seconds before the first look at a server after a call.
FIRST_POLL = 1.5
#: Seconds between the later looks: 1 s twice, then doubling up to :data:`MAX_POLL`.
NEXT_POLL = 1.0
MAX_POLL = 8.0

#: Statuses a server passes through on its way somewhere (Heat's deferred statuses).
TRANSIENT = frozenset(
    {
        "BUILD",
        "HARD_REBOOT",
        "PASSWORD",
        "REBOOT",
        "RESCUE",
        "RESIZE",
        "REVERT_RESIZE",
        "SHUTOFF",
        "SUSPENDED",
        "VERIFY_RESIZE",
        "REBUILD",
        "MIGRATING",
    }
)


class Rounds(Protocol):
    """One server's part in its traversal's rounds (see :mod:`thermik.clients.rounds`)."""

    def get(self) -> Any | None:
        """The server as this round's list saw it, or ``None``."""
        ...

    def align(self, wait: float) -> float:
        """``wait`` lengthened to end on a round."""
        ...


@dataclasses.dataclass(frozen=True, slots=True)
class TaggedRounds:
    """The :class:`Rounds` of the server carrying creation tag ``tag``."""

    rounds: PollRounds
    tag: str

    def get(self) -> Any | None:
        return self.rounds.get(self.tag)

    def align(self, wait: float) -> float:
        return self.rounds.align(wait)

    def over(self) -> None:
        """The wait is over: later rounds need not list the server."""
        self.rounds.forget(self.tag)


#: A step as the progress keeps it: ``{"do": kind, "args": {...}}``.
Step = Mapping[str, Any]
#: What a step's call does: ``(connection, server id, args) -> None``.
Start = Callable[[Any, str, Mapping[str, Any]], None]


def status_of(server: Any) -> str:
    """The server's status without the extra text some clouds append (``ACTIVE(x)``)."""
    return str(server.status or "").split("(")[0]


def fault_reason(server: Any) -> str:
    """Why the server is in ERROR, in Heat's words."""
    fault = getattr(server, "fault", None) or {}
    message = fault.get("message", "Unknown")
    code = fault.get("code", "Unknown")
    return f'Went to status ERROR due to "Message: {message}, Code: {code}"'


def _fail(server: Any, what: str) -> PluginError:
    status = status_of(server)
    if status == "ERROR":
        return PluginError(f"{what} failed: {fault_reason(server)}")
    return PluginError(f"{what} failed: the server is {status}")


def active(server: Any, what: str = "Server") -> bool:
    """Whether the server reached ACTIVE; raises when it went to ERROR or an unknown status."""
    status = status_of(server)
    if status == "ACTIVE" and not getattr(server, "task_state", None):
        return True
    if status in TRANSIENT or status == "ACTIVE":
        return False
    if status == "ERROR":
        raise PluginError(fault_reason(server))
    raise PluginError(f"{what} is not active: unknown status {status}")


def _resized(server: Any, args: Mapping[str, Any]) -> bool:
    status = status_of(server)
    if status == "VERIFY_RESIZE":
        return True
    if status == "RESIZE" or getattr(server, "task_state", None):
        return False
    if status == "ACTIVE":
        # Nova puts a resize it cannot place (NoValidHost) back to ACTIVE, old flavor kept.
        raise PluginError(
            f"Resizing to '{args.get('flavor')}' failed: Nova put the server back to ACTIVE "
            "with its old flavor (no host could take the new one)"
        )
    raise _fail(server, f"Resizing to '{args.get('flavor')}'")


def _confirmed(server: Any, args: Mapping[str, Any]) -> bool:
    status = status_of(server)
    task = getattr(server, "task_state", None) or ""
    if status == "ACTIVE" and not task:
        return True
    if status == "VERIFY_RESIZE" or "resize" in task:
        return False
    raise _fail(server, "Confirming the resize")


def _rebuilt(server: Any, args: Mapping[str, Any]) -> bool:
    status = status_of(server)
    if status == "REBUILD" or getattr(server, "task_state", None):
        return False
    if status == "ACTIVE":
        return True
    raise _fail(server, "Rebuilding the server")


def _reached(wanted: str, what: str) -> Callable[[Any, Mapping[str, Any]], bool]:
    def check(server: Any, args: Mapping[str, Any]) -> bool:
        status = status_of(server)
        if status == wanted and not getattr(server, "task_state", None):
            return True
        if status in TRANSIENT or status == "ACTIVE":
            return False
        raise _fail(server, what)

    return check


def _rebuild(conn: Any, server_id: str, args: Mapping[str, Any]) -> None:
    conn.compute.rebuild_server(server_id, args["image"], **args.get("fields", {}))


def _attach(conn: Any, server_id: str, args: Mapping[str, Any]) -> None:
    if args.get("port"):
        conn.compute.create_server_interface(server_id, port_id=args["port"])
        return
    fields: dict[str, Any] = {"net_id": args["net"]}
    if args.get("fixed_ip"):
        fields["fixed_ips"] = [{"ip_address": args["fixed_ip"]}]
    conn.compute.create_server_interface(server_id, **fields)


def _detached(conn: Any, server_id: str, args: Mapping[str, Any]) -> bool:
    ports = {str(i.port_id) for i in conn.compute.server_interfaces(server_id)}
    if args["port"] in ports:
        return False
    if args.get("delete"):
        conn.network.delete_port(args["port"], ignore_missing=True)
    return True


STARTS: Mapping[str, Start] = {
    "detach": lambda conn, sid, args: conn.compute.delete_server_interface(
        args["port"], server=sid
    ),
    "attach": _attach,
    "release": lambda conn, sid, args: conn.network.update_ip(
        conn.network.find_ip(args["floating_ip"], ignore_missing=False), port_id=None
    ),
    "boot": lambda conn, sid, args: None,
    "resize": lambda conn, sid, args: conn.compute.resize_server(sid, args["flavor_id"]),
    "confirm": lambda conn, sid, args: conn.compute.confirm_server_resize(sid),
    "rebuild": _rebuild,
    "suspend": lambda conn, sid, args: conn.compute.suspend_server(sid),
    "resume": lambda conn, sid, args: conn.compute.resume_server(sid),
}
CHECKS: Mapping[str, Callable[[Any, Mapping[str, Any]], bool]] = {
    "boot": lambda server, args: active(server),
    "resize": _resized,
    "confirm": _confirmed,
    "rebuild": _rebuilt,
    "suspend": _reached("SUSPENDED", "Suspending the server"),
    "resume": lambda server, args: active(server, "Resumed server"),
}


#: Steps whose call is done when it returns (Nova attaches an interface before answering).
INSTANT = frozenset({"attach", "release"})
#: Steps that look at something else than the server: ``(connection, server id, args)``.
PROBES: Mapping[str, Callable[[Any, str, Mapping[str, Any]], bool]] = {"detach": _detached}


def steps(*kinds: tuple[str, Mapping[str, Any]], started: bool = False) -> Progress:
    """The progress of an action made of these steps (``started``: the first one's call was
    made already, as a create's boot is)."""
    return Progress(
        {"steps": [{"do": k, "args": dict(a)} for k, a in kinds], "at": 0, "started": started}
    )


def _run(start: Start, server_id: str, args: Mapping[str, Any], conn: Any) -> None:
    start(conn, server_id, args)


def _probe(
    probe: Callable[[Any, str, Mapping[str, Any]], bool],
    server_id: str,
    args: Mapping[str, Any],
    conn: Any,
) -> bool:
    return probe(conn, server_id, args)


def _delay(polls: int) -> float:
    return min(NEXT_POLL * 2.0 ** max(0, polls - 2), MAX_POLL)


def later(progress: Progress) -> PollAfter:
    """The next wait of a plain poll loop on the schedule above (counted in ``polls``)."""
    polls = int(progress.state.get("polls", 0))
    wait = FIRST_POLL if polls == 0 else _delay(polls)
    return PollAfter(wait, Progress({**progress.state, "polls": polls + 1}))


def advance(
    client: CloudClient,
    server_id: str,
    progress: Progress | None,
    seen: Callable[[Any], Any],
    rounds: Rounds | None = None,
) -> CheckResult:
    """Move the action on: start the current step, or look whether it is done (``seen`` gets
    every server fetched). True once every step is done.

    With ``rounds`` the looks are those of the traversal's rounds (one list call for all its
    servers, each wait ending on a round): the server as its round saw it, or fetched alone
    when the round did not list it."""

    def fetch() -> Any:
        found = rounds.get() if rounds is not None else None
        if found is None:
            found = client.call(lambda c: c.compute.get_server(server_id))
        return found

    def wait(seconds: float) -> float:
        return rounds.align(seconds) if rounds is not None else seconds

    state = dict(progress.state) if progress else {}
    todo: list[Step] = list(state.get("steps", []))
    at = int(state.get("at", 0))
    while at < len(todo):
        step = todo[at]
        kind, args = str(step["do"]), dict(step.get("args") or {})
        polls = int(state.get("polls", 0))
        if not state.get("started"):
            client.call(functools.partial(_run, STARTS[kind], server_id, args), idempotent=False)
            if kind in INSTANT:
                at += 1
                state = {**state, "at": at, "started": False, "polls": 0}
                continue
            return PollAfter(wait(FIRST_POLL), Progress({**state, "started": True, "polls": 1}))
        if polls == 0:
            return PollAfter(wait(FIRST_POLL), Progress({**state, "polls": 1}))
        if kind in PROBES:
            done = client.call(functools.partial(_probe, PROBES[kind], server_id, args))
        else:
            server = seen(fetch())
            done = CHECKS[kind](server, args)
        if not done:
            return PollAfter(wait(_delay(polls)), Progress({**state, "polls": polls + 1}))
        at += 1
        state = {**state, "at": at, "started": False, "polls": 0}
    return True
