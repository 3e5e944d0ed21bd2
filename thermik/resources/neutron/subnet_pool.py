"""``OS::Neutron::SubnetPool``: a pool of address prefixes that subnets take their blocks from.

Heat's subnet pool has no description property, so the creation tag rides in Neutron's
description (see :class:`~thermik.resources.neutron.base.NeutronResource`). Neutron itself
refuses to shrink a pool's prefixes or to move it to an address scope of another IP version:
such an update fails with Neutron's answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from thermik.errors import PropertyError
from thermik.resources.constraints import CustomConstraint, Length, Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.neutron.base import NeutronResource
from thermik.resources.neutron.common import TAGS, resolve
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type

#: Heat's property names, and openstacksdk's names of the fields they set.
_FIELDS = {
    "prefixes": "prefixes",
    "default_quota": "default_quota",
    "default_prefixlen": "default_prefix_length",
    "min_prefixlen": "minimum_prefix_length",
    "max_prefixlen": "maximum_prefix_length",
    "is_default": "is_default",
    "shared": "is_shared",
    "tenant_id": "project_id",
}


def _length(doc: str) -> PropertySchema:
    return PropertySchema(Type.INTEGER, doc, constraints=(Range(min=0),), update_allowed=True)


class SubnetPool(NeutronResource):
    """``OS::Neutron::SubnetPool``."""

    kind: ClassVar[str] = "subnet_pool"
    plural: ClassVar[str] = "subnet_pools"
    support_status = SupportStatus(version="6.0.0")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "Name of the subnet pool.", update_allowed=True),
        "prefixes": PropertySchema(
            Type.LIST,
            "List of subnet prefixes to assign.",
            required=True,
            constraints=(Length(min=1),),
            schema=PropertySchema(Type.STRING, constraints=(CustomConstraint("net_cidr"),)),
            update_allowed=True,
        ),
        "address_scope": PropertySchema(
            Type.STRING,
            "An address scope ID to assign to the subnet pool.",
            constraints=(CustomConstraint("neutron.address_scope"),),
            update_allowed=True,
        ),
        "default_quota": _length(
            "A per-tenant quota on the prefix space that can be allocated from the subnet "
            "pool for tenant subnets."
        ),
        "default_prefixlen": _length(
            "The size of the prefix to allocate when the cidr or prefixlen attributes are not "
            "specified while creating a subnet."
        ),
        "min_prefixlen": _length(
            "Smallest prefix size that can be allocated from the subnet pool."
        ),
        "max_prefixlen": _length(
            "Maximum prefix size that can be allocated from the subnet pool."
        ),
        "is_default": PropertySchema(
            Type.BOOLEAN,
            "Whether this is default IPv4/IPv6 subnet pool. There can only be one default "
            "subnet pool for each IP family. Note that the default policy setting restricts "
            "administrative users to set this to True.",
            default=False,
            update_allowed=True,
        ),
        "shared": PropertySchema(
            Type.BOOLEAN,
            "Whether the subnet pool will be shared across all tenants. Note that the default "
            "policy setting restricts usage of this attribute to administrative users only.",
            default=False,
        ),
        "tenant_id": PropertySchema(
            Type.STRING,
            "The ID of the tenant who owns the subnet pool. Only administrative users can "
            "specify a tenant ID other than their own.",
        ),
        "tags": TAGS,
    }

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        problem = prefix_bounds_problem({k: v for k, v in props.items() if not vctx.unresolved(v)})
        if problem is not None:
            raise PropertyError(problem[1], path=("properties", problem[0]))

    def _body(self, ctx: ResourceContext, props: Props, names: Iterable[str]) -> dict[str, Any]:
        out = {_FIELDS[n]: props[n] for n in names if n in _FIELDS and props.get(n) is not None}
        if not out.get("project_id"):
            out.pop("project_id", None)
        if "address_scope" in names:
            scope = props.get("address_scope")
            out["address_scope_id"] = (
                resolve(ctx, "neutron.address_scope", scope) if scope else None
            )
        return out

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        fields = self._body(ctx, props, self.properties_schema)
        if fields.get("address_scope_id") is None:
            fields.pop("address_scope_id", None)
        fields["name"] = self.name_of(ctx, props)
        self.make(ctx, props, fields)
        return None

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | None:
        fields = self._body(ctx, new_props, changed)
        if "name" in changed:
            fields["name"] = self.name_of(ctx, new_props)
        self.change(ctx, fields, new_props.get("tags"), set_tags="tags" in changed)
        return None

    def attributes_of(self, found: Any) -> Mapping[str, Any]:
        return {}


def prefix_bounds_problem(props: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first inconsistency of a pool's prefix lengths, as (property, message): the minimum
    above the maximum, or the default outside them."""
    low, high, default = (
        props.get(k) for k in ("min_prefixlen", "max_prefixlen", "default_prefixlen")
    )
    if low is not None and high is not None and low > high:
        return (
            "min_prefixlen",
            f"Illegal prefix bounds: min_prefixlen {low} is larger than max_prefixlen {high}.",
        )
    if default is not None and low is not None and default < low:
        return (
            "default_prefixlen",
            f"Illegal prefix bounds: default_prefixlen {default} is smaller than min_prefixlen "
            f"{low}.",
        )
    if default is not None and high is not None and default > high:
        return (
            "default_prefixlen",
            f"Illegal prefix bounds: default_prefixlen {default} is larger than max_prefixlen "
            f"{high}.",
        )
    return None
