"""``OS::Heat::SwiftSignalHandle`` and ``OS::Heat::SwiftSignal``: a wait condition whose
signals are Swift objects, so the signaller needs nothing but a TempURL.

The handle makes, as the stack's user, the stack's signal container (named by the stack id,
shared by the stack's handles) with object versioning into itself, an object of its own
holding ``in progress``, and a TempURL that lets anybody holding it PUT that object (the
account's TempURL key is set first when it has none). Each PUT is one signal: Swift keeps the
earlier bodies as versions (``<3 hex digits of the name's length><name>/<timestamp>``). The
wait reads the object and its versions, oldest first, and judges them as a wait condition
judges its handle's signals. Deleting the handle deletes its object with every version, then
the container once no other handle uses it.
"""

from __future__ import annotations

import contextlib
import json
import urllib.parse
from collections.abc import Mapping
from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.clients.object_store import (
    delete_container,
    delete_current,
    get_object,
    object_names,
    put_container,
    put_object,
    temp_url,
    temp_url_key,
)
from thermik.errors import CloudConflict, CloudGone, PluginError
from thermik.resources.cloud_access import cloud_access
from thermik.resources.constraints import Range
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import (
    CheckResult,
    Operation,
    PollAfter,
    Progress,
    Props,
    ResourcePlugin,
)
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)
from thermik.resources.wait_condition import SUCCESS, judge_signals

#: What the handle's object holds until the first signal.
IN_PROGRESS = b"in progress"
ENDPOINT_KEY = "endpoint"
#: How often the wait reads the container, at most.
_POLL_SECONDS = 1.0
#: Most deletes of a handle's object (each one brings back its previous version).
_MAX_VERSIONS = 10000


def swift(ctx: ResourceContext) -> CloudClient:
    """Swift, as the stack's user."""
    return cloud_access(ctx).client("swift")


def object_name(ctx: ResourceContext) -> str:
    """The handle's object: named by the resource version, so a create run again after a
    crash writes the same object."""
    return f"{ctx.stack.name}-{ctx.resource_name}-{ctx.version_id}"


def version_prefix(name: str) -> str:
    """The prefix of the versions Swift keeps of object ``name``."""
    return f"{len(name.encode()):03x}{name}/"


class SwiftSignalHandle(ResourcePlugin):
    """``OS::Heat::SwiftSignalHandle``: a Swift TempURL that signals when PUT to."""

    support_status = SupportStatus(version="2014.2")
    properties_schema: ClassVar[PropertiesSchema] = {}
    attributes_schema: ClassVar[AttributesSchema] = {
        "token": AttributeSchema(
            "Empty: Swift TempURLs need no token (kept for compatibility with "
            "OS::Heat::WaitConditionHandle).",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
        ),
        "endpoint": AttributeSchema(
            "The TempURL to PUT a signal to.",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
            secret=True,
        ),
        "curl_cli": AttributeSchema(
            "A curl command prefix that signals; add "
            '--data-binary \'{"status": "SUCCESS"}\' (or FAILURE).',
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
            secret=True,
        ),
    }

    @classmethod
    def restarts_after_crash(cls, operation: Operation) -> bool:
        # Every call is a PUT or DELETE of a name known before it: running it again is safe.
        return True

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Make the signal container, the handle's object and its TempURL."""
        container, name = ctx.stack.id, object_name(ctx)
        client = swift(ctx)
        client.call(lambda c: put_container(c, container, {"X-Versions-Location": container}))
        client.call(lambda c: put_object(c, container, name, IN_PROGRESS))
        key = client.call(temp_url_key)
        url = client.call(lambda c: temp_url(c, container, name, "PUT", key))
        ctx.data.set(ENDPOINT_KEY, url, redact=True)
        ctx.set_physical_id(name)
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the handle's object with its versions, then the container if empty."""
        container, name = ctx.stack.id, object_name(ctx)
        client = swift(ctx)
        for _ in range(_MAX_VERSIONS):
            if not client.call(lambda c: delete_current(c, container, name), idempotent=False):
                break
        # Gone already, or another handle's objects are still in it.
        with contextlib.suppress(CloudGone, CloudConflict):
            client.call(lambda c: delete_container(c, container), idempotent=False)
        ctx.data.delete(ENDPOINT_KEY)
        return None

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Fails when the handle's object is gone."""
        swift(ctx).call(lambda c: get_object(c, ctx.stack.id, object_name(ctx)))
        return None

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """The TempURL, as Heat's ``get_resource`` of the handle gives it."""
        return ctx.data.get(ENDPOINT_KEY)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``token`` (empty), ``endpoint`` and ``curl_cli``."""
        endpoint = ctx.data.get(ENDPOINT_KEY)
        if ctx.physical_id is None or endpoint is None:
            return None
        return {"token": "", "endpoint": endpoint, "curl_cli": f"curl -i -X PUT '{endpoint}'"}.get(
            name
        )


class SwiftSignal(ResourcePlugin):
    """``OS::Heat::SwiftSignal``: waits for ``count`` success signals PUT to a
    SwiftSignalHandle's TempURL."""

    support_status = SupportStatus(version="2014.2")
    properties_schema: ClassVar[PropertiesSchema] = {
        "handle": PropertySchema(
            Type.STRING,
            "URL of the TempURL (a SwiftSignalHandle) the signals are PUT to.",
            required=True,
        ),
        "timeout": PropertySchema(
            Type.NUMBER,
            "Seconds to wait for the signals; the create fails after them.",
            required=True,
            constraints=(Range(1, 43200),),
        ),
        "count": PropertySchema(
            Type.INTEGER,
            "How many success signals complete the wait.",
            default=1,
            constraints=(Range(1, 1000),),
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "data": AttributeSchema(
            "JSON map of signal id to the data PUT with it (null before any signal).",
            type=AttributeType.STRING,
        ),
    }

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Check the handle's URL and start waiting."""
        handle_object(ctx, props["handle"])
        ctx.set_physical_id(physical_resource_name(ctx))
        return Progress({"started": ctx.clock.now()})

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        """Done once ``count`` successes were PUT; fails on a failure or after ``timeout``."""
        started = ctx.clock.now() if progress is None else progress.state["started"]
        remaining = started + props["timeout"] - ctx.clock.now()
        signals = read_signals(ctx, handle_object(ctx, props["handle"]))
        if judge_signals(signals, props["count"], remaining <= 0, kind="SwiftSignal"):
            return True
        return PollAfter(min(_POLL_SECONDS, remaining))

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``data``: the data of every signal, by signal id, as JSON text."""
        if name != "data" or ctx.physical_id is None:
            return None
        signals = read_signals(ctx, handle_object(ctx, props["handle"]))
        return json.dumps({sid: s["data"] for sid, s in signals.items()} if signals else None)


def handle_object(ctx: ResourceContext, url: str) -> str:
    """The name of the object a SwiftSignalHandle's URL signals.

    Raises:
        PluginError: the URL is no TempURL of an object of this stack's signal container.
    """
    parts = urllib.parse.urlsplit(url).path.split("/")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
    if len(parts) != 5 or parts[1] != "v1" or "temp_url_sig" not in query:
        what = "Swift TempURL path"
    elif parts[3] != ctx.stack.id:
        what = "container name"
    else:
        return urllib.parse.unquote(parts[4])
    raise PluginError(
        f"{ctx.resource_name}: property handle is not a valid SwiftSignalHandle URL: its "
        f"{what} is invalid",
        resource=ctx.resource_name,
    )


def read_signals(ctx: ResourceContext, name: str) -> dict[str, dict[str, Any]]:
    """The signals PUT to the handle's object, oldest first, by signal id (a later signal
    with the same id replaces the earlier one).

    Raises:
        PluginError: a signal is not a JSON object, or has an unknown status.
    """
    client, container = swift(ctx), ctx.stack.id
    try:
        names = client.call(lambda c: object_names(c, container))
    except CloudGone:
        return {}
    prefix = version_prefix(name)
    ordered = sorted(n for n in names if n.startswith(prefix)) + [n for n in names if n == name]
    signals: dict[str, dict[str, Any]] = {}
    for number, body in enumerate(_bodies(client, container, ordered), start=1):
        signal_id = str(body.get("id", number))
        signals.pop(signal_id, None)
        signals[signal_id] = {
            "data": body.get("data"),
            "reason": body.get("reason", f"Signal {signal_id} received"),
            "status": body.get("status", SUCCESS),
        }
        if signals[signal_id]["status"] not in (SUCCESS, "FAILURE"):
            raise PluginError(
                f"Unknown status: {signals[signal_id]['status']}", resource=ctx.resource_name
            )
    return signals


def _bodies(client: CloudClient, container: str, names: list[str]) -> list[Mapping[str, Any]]:
    bodies: list[Mapping[str, Any]] = []
    for name in names:
        try:
            raw = _get(client, container, name)
        except CloudGone:
            continue
        if raw == IN_PROGRESS:
            continue
        if not raw:
            bodies.append({})
            continue
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise PluginError(f"Failed to parse JSON data: {raw.decode(errors='replace')}")
        bodies.append(body)
    return bodies


def _get(client: CloudClient, container: str, name: str) -> bytes:
    return client.call(lambda c: get_object(c, container, name))
