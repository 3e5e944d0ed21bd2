"""The metadata document a server's agent reads, and the signal it sends back (pure).

The shapes follow what Heat hands to the unmodified in-guest agents (os-collect-config,
os-apply-config, 55-heat-config and heat-config-notify):

- a *derived config* per deployment action: the source config plus concrete input values plus
  the ``deploy_*`` inputs, rendered as one entry of the document's ``deployments`` list with
  ``id``, ``name``, ``group``, ``creation_time``, ``config``, ``options`` (always an object),
  ``inputs`` (each with a ``type``) and ``outputs``;
- the server document: template metadata, the ``os-collect-config`` section naming the
  collectors, the ``deployments`` sorted by derived config name, and the key
  :data:`GENERATION_KEY` the engine adds so a read-back can tell which generation is served
  (agents ignore unknown top-level keys);
- the signal payload (``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code`` and the
  declared outputs) turned into a :class:`SignalResult`.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from thermik.errors import InvalidInput, InvalidSignal, PropertyError
from thermik.resources import agent_config
from thermik.resources.agent_config import occ_section

GENERATION_KEY = "thermik-generation"
"""Top-level document key holding the server's metadata generation."""

OCC_KEY = agent_config.OCC_KEY
DEPLOYMENTS_KEY = "deployments"
UNGROUPED = "Heat::Ungrouped"
IO_TYPES = ("String", "Number", "CommaDelimitedList", "Json", "Boolean")

STATUS_CODE, STDOUT, STDERR = "deploy_status_code", "deploy_stdout", "deploy_stderr"
STANDARD_OUTPUTS = (STDOUT, STDERR, STATUS_CODE)

_DESCRIPTIONS = {
    "deploy_server_id": "ID of the server the configuration is deployed to",
    "deploy_action": "The stack action being deployed",
    "deploy_stack_id": "The stack of this deployment, as name/id",
    "deploy_resource_name": "Name of this deployment resource in its stack",
    "deploy_signal_transport": "How the server signals the deployment's output values",
    "deploy_signal_id": "Where the server signals the deployment's output values",
    "deploy_signal_verb": "HTTP verb for signalling the deployment's output values",
    "deploy_auth_url": "Identity URL for signalling",
    "deploy_username": "User name for signalling",
    "deploy_user_id": "User ID for signalling",
    "deploy_password": "Password for signalling",
    "deploy_project_id": "Project ID for signalling",
    "deploy_region_name": "Region for signalling",
    "deploy_queue_id": "Queue for signalling the deployment's output values",
}


def _checked_type(value: Any, path: Sequence[str | int]) -> str:
    if value is None:
        return "String"
    if value not in IO_TYPES:
        raise PropertyError(
            f"type must be one of {', '.join(IO_TYPES)}, not {value!r}", path=(*path, "type")
        )
    return str(value)


def _required_name(data: Mapping[str, Any], path: Sequence[str | int]) -> str:
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise PropertyError("name is required and must be a non-empty string", path=path)
    return name


@dataclasses.dataclass(frozen=True, slots=True)
class InputDecl:
    """A declared input of a software config."""

    name: str
    type: str = "String"
    description: str | None = None
    default: Any = None
    replace_on_change: bool = False

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], path: Sequence[str | int] = ()) -> InputDecl:
        """Read one ``inputs`` element; errors name ``path``."""
        return cls(
            name=_required_name(data, path),
            type=_checked_type(data.get("type"), path),
            description=data.get("description"),
            default=data.get("default"),
            replace_on_change=bool(data.get("replace_on_change", False)),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class OutputDecl:
    """A declared output; an ``error_output`` present in a signal fails the deployment."""

    name: str
    type: str = "String"
    description: str | None = None
    error_output: bool = False

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], path: Sequence[str | int] = ()) -> OutputDecl:
        """Read one ``outputs`` element; errors name ``path``."""
        return cls(
            name=_required_name(data, path),
            type=_checked_type(data.get("type"), path),
            description=data.get("description"),
            error_output=bool(data.get("error_output", False)),
        )

    def as_entry(self) -> dict[str, Any]:
        """The element of a deployment entry's ``outputs`` list."""
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.description is not None:
            out["description"] = self.description
        out["error_output"] = self.error_output
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class InputValue:
    """A declared input with the concrete value of one deployment action."""

    decl: InputDecl
    value: Any

    def as_entry(self) -> dict[str, Any]:
        """The element of a deployment entry's ``inputs`` list."""
        out: dict[str, Any] = {"name": self.decl.name, "type": self.decl.type}
        if self.decl.description is not None:
            out["description"] = self.decl.description
        if self.decl.default is not None:
            out["default"] = self.decl.default
        if self.decl.replace_on_change:
            out["replace_on_change"] = True
        out["value"] = self.value
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class SourceConfig:
    """A software config as stored by ``OS::Heat::SoftwareConfig`` and its relatives."""

    name: str | None = None
    group: str = UNGROUPED
    config: Any = ""
    inputs: tuple[InputDecl, ...] = ()
    outputs: tuple[OutputDecl, ...] = ()
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], path: Sequence[str | int] = ()) -> SourceConfig:
        """Read a stored config (``name``, ``group``, ``config``, ``inputs``, ``outputs``,
        ``options``); errors name ``path``."""
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise PropertyError("options must be a map", path=(*path, "options"))
        return cls(
            name=data.get("name"),
            group=data.get("group") or UNGROUPED,
            config=data.get("config", ""),
            inputs=tuple(
                InputDecl.from_mapping(d, (*path, "inputs", n))
                for n, d in enumerate(_io_list(data, "inputs", path))
            ),
            outputs=tuple(
                OutputDecl.from_mapping(d, (*path, "outputs", n))
                for n, d in enumerate(_io_list(data, "outputs", path))
            ),
            options=dict(options),
        )


def _io_list(
    data: Mapping[str, Any], key: str, path: Sequence[str | int]
) -> list[Mapping[str, Any]]:
    items = data.get(key) or []
    if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
        raise PropertyError(f"{key} must be a list of maps", path=(*path, key))
    return items


@dataclasses.dataclass(frozen=True, slots=True)
class DeploymentFacts:
    """What one deployment action contributes to its derived config.

    ``name`` is the deployment's ``name`` property; ``physical_name`` is the fallback name when
    neither it nor the source config has one. ``signal_inputs`` come from the signal endpoint
    (:attr:`thermik.delivery.base.SignalEndpoint.inputs`) and are empty for ``NO_SIGNAL``.
    """

    server_id: str
    action: str
    stack_path: str
    resource_name: str
    signal_transport: str
    physical_name: str
    name: str | None = None
    input_values: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    signal_inputs: Mapping[str, str] = dataclasses.field(default_factory=dict)


def isotime(moment: datetime.datetime) -> str:
    """Heat's timestamp format: UTC, second resolution, ``Z`` suffix."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclasses.dataclass(frozen=True, slots=True)
class DerivedConfig:
    """The config one deployment action runs; agents run each ``id`` once."""

    id: str
    name: str
    group: str
    creation_time: datetime.datetime
    config: Any
    inputs: tuple[InputValue, ...]
    outputs: tuple[OutputDecl, ...]
    options: Mapping[str, Any]

    def entry(self) -> dict[str, Any]:
        """This config as an element of the document's ``deployments`` list."""
        return {
            "id": self.id,
            "name": self.name,
            "group": self.group,
            "creation_time": isotime(self.creation_time),
            "config": self.config,
            "options": dict(self.options),
            "inputs": [i.as_entry() for i in self.inputs],
            "outputs": [o.as_entry() for o in self.outputs],
        }

    def input_data(self) -> dict[str, Any]:
        """Input name to value, for ``replace_on_change`` comparisons."""
        return {i.decl.name: i.value for i in self.inputs}


def _standard_inputs(facts: DeploymentFacts) -> Iterable[InputValue]:
    values = {
        "deploy_server_id": facts.server_id,
        "deploy_action": facts.action,
        "deploy_stack_id": facts.stack_path,
        "deploy_resource_name": facts.resource_name,
        "deploy_signal_transport": facts.signal_transport,
        **facts.signal_inputs,
    }
    for name, value in values.items():
        yield InputValue(InputDecl(name, description=_DESCRIPTIONS.get(name)), value)


def derive_inputs(source: SourceConfig, facts: DeploymentFacts) -> tuple[InputValue, ...]:
    """Declared inputs with their values, then undeclared input values, then ``deploy_*``."""
    remaining = dict(facts.input_values)
    declared = [InputValue(d, remaining.pop(d.name, d.default)) for d in source.inputs]
    extra = [InputValue(InputDecl(str(k)), v) for k, v in remaining.items()]
    return (*declared, *extra, *_standard_inputs(facts))


def substitute_inputs(config: Any, inputs: Mapping[str, Any], input_key: str, strict: bool) -> Any:
    """A structured config with every ``{input_key: name}`` map replaced by that input's value.

    Raises:
        InvalidInput: ``strict`` and a referenced input has no value.
    """
    if isinstance(config, Mapping):
        if len(config) == 1:
            key, name = next(iter(config.items()))
            if key == input_key and isinstance(name, str):
                if strict and name not in inputs:
                    raise InvalidInput(f"The Parameter ({name}) was not provided.")
                return inputs.get(name)
        return {k: substitute_inputs(v, inputs, input_key, strict) for k, v in config.items()}
    if isinstance(config, list):
        return [substitute_inputs(v, inputs, input_key, strict) for v in config]
    return config


def derive_config(
    source: SourceConfig,
    facts: DeploymentFacts,
    *,
    config_id: str,
    created_at: datetime.datetime,
    input_key: str | None = None,
    strict: bool = False,
) -> DerivedConfig:
    """The derived config of one deployment action; ``config_id`` must be new every action.

    With ``input_key`` (structured deployments) the config's ``{input_key: name}`` maps are
    replaced by the values of the derived inputs (see :func:`substitute_inputs`).
    """
    inputs = derive_inputs(source, facts)
    config = source.config if source.config is not None else ""
    if input_key is not None:
        values = {i.decl.name: i.value for i in inputs}
        config = substitute_inputs(config, values, input_key, strict)
    return DerivedConfig(
        id=config_id,
        name=facts.name or source.name or facts.physical_name,
        group=source.group or UNGROUPED,
        creation_time=created_at,
        config=config,
        inputs=inputs,
        outputs=source.outputs,
        options=dict(source.options or {}),
    )


def metadata_document(
    *,
    collector: str,
    collector_settings: Mapping[str, Any],
    deployments: Iterable[DerivedConfig],
    template_metadata: Mapping[str, Any] | None = None,
    previous_occ: Mapping[str, Any] | None = None,
    default_collectors: Sequence[str] = (),
) -> dict[str, Any]:
    """The document a server's agent is served, without a generation.

    ``default_collectors`` precede the transport's collector (a Nova server in a cloud adds
    ``ec2``; a DeployedServer adds nothing), and ``local`` always comes last.
    """
    ordered = sorted(deployments, key=lambda d: (d.name, d.creation_time, d.id))
    document: dict[str, Any] = dict(template_metadata or {})
    document[OCC_KEY] = occ_section(
        collector,
        collector_settings,
        default_collectors=default_collectors,
        previous=previous_occ,
    )
    document[DEPLOYMENTS_KEY] = [d.entry() for d in ordered]
    return document


def with_generation(document: Mapping[str, Any], generation: int) -> dict[str, Any]:
    """A copy of ``document`` carrying the server's metadata ``generation``."""
    return {**document, GENERATION_KEY: generation}


def generation_of(document: Mapping[str, Any] | None) -> int:
    """The generation a served document carries; 0 when none is served or it has none."""
    if document is None:
        return 0
    value = document.get(GENERATION_KEY)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def deployment_ids(document: Mapping[str, Any] | None) -> set[str]:
    """The derived config ids a served document lists."""
    if document is None:
        return set()
    entries = document.get(DEPLOYMENTS_KEY) or []
    return {e["id"] for e in entries if isinstance(e, Mapping) and "id" in e}


class DeploymentStatus(enum.Enum):
    """What a signal makes of a deployment that waited for it."""

    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


@dataclasses.dataclass(frozen=True, slots=True)
class SignalResult:
    """A parsed signal: the deployment's new status, why, and its output values."""

    status: DeploymentStatus
    reason: str
    outputs: Mapping[str, Any]


def decode_signal(body: bytes | str | Mapping[str, Any], max_size: int) -> dict[str, Any]:
    """The signal payload as a JSON object.

    Raises:
        InvalidSignal: the body is larger than ``max_size``, not JSON, or not a JSON object.
    """
    if isinstance(body, Mapping):
        return dict(body)
    if len(body) > max_size:
        raise InvalidSignal(f"signal body of {len(body)} bytes exceeds the limit of {max_size}")
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidSignal(f"signal body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise InvalidSignal(f"signal body must be a JSON object, not {type(payload).__name__}")
    return payload


def parse_signal(
    body: bytes | str | Mapping[str, Any],
    outputs: Sequence[OutputDecl],
    *,
    max_size: int = 1048576,
) -> SignalResult:
    """Judge a deployment signal the way Heat does.

    The deployment FAILED if ``deploy_status_code`` is present and not 0, or if any output
    declared with ``error_output`` is present; otherwise it is COMPLETE ("Outputs received").
    The output values are the declared outputs present in the payload plus the three
    ``deploy_*`` keys (None when missing).
    """
    payload = decode_signal(body, max_size)
    reasons: dict[str, Any] = {}
    code = payload.get(STATUS_CODE)
    if code and str(code) != "0":
        reasons[STATUS_CODE] = f"Deployment exited with non-zero status code: {code}"
    values: dict[str, Any] = {}
    for output in outputs:
        if output.name in payload:
            values[output.name] = payload[output.name]
            if output.error_output:
                reasons[output.name] = payload[output.name]
    for key in STANDARD_OUTPUTS:
        values[key] = payload.get(key)
    if reasons:
        reason = ", ".join(f"{k} : {v}" for k, v in reasons.items())
        return SignalResult(DeploymentStatus.FAILED, reason, values)
    return SignalResult(DeploymentStatus.COMPLETE, "Outputs received", values)
