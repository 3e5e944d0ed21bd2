"""Software configurations: ``OS::Heat::SoftwareConfig`` and its variants.

A config is an immutable record (group, config, options, inputs, outputs) stored by the engine
through :class:`~thermik.resources.software_services.SoftwareDeploymentServices` and referenced
by deployments; its physical id is the stored config's id and any change replaces it (no
property is ``update_allowed``). The variants differ only in how they build ``config``:
a map (StructuredConfig), the ``component`` group's per-action configs (SoftwareComponent), a
MIME multipart message of other configs (MultipartMime) or a ``#cloud-config`` document
(CloudConfig).
"""

from __future__ import annotations

import email.message
import email.mime.multipart
import email.mime.text
import os.path
from typing import Any, ClassVar

import yaml

from thermik.errors import NotFound
from thermik.resources.constraints import AllowedValues, Length
from thermik.resources.context import ResourceContext, physical_resource_name
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)
from thermik.resources.software_services import ConfigData, io_entries, software_services

#: Types an input or output of a config may declare (CFN parameter type names).
IO_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")
DEFAULT_GROUP = "Heat::Ungrouped"


def _io_common(what: str) -> dict[str, PropertySchema]:
    return {
        "name": PropertySchema(Type.STRING, f"Name of the {what}.", required=True),
        "description": PropertySchema(Type.STRING, f"Description of the {what}."),
        "type": PropertySchema(
            Type.STRING,
            f"Type of the {what}'s value.",
            default="String",
            constraints=(AllowedValues(IO_TYPES),),
        ),
    }


INPUT_SCHEMA: PropertiesSchema = {
    **_io_common("input"),
    "default": PropertySchema(Type.ANY, "Value of the input when a deployment gives none."),
    "replace_on_change": PropertySchema(
        Type.BOOLEAN,
        "Replace deployments, instead of updating them, when the input's value changes.",
        default=False,
    ),
}
OUTPUT_SCHEMA: PropertiesSchema = {
    **_io_common("output"),
    "error_output": PropertySchema(
        Type.BOOLEAN,
        "A value for this output means the deployment failed.",
        default=False,
    ),
}

_GROUP = PropertySchema(
    Type.STRING,
    "Namespace of the config on the server; usually names the tool that applies it.",
    default=DEFAULT_GROUP,
)
_OPTIONS = PropertySchema(Type.MAP, "Options for the configuration tool.")
_INPUTS = PropertySchema(
    Type.LIST,
    "The inputs the config expects.",
    schema=PropertySchema(Type.MAP, schema=INPUT_SCHEMA),
)
_OUTPUTS = PropertySchema(
    Type.LIST,
    "The outputs the config produces.",
    schema=PropertySchema(Type.MAP, schema=OUTPUT_SCHEMA),
)
_CONFIG_ATTRIBUTES: AttributesSchema = {
    "config": AttributeSchema("The config value of the stored config.", type=AttributeType.STRING),
}


class SoftwareConfig(ResourcePlugin):
    """``OS::Heat::SoftwareConfig``: a script or manifest with declared inputs and outputs."""

    support_status = SupportStatus(version="2014.1")
    properties_schema: ClassVar[PropertiesSchema] = {
        "group": _GROUP,
        "config": PropertySchema(Type.STRING, "The script or manifest to apply."),
        "options": _OPTIONS,
        "inputs": _INPUTS,
        "outputs": _OUTPUTS,
    }
    attributes_schema: ClassVar[AttributesSchema] = _CONFIG_ATTRIBUTES

    def config_data(self, ctx: ResourceContext, props: Props) -> ConfigData:
        """The config to store (named after the resource's physical name, as in Heat)."""
        return ConfigData(
            name=physical_resource_name(ctx),
            group=props.get("group") or DEFAULT_GROUP,
            config=self.config_value(ctx, props),
            inputs=io_entries(props.get("inputs")),
            outputs=io_entries(props.get("outputs")),
            options=dict(props.get("options") or {}),
        )

    def config_value(self, ctx: ResourceContext, props: Props) -> Any:
        """The ``config`` of the stored config."""
        return props.get("config")

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Store the config; its id is the physical id."""
        services = software_services(ctx)
        ctx.set_physical_id(services.create_config(ctx.stack.tenant, self.config_data(ctx, props)))
        return None

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        """Delete the stored config (already gone is fine)."""
        if ctx.physical_id is not None:
            software_services(ctx).delete_config(ctx.physical_id)
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``config``: the stored config's ``config`` value."""
        if name != "config" or ctx.physical_id is None:
            return None
        try:
            return software_services(ctx).get_config(ctx.physical_id, ctx.stack.tenant).config
        except NotFound:
            return None


class StructuredConfig(SoftwareConfig):
    """``OS::Heat::StructuredConfig``: a config whose ``config`` is a map (sent as JSON)."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "group": _GROUP,
        "options": _OPTIONS,
        "inputs": _INPUTS,
        "outputs": _OUTPUTS,
        "config": PropertySchema(Type.MAP, "The data structure to apply, serialised as JSON."),
    }


class SoftwareComponent(SoftwareConfig):
    """``OS::Heat::SoftwareComponent``: one config per lifecycle action (group ``component``)."""

    support_status = SupportStatus(version="2014.2")
    properties_schema: ClassVar[PropertiesSchema] = {
        "configs": PropertySchema(
            Type.LIST,
            "The configs of the component, each for some actions and a tool.",
            schema=PropertySchema(
                Type.MAP,
                "One config of the component.",
                schema={
                    "actions": PropertySchema(
                        Type.LIST,
                        "Lifecycle actions the config runs for.",
                        default=["CREATE", "UPDATE"],
                        schema=PropertySchema(Type.STRING),
                        constraints=(Length(min=1),),
                    ),
                    "config": PropertySchema(Type.STRING, "The script or manifest."),
                    "tool": PropertySchema(
                        Type.STRING, "The tool that applies the config.", required=True
                    ),
                },
            ),
            required=True,
            constraints=(Length(min=1),),
        ),
        "inputs": _INPUTS,
        "outputs": _OUTPUTS,
        "options": _OPTIONS,
    }

    def config_data(self, ctx: ResourceContext, props: Props) -> ConfigData:
        """Group ``component``; ``config`` holds the per-action ``configs``."""
        stored = super().config_data(ctx, props)
        return ConfigData(
            name=stored.name,
            group="component",
            config={"configs": [dict(c) for c in props.get("configs") or ()]},
            inputs=stored.inputs,
            outputs=stored.outputs,
            options=stored.options,
        )


class MultipartMime(SoftwareConfig):
    """``OS::Heat::MultipartMime``: several configs combined into one MIME message."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "group": PropertySchema(
            Type.STRING,
            "Namespace of the combined config on the server.",
            default=DEFAULT_GROUP,
            support_status=SupportStatus(version="14.0.0"),
        ),
        "parts": PropertySchema(
            Type.LIST,
            "The parts of the message.",
            default=[],
            schema=PropertySchema(
                Type.MAP,
                schema={
                    "config": PropertySchema(
                        Type.STRING,
                        "A config id, or the content itself.",
                        required=True,
                    ),
                    "filename": PropertySchema(Type.STRING, "File name of the part."),
                    "type": PropertySchema(
                        Type.STRING,
                        "Whether the part is text or itself a multipart message.",
                        default="text",
                        constraints=(AllowedValues(("text", "multipart")),),
                    ),
                    "subtype": PropertySchema(Type.STRING, "MIME subtype of a text part."),
                },
            ),
        ),
    }

    def config_value(self, ctx: ResourceContext, props: Props) -> Any:
        """The parts as one MIME multipart message."""
        parts: list[email.message.Message] = []
        for part in props.get("parts") or ():
            content = _part_content(ctx, str(part["config"]))
            if part.get("type") == "multipart":
                parts.extend(_subparts(content))
            else:
                parts.append(_text_part(content, part.get("subtype"), part.get("filename")))
        return email.mime.multipart.MIMEMultipart(_subparts=parts).as_string()


def _part_content(ctx: ResourceContext, config: str) -> str:
    """A stored config's ``config`` when ``config`` names one, else ``config`` itself."""
    try:
        stored = software_services(ctx).get_config(config, ctx.stack.tenant).config
    except NotFound:
        return config
    return stored if isinstance(stored, str) else str(stored)


def _subparts(message: str) -> list[email.message.Message]:
    parsed = email.message_from_string(message)
    if not parsed.is_multipart():
        return []
    found = parsed.get_payload()
    payloads = [p for p in found if isinstance(p, email.message.Message)]
    return [
        _text_part(str(p.get_payload()), p.get_content_subtype(), p.get_filename())
        for p in payloads
    ]


def _text_part(content: str, subtype: str | None, filename: str | None) -> email.message.Message:
    if not subtype and filename:
        subtype = os.path.splitext(filename)[0]
    charset = "us-ascii" if content.isascii() else "utf-8"
    part = email.mime.text.MIMEText(content, subtype or "plain", charset)
    if filename:
        part.add_header("Content-Disposition", "attachment", filename=filename)
    return part


class CloudConfig(SoftwareConfig):
    """``OS::Heat::CloudConfig``: a ``#cloud-config`` document built from a map."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "cloud_config": PropertySchema(Type.MAP, "The cloud-config data, rendered as YAML."),
    }

    def config_value(self, ctx: ResourceContext, props: Props) -> Any:
        """``#cloud-config`` followed by the map as block-style YAML."""
        body = yaml.safe_dump(dict(props.get("cloud_config") or {}), default_flow_style=False)
        return "#cloud-config\n" + body
