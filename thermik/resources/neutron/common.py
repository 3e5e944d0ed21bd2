"""What Neutron's types share: Heat's common properties, and the request body they build.

Every Neutron type Heat has takes ``value_specs`` (extra body keys, for extensions the schema
does not name) and most take ``tags``. A created resource carries its creation tag from the
create call on (Neutron's ``tag-creation`` extension), which is how an engine that resumes an
interrupted create finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from thermik.errors import PropertyError
from thermik.resources.cloud_access import TAG_PREFIX, create_once
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


def create_marked(
    ctx: ResourceContext,
    props: Props,
    find: Callable[[dict[str, str]], Iterable[Any]],
    create: Callable[[dict[str, Any]], Any],
    *,
    field: str = "description",
) -> Any:
    """Create once (see :func:`create_once`), the creation tag in the create request itself.

    ``field`` says where the tag goes: ``description`` (every Neutron resource has one and
    Neutron filters on it; Heat's types but the security group set none) or ``tags`` (only
    ports take tags in a create). ``create(fields)`` makes the resource with those extra
    fields; ``find(filters)`` lists what matches. The user's ``tags`` go with a port's create,
    after it for the others (Neutron takes no tags in their create). Returns what was made.
    """
    made: dict[str, Any] = {}

    def found(tag: str) -> str | None:
        matches = list(find({field: tag}))
        if matches:
            made["it"] = matches[0]
            return str(matches[0].id)
        return None

    def new(tag: str) -> str:
        extra: dict[str, Any] = {
            field: [*(props.get("tags") or []), tag] if field == "tags" else tag
        }
        made["it"] = create(extra)
        return str(made["it"].id)

    create_once(ctx, found, new)
    return made["it"]


def user_tags(tags: Iterable[str]) -> list[str]:
    """The tags a user set: without the creation tag Thermik adds."""
    return [t for t in tags if not t.startswith(TAG_PREFIX)]


def set_user_tags(
    conn: Any, found: Any, tags: Iterable[str] | None, *, keep: str | None = None
) -> Any:
    """Replace the user's tags of ``found`` (keeping the creation tag ``keep``, for types that
    carry it as a tag)."""
    return conn.network.set_tags(found, [*(tags or []), *([keep] if keep else [])])
