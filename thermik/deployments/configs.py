"""Software configs between the Store's rows, the plugins' ConfigData and delivery documents.

A stored config's ``config`` column holds ``config``, ``inputs``, ``outputs`` and ``options``
(the shape of Heat's software-config API, also what the REST API stores). A derived config is
stored the same way, its inputs carrying their values, so a server's metadata document can be
rebuilt from the database alone at any time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thermik.delivery.document import (
    UNGROUPED,
    DerivedConfig,
    InputDecl,
    InputValue,
    OutputDecl,
    SourceConfig,
)
from thermik.persistence.software_values import SoftwareConfig
from thermik.persistence.values import JSON
from thermik.resources.software_services import ConfigData


def body_of(data: ConfigData) -> dict[str, JSON]:
    """The ``config`` column of a stored config."""
    return {
        "config": data.config,
        "inputs": [dict(i) for i in data.inputs],
        "outputs": [dict(o) for o in data.outputs],
        "options": dict(data.options),
    }


def _entries(body: Mapping[str, Any], key: str) -> tuple[Mapping[str, Any], ...]:
    items = body.get(key) or ()
    return tuple(dict(i) for i in items if isinstance(i, Mapping))


def _options(body: Mapping[str, Any]) -> dict[str, Any]:
    options = body.get("options")
    return dict(options) if isinstance(options, Mapping) else {}


def data_of(row: SoftwareConfig) -> ConfigData:
    """A stored config as the plugins see it."""
    body = row.config
    return ConfigData(
        name=row.name,
        group=row.group,
        config=body.get("config"),
        inputs=_entries(body, "inputs"),
        outputs=_entries(body, "outputs"),
        options=_options(body),
    )


def source_of(data: ConfigData | None) -> SourceConfig:
    """The source of a derived config; no config at all deploys an empty, ungrouped one."""
    if data is None:
        return SourceConfig()
    return SourceConfig.from_mapping(
        {
            "name": data.name,
            "group": data.group,
            "config": data.config,
            "inputs": list(data.inputs),
            "outputs": list(data.outputs),
            "options": dict(data.options),
        },
        path=("config",),
    )


def derived_body(derived: DerivedConfig) -> dict[str, JSON]:
    """The ``config`` column of a stored derived config."""
    entry = derived.entry()
    return {key: entry[key] for key in ("config", "inputs", "outputs", "options")}


def _input_value(item: Mapping[str, Any]) -> InputValue:
    decl = InputDecl(
        name=str(item.get("name")),
        type=str(item.get("type") or "String"),
        description=item.get("description"),
        default=item.get("default"),
        replace_on_change=bool(item.get("replace_on_change", False)),
    )
    return InputValue(decl, item.get("value"))


def derived_of(row: SoftwareConfig) -> DerivedConfig:
    """A stored derived config, ready to be listed in a metadata document."""
    body = row.config
    return DerivedConfig(
        id=row.id,
        name=row.name,
        group=row.group or UNGROUPED,
        creation_time=row.created_at,
        config=body.get("config"),
        inputs=tuple(_input_value(i) for i in _entries(body, "inputs")),
        outputs=tuple(OutputDecl.from_mapping(o) for o in _entries(body, "outputs")),
        options=_options(body),
    )


def output_decls(row: SoftwareConfig) -> tuple[OutputDecl, ...]:
    """The outputs a stored (derived) config declares."""
    return tuple(OutputDecl.from_mapping(o) for o in _entries(row.config, "outputs"))
