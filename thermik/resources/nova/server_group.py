"""``OS::Nova::ServerGroup``: a Nova server group (servers placed by an affinity policy)."""

from __future__ import annotations

from typing import Any, ClassVar

from thermik.clients.calls import CloudClient
from thermik.resources.cloud_resource import CloudResource
from thermik.resources.constraints import AllowedValues
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Progress, Props
from thermik.resources.schema import PropertiesSchema, PropertySchema, SupportStatus, Type
from thermik.resources.untagged import refused_forgets

POLICIES = ("anti-affinity", "affinity", "soft-anti-affinity", "soft-affinity")
#: Resource data key of the group's name, chosen once: an interrupted create finds it by name.
NAME_KEY = "physical_name"


class ServerGroup(CloudResource):
    """``OS::Nova::ServerGroup``.

    Any change replaces the group (Nova cannot change one). Server groups carry no tag: the
    name is chosen and recorded before the create, and an interrupted create looks for it.
    """

    service: ClassVar[str] = "nova"
    support_status = SupportStatus(version="2014.2")

    properties_schema: ClassVar[PropertiesSchema] = {
        "name": PropertySchema(Type.STRING, "Server Group name."),
        "policies": PropertySchema(
            Type.LIST,
            "A list of exactly one policy to apply. Defaults to anti-affinity.",
            default=["anti-affinity"],
            constraints=(AllowedValues(POLICIES),),
            schema=PropertySchema(Type.STRING),
        ),
        "rules": PropertySchema(
            Type.MAP,
            "Rules for a policy.",
            schema={
                "max_server_per_host": PropertySchema(
                    Type.NUMBER,
                    "Maximum servers in a group on a given host. Rule for anti-affinity policy.",
                )
            },
            support_status=SupportStatus(version="17.0.0"),
        ),
    }

    def __init__(self) -> None:
        super().__init__()
        #: The name the group of this version has (see :data:`NAME_KEY`), once known.
        self._name: str | None = None

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        name = ctx.data.get(NAME_KEY)
        if name is None:
            name = props.get("name") or physical_resource_name(ctx)
            ctx.data.set(NAME_KEY, name)
        self._name = name
        fields: dict[str, Any] = {"name": name, "policy": props["policies"][0]}
        rules = {k: v for k, v in (props.get("rules") or {}).items() if v is not None}
        if rules:
            fields["rules"] = {k: int(v) for k, v in rules.items()}
        # Found again by name (a group carries no tag), so a refused create forgets it.
        group = refused_forgets(
            ctx,
            [NAME_KEY],
            lambda: self.create_tagged(
                ctx,
                lambda tag: self.call(
                    ctx, lambda conn: conn.compute.create_server_group(**fields), idempotent=False
                ),
            ),
        )
        ctx.set_physical_id(group.id)
        return None

    def physical_or_orphan(self, ctx: ResourceContext) -> str | None:
        self._name = ctx.data.get(NAME_KEY)
        return super().physical_or_orphan(ctx)

    def created_with(self, client: CloudClient, tag: str) -> Any:
        name = self._name
        if name is None:
            return None
        return client.call(
            lambda conn: next((g for g in conn.compute.server_groups() if g.name == name), None)
        )

    def fetch(self, client: CloudClient, physical_id: str) -> Any:
        return client.call(lambda conn: conn.compute.get_server_group(physical_id))

    def remove(self, client: CloudClient, physical_id: str) -> None:
        client.call(
            lambda conn: conn.compute.delete_server_group(physical_id, ignore_missing=False)
        )
