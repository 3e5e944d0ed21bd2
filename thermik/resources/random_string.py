"""``OS::Heat::RandomString``: a generated secret, kept redacted in the resource data."""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import AllowedValues, Range
from thermik.resources.context import ResourceContext, ValidationContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    CacheMode,
    PropertiesSchema,
    PropertySchema,
    SupportLevel,
    SupportStatus,
    Type,
)

#: Named character classes and their members (sorted, so a seeded source is reproducible).
CHARACTER_CLASSES: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}
_CLASS_NAMES = tuple(CHARACTER_CLASSES)
_MIN_COUNT = PropertySchema(
    Type.INTEGER,
    "How many characters of the generated string at least come from this entry.",
    default=1,
    constraints=(Range(1, 512),),
)
_DATA_KEY = "value"


def generate(rng: Any, length: int, pools: Iterable[tuple[str, int]]) -> str:
    """A random string of ``length`` characters with at least ``count`` from each pool.

    Args:
        rng: the random source (``random.Random``).
        length: total length; at least the sum of the counts.
        pools: (allowed characters, minimum count) pairs.
    """
    chosen: list[str] = []
    everything: set[str] = set()
    for chars, count in pools:
        members = sorted(set(chars))
        everything.update(members)
        chosen.extend(rng.choice(members) for _ in range(count))
    combined = sorted(everything)
    chosen.extend(rng.choice(combined) for _ in range(max(0, length - len(chosen))))
    return "".join(rng.sample(chosen, length))


class RandomString(ResourcePlugin):
    """``OS::Heat::RandomString``: a random string from character classes and sequences.

    The value is generated once at create and kept redacted in the resource data; it is both the
    ``value`` attribute and the reference id. Any property change (``salt`` exists for that)
    replaces the resource, which generates a new value.
    """

    support_status = SupportStatus(version="2014.1")
    store_only = True
    properties_schema: ClassVar[PropertiesSchema] = {
        "length": PropertySchema(
            Type.INTEGER,
            "Length of the generated string.",
            default=32,
            constraints=(Range(1, 512),),
        ),
        "sequence": PropertySchema(
            Type.STRING,
            "The character class to draw from (superseded by character_classes).",
            constraints=(AllowedValues(_CLASS_NAMES),),
            support_status=SupportStatus(
                SupportLevel.HIDDEN,
                version="5.0.0",
                previous=SupportStatus(
                    SupportLevel.DEPRECATED,
                    version="2014.2",
                    message="Use property character_classes.",
                ),
            ),
        ),
        "character_classes": PropertySchema(
            Type.LIST,
            "Named character classes to draw from, each with a minimum count.",
            default=[{"class": "lettersdigits", "min": 1}],
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "class": PropertySchema(
                        Type.STRING,
                        "A named character class.",
                        default="lettersdigits",
                        constraints=(AllowedValues(_CLASS_NAMES),),
                    ),
                    "min": _MIN_COUNT,
                },
            ),
        ),
        "character_sequences": PropertySchema(
            Type.LIST,
            "Literal character sequences to draw from, each with a minimum count.",
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "sequence": PropertySchema(
                        Type.STRING, "The characters to draw from.", required=True
                    ),
                    "min": _MIN_COUNT,
                },
            ),
        ),
        "salt": PropertySchema(
            Type.STRING,
            "Ignored by the generator; change it to get a new string on update.",
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "value": AttributeSchema(
            "The generated string (also the reference id).",
            type=AttributeType.STRING,
            cache_mode=CacheMode.NONE,
            secret=True,
        ),
    }

    @staticmethod
    def _classes(props: Props) -> list[Any]:
        classes = list(props["character_classes"] or [])
        legacy = props.get("sequence")
        if legacy:
            # The deprecated ``sequence`` names one more class; written alone it replaces the
            # default classes, as Heat's translation of it does.
            written = classes != RandomString.properties_schema["character_classes"].default
            classes = [*(classes if written else []), {"class": legacy, "min": 1}]
        return classes

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """The minimum counts together must fit in the length."""
        lists = ("length", "character_classes", "character_sequences")
        if any(vctx.unresolved(props[k]) for k in lists):
            return
        entries = [*self._classes(props), *(props["character_sequences"] or [])]
        if any(vctx.unresolved(e) or vctx.unresolved(e["min"]) for e in entries):
            return
        if sum(e["min"] for e in entries) > props["length"]:
            raise PropertyError(
                "Length property cannot be smaller than combined character class and "
                "character sequence minimums"
            )

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Generate the string, store it redacted, take a physical name."""
        pools = [(s["sequence"], s["min"]) for s in props["character_sequences"] or []]
        pools += [(CHARACTER_CLASSES[c["class"]], c["min"]) for c in self._classes(props)]
        ctx.data.set(_DATA_KEY, generate(ctx.random, props["length"], pools), redact=True)
        ctx.set_physical_id(physical_resource_name(ctx))
        return None

    def restore(
        self, ctx: ResourceContext, props: Props, snapshot: Mapping[str, str]
    ) -> Progress | None:
        """Take back the string the snapshot kept (a replacement made since generated another).

        Heat's RandomString has no restore: it keeps whatever string the version converged to
        has, so a restore over a replacement does not give back the snapshot's string.
        """
        kept = snapshot.get(_DATA_KEY)
        if kept is not None:
            ctx.data.set(_DATA_KEY, kept, redact=True)
        return None

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """The generated string once created, else the resource name."""
        if ctx.physical_id is None:
            return ctx.resource_name
        return ctx.data.get(_DATA_KEY)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``value`` is the generated string."""
        return ctx.data.get(_DATA_KEY) if name == "value" else None
