"""What Neutron's types share: Heat's common properties, and the request body they build.

Every Neutron type Heat has takes ``value_specs`` (extra body keys, for extensions the schema
does not name) and most take ``tags``. A created resource carries its creation tag from the
create call on, in its description (Neutron refuses tags in the create of a network, router or
security group, and Neutron 29 takes a port's but drops them), which is how an engine that
resumes an interrupted create finds it; the user's tags are set after the create.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from thermik.errors import PropertyError
from thermik.resources.cloud_access import TAG_PREFIX, find
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Props
from thermik.resources.schema import PropertySchema, SupportLevel, SupportStatus, Type

_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")

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


def resolve(ctx: ResourceContext, kind: str, value: str) -> str:
    """The id of the ``kind`` thing ``value`` names: a UUID as it is (what ``get_resource``
    gives; Neutron itself refuses an unknown one), a name looked up (once per traversal)."""
    return value if _UUID.fullmatch(value) else find(ctx, kind, value)


def old_name(new: str, hidden_in: str, deprecated_in: str, **kwargs: Any) -> PropertySchema:
    """The schema of a property Heat renamed to ``new``: hidden, its value moved to ``new``
    before validation (see :func:`moved`)."""
    return PropertySchema(
        Type.STRING,
        support_status=SupportStatus(
            SupportLevel.HIDDEN,
            version=hidden_in,
            message=f"Use property {new}.",
            previous=SupportStatus(SupportLevel.DEPRECATED, version=deprecated_in),
        ),
        **kwargs,
    )


def moved(
    values: Mapping[str, Any] | None, renames: Mapping[str, str], path: Sequence[str | int]
) -> Mapping[str, Any] | None:
    """``values`` with each old property name's value under its new name (Heat's REPLACE
    translation), so templates written for older Heat releases keep working.

    Raises:
        PropertyError: a template sets both the old and the new name.
    """
    if not isinstance(values, Mapping) or not any(old in values for old in renames):
        return values
    out = dict(values)
    for old, new in renames.items():
        if old not in out:
            continue
        if out.get(new) is not None and out[old] is not None:
            raise PropertyError(
                f"Cannot define the following properties at the same time: {new}, {old}",
                path=(*path, old),
            )
        value = out.pop(old)
        if out.get(new) is None:
            out[new] = value
    return out
