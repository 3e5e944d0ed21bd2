"""``OS::Heat::SwiftSignalHandle`` and ``OS::Heat::SwiftSignal``: a wait condition whose
signals are Swift objects, so the signaller needs nothing but a TempURL.

The handle makes its signal object (see :mod:`~thermik.resources.swift.signal_objects`) and
hands out its PUT TempURL; the wait reads the signals PUT there and judges them as a wait
condition judges its handle's signals. Deleting the handle deletes its object with every
version, then the container once no other handle uses it.
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any, ClassVar

from thermik.clients.object_store import (
    get_object,
)
from thermik.errors import PluginError
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
from thermik.resources.swift.signal_objects import (
    delete_signal_object,
    make_signal_object,
    object_name,
    read_signals,
    swift,
)
from thermik.resources.wait_condition import judge_signals

ENDPOINT_KEY = "endpoint"
#: How often the wait reads the container, at most.
_POLL_SECONDS = 1.0


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
        name = object_name(ctx)
        url = make_signal_object(ctx, name)
        ctx.data.set(ENDPOINT_KEY, url, redact=True)
        ctx.set_physical_id(name)
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the handle's object with its versions, then the container if empty."""
        delete_signal_object(ctx, object_name(ctx))
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
