"""Software configurations: ``OS::Heat::SoftwareConfig`` and its variants.

A config is an immutable record (group, config, options, inputs, outputs) stored by the engine
and referenced by deployments and servers; any change replaces it (no property is
``update_allowed``). Storing configs needs the engine's config store and arrives with the
deployment work; the schemas are complete now.
"""

from __future__ import annotations

from typing import ClassVar

from thermik.resources.constraints import AllowedValues, Length
from thermik.resources.pending import PendingPlugin
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)

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


class SoftwareConfig(PendingPlugin):
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


class CloudConfig(SoftwareConfig):
    """``OS::Heat::CloudConfig``: a ``#cloud-config`` document built from a map."""

    properties_schema: ClassVar[PropertiesSchema] = {
        "cloud_config": PropertySchema(Type.MAP, "The cloud-config data, rendered as YAML."),
    }
