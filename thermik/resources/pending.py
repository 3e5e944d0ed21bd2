"""A base for built-in types whose schemas exist but whose behaviour arrives with later work.

Such a type validates like the real one (templates using it pass validation), but creating,
updating or signalling it fails with a clear :class:`~thermik.errors.PluginError` instead of
pretending to work. Deleting succeeds, so a stack holding one can always be removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.errors import PluginError
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import NeedsReplacement, Progress, Props, ResourcePlugin


class PendingPlugin(ResourcePlugin):
    """Schema-complete resource type without behaviour yet."""

    @staticmethod
    def _not_yet(ctx: ResourceContext, what: str) -> PluginError:
        return PluginError(
            f"{ctx.resource_type}: {what} is not implemented yet",
            resource=ctx.resource_name,
        )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Fail: not implemented yet."""
        raise self._not_yet(ctx, "create")

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        """Fail: not implemented yet."""
        raise self._not_yet(ctx, "update")

    def handle_signal(
        self, ctx: ResourceContext, props: Props, data: Mapping[str, Any] | None
    ) -> str | None:
        """Fail: not implemented yet."""
        raise self._not_yet(ctx, "signal")
