"""Absolute URLs of API objects, as Heat puts them in ``links`` and ``Location``."""

from __future__ import annotations

import dataclasses
from urllib.parse import quote

from thermik.api.boundary import StackIdentity


def segment(value: str) -> str:
    """``value`` quoted as one path segment."""
    return quote(value, safe="")


@dataclasses.dataclass(frozen=True, slots=True)
class Links:
    """URLs for one request: ``root`` is ``http://host:port/v1``, ``tenant`` the caller's."""

    root: str
    tenant: str

    @property
    def tenant_base(self) -> str:
        """``http://host:port/v1/<tenant>``."""
        return f"{self.root}/{segment(self.tenant)}"

    def stack(self, stack: StackIdentity, *, tenant: str | None = None) -> str:
        """The canonical URL of a stack (of ``tenant`` when listing across tenants)."""
        base = f"{self.root}/{segment(tenant)}" if tenant else self.tenant_base
        return f"{base}/stacks/{segment(stack.name)}/{segment(stack.id)}"

    def resource(self, stack: StackIdentity, name: str) -> str:
        """The URL of a resource of ``stack``."""
        return f"{self.stack(stack)}/resources/{segment(name)}"

    def event(self, stack: StackIdentity, resource_name: str, event_id: str) -> str:
        """The URL of an event of a resource of ``stack``."""
        return f"{self.resource(stack, resource_name)}/events/{segment(event_id)}"


def link(href: str, rel: str) -> dict[str, str]:
    """One entry of a ``links`` list."""
    return {"href": href, "rel": rel}
