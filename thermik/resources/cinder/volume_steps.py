"""The steps of a volume's in-place update that Cinder finishes later: restore from a backup,
retype, extend and the read-only flag, run one after the other.

Each step is sent when the volume is idle (``available`` or ``in-use``), then waited on until
the volume is idle again and shows the change. A volume Cinder put back to idle without the
change, or to an error status, fails the update with Cinder's own message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from thermik.clients.calls import CloudClient
from thermik.errors import PluginError
from thermik.resources.cinder.common import BUSY, READY, volume_failed
from thermik.resources.cloud_resource import backoff
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import CheckResult, PollAfter, Progress

Step = Mapping[str, Any]
#: Progress keys: the steps still to run, and whether the first one was sent.
STEPS = "steps"
SENT = "sent"

#: How each step starts: ``(connection, volume id, step) -> None``.
_SEND: Mapping[str, Callable[[Any, str, Step], None]] = {
    "restore": lambda c, v, s: c.block_storage.restore_backup(s["backup"], volume_id=v),
    "retype": lambda c, v, s: c.block_storage.retype_volume(v, s["type"], "never"),
    "extend": lambda c, v, s: c.block_storage.extend_volume(v, s["size"]),
    "read_only": lambda c, v, s: c.block_storage.set_volume_readonly(v, s["read_only"]),
}
#: What each step is called in a failure.
_WHAT = {
    "restore": "backup restore",
    "retype": "retype",
    "extend": "resize",
    "read_only": "read-only change",
}


def _done(step: Step, volume: Any) -> bool:
    """Whether the idle ``volume`` shows what ``step`` changes."""
    kind = step["do"]
    if kind == "retype":
        return step["type"] in (volume.volume_type_id, volume.volume_type)
    if kind == "extend":
        return int(volume.size or 0) >= int(step["size"])
    return True  # a restore has no trace but its end; read-only is set at once


def _send(client: CloudClient, volume_id: str, step: Step) -> None:
    client.call(lambda conn: _SEND[step["do"]](conn, volume_id, step), idempotent=False)


def start(steps: list[Step]) -> Progress | None:
    """The progress of an update that runs ``steps`` (``None``: nothing to wait for)."""
    return Progress({STEPS: steps, SENT: False}) if steps else None


def run(
    ctx: ResourceContext, client: CloudClient, volume: Any, progress: Progress | None
) -> CheckResult:
    """One poll of the steps, given the volume as Cinder shows it now."""
    state = dict(progress.state) if progress else {}
    steps: list[Step] = list(state.get(STEPS) or [])
    if str(volume.status).startswith("error"):
        raise volume_failed(ctx, client, volume, _WHAT[steps[0]["do"]] if steps else "update")
    while steps:
        if volume.status in BUSY:
            return backoff(Progress(state))
        step = steps[0]
        if not state.get(SENT):
            if volume.status not in READY:
                raise PluginError(
                    f"Volume {volume.id} is {volume.status}: its {_WHAT[step['do']]} cannot start",
                    resource=ctx.resource_name,
                )
            _send(client, str(volume.id), step)
            if step["do"] != "read_only":
                return PollAfter(0.5, Progress({**state, SENT: True}))
        elif not _done(step, volume):
            raise volume_failed(ctx, client, volume, _WHAT[step["do"]])
        steps = steps[1:]
        state = {STEPS: steps, SENT: False}
    return True
