"""What Neutron's types share: Heat's common properties, and the request body they build.

Every Neutron type Heat has takes ``value_specs`` (extra body keys, for extensions the schema
does not name) and most take ``tags``. A created resource carries its creation tag from the
create call on (Neutron's ``tag-creation`` extension), which is how an engine that resumes an
interrupted create finds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from thermik.errors import PropertyError
from thermik.resources.cloud_access import TAG_PREFIX
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Props
from thermik.resources.schema import PropertySchema, Type

VALUE_SPECS = PropertySchema(
    Type.MAP,
    "Extra parameters to include in the request. Parameters are often specific to installed "
    "hardware or extensions.",
    default={},
    update_allowed=True,
)
TAGS = PropertySchema(
    Type.LIST,
    "The tags to be added to the resource.",
    schema=PropertySchema(Type.STRING),
    update_allowed=True,
)


def body(
    ctx: ResourceContext,
    props: Props,
    names: Iterable[str],
    renamed: Mapping[str, str] | None = None,
    *,
    specs: bool = True,
) -> dict[str, Any]:
    """The create or update body: the given properties that have a value (under Neutron's
    name where ``renamed`` says it differs), then ``value_specs`` over them (unless ``specs``
    is false: an update that leaves them as they are).

    Raises:
        PropertyError: ``value_specs`` sets a key a property sets too (as Heat refuses).
    """
    renamed = renamed or {}
    out = {renamed.get(n, n): props[n] for n in names if props.get(n) is not None}
    extra = (props.get("value_specs") or {}) if specs else {}
    clash = sorted(set(extra) & set(out))
    if clash:
        raise PropertyError(
            f"value_specs may not set {', '.join(clash)}: it is a property of {ctx.resource_type}",
            path=("resources", ctx.resource_name, "properties", "value_specs"),
            resource=ctx.resource_name,
        )
    out.update(extra)
    return out


def first(found: Iterable[Any]) -> Any:
    """The first of what a listing found, or ``None``."""
    return next(iter(found), None)


def user_tags(tags: Iterable[str]) -> list[str]:
    """The tags a user set: without the creation tag Thermik adds."""
    return [t for t in tags if not t.startswith(TAG_PREFIX)]


def set_user_tags(
    conn: Any, found: Any, tags: Iterable[str] | None, *, keep: str | None = None
) -> Any:
    """Replace the user's tags of ``found`` (keeping the creation tag ``keep``, for types that
    carry it as a tag)."""
    return conn.network.set_tags(found, [*(tags or []), *([keep] if keep else [])])
