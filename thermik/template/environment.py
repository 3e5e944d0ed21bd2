"""Environments: parameters, parameter_defaults, resource_registry, event sinks, and how
several environment files are merged.

:func:`parse_environment` reads one file (unknown or empty sections are errors).
:func:`merge_environments` merges several in order exactly as Heat's API does when a client
sends ``environment_files`` (what ``openstack stack create -e a.yaml -e b.yaml`` does):

* the user's ``--parameter`` values are the starting ``parameters``;
* each file's ``parameters`` and ``parameter_defaults`` are merged per
  ``parameter_merge_strategies`` (``overwrite`` by default; ``merge``/``deep_merge`` join
  strings and lists and merge maps), and only for parameters some template declares
  (unless nothing was there yet, in which case the file's section is taken as is);
* other sections replace top-level keys (so a later ``resources:`` registry replaces an
  earlier one, and a ``null`` in a later file does not undo an earlier file's entry).

These are Heat's rules, quirks included, so that a set of files means the same thing here.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from thermik.errors import EnvironmentError_, ThermikError
from thermik.template.constraints import BOOLEAN, JSON, LIST, NUMBER, STRING
from thermik.template.loader import DEFAULT_MAX_DEPTH, DEFAULT_MAX_SIZE, load_document
from thermik.template.registry import KnownTypes, ResolvedType, ResourceRegistry

SECTIONS = (
    "parameters",
    "resource_registry",
    "parameter_defaults",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)
MERGE_STRATEGIES = ("overwrite", "merge", "deep_merge")
EVENT_SINK_TYPES = {"zaqar-queue": ("type", "target", "ttl")}
_MAPS = ("parameters", "parameter_defaults", "resource_registry", "parameter_merge_strategies")


def parse_environment(
    text: str | bytes, *, max_size: int = DEFAULT_MAX_SIZE, max_depth: int = DEFAULT_MAX_DEPTH
) -> dict[str, Any]:
    """Read one environment file (YAML) and check its sections."""
    document = load_document(
        text, what="environment", json_first=False, max_size=max_size, max_depth=max_depth
    )
    return check_environment(document)


def check_environment(document: Mapping[Any, Any]) -> dict[str, Any]:
    """Reject unknown or empty sections and sections of the wrong shape."""
    for key, value in document.items():
        if key not in SECTIONS:
            raise EnvironmentError_(f'environment has wrong section "{key}"', path=(str(key),))
        if value is None:
            raise EnvironmentError_(f'environment has empty section "{key}"', path=(key,))
        if key in _MAPS and not isinstance(value, Mapping):
            raise EnvironmentError_(f'"{key}" must be a map', path=(key,))
        if key in ("encrypted_param_names", "event_sinks") and not isinstance(value, list):
            raise EnvironmentError_(f'"{key}" must be a list', path=(key,))
    for index, sink in enumerate(document.get("event_sinks", [])):
        _check_sink(sink, index)
    for name in document.get("parameters", {}):
        if not isinstance(name, str):
            raise EnvironmentError_("parameter names must be strings", path=("parameters",))
    return dict(document)


def _check_sink(sink: Any, index: int) -> None:
    where = ("event_sinks", index)
    if not isinstance(sink, Mapping) or sink.get("type") not in EVENT_SINK_TYPES:
        raise EnvironmentError_(
            "an event sink must be a map with type one of: " + ", ".join(EVENT_SINK_TYPES),
            path=where,
        )
    allowed = EVENT_SINK_TYPES[sink["type"]]
    for key in sink:
        if key not in allowed:
            raise EnvironmentError_(f'unknown event sink key "{key}"', path=(*where, str(key)))


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Environment:
    """A user environment, already merged."""

    parameters: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    parameter_defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    registry: ResourceRegistry = dataclasses.field(default_factory=ResourceRegistry)
    encrypted_param_names: tuple[str, ...] = ()
    event_sinks: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, document: Mapping[Any, Any] | None) -> Environment:
        """An environment from one (checked) environment document."""
        env = check_environment(document or {})
        registry = ResourceRegistry.from_mapping(env.get("resource_registry"))
        return cls(
            parameters=dict(env.get("parameters", {})),
            parameter_defaults=dict(env.get("parameter_defaults", {})),
            registry=registry,
            encrypted_param_names=tuple(env.get("encrypted_param_names", ())),
            event_sinks=tuple(env.get("event_sinks", ())),
        )

    def resolve_type(
        self,
        resource_name: str,
        type_name: str,
        files: Mapping[str, str] | None = None,
        known_types: KnownTypes | None = None,
    ) -> ResolvedType:
        """What ``type_name`` means for resource ``resource_name`` in this environment.

        A template resource's text is taken from ``files`` (the CLI and API put every
        template a stack needs there); a template missing from it is an error.
        """
        found = self.registry.resolve(type_name, resource_name, known_types)
        if not found.is_template:
            return found
        text = (files or {}).get(found.implementation)
        if text is None:
            raise EnvironmentError_(
                f'Could not fetch remote template "{found.implementation}": it is not in the '
                "files map"
            )
        return dataclasses.replace(found, template=text)

    def child(
        self,
        resource_name: str,
        parameters: Mapping[str, Any],
        resolved: ResolvedType | None = None,
    ) -> Environment:
        """The environment of the nested stack of template resource ``resource_name``.

        ``parameters`` are the nested stack's (the resource's properties);
        ``parameter_defaults`` and event sinks are inherited, and the registry is scoped to
        the resource (see :meth:`ResourceRegistry.child`), leaving out the entry in
        ``resolved`` that mapped the resource to its template.
        """
        without = resolved.entry if resolved is not None else None
        return dataclasses.replace(
            self,
            parameters=dict(parameters),
            registry=self.registry.child(resource_name, without),
        )

    def hooks(self, resource_name: str) -> frozenset[str]:
        """Hooks (``pre-create`` ...) set for ``resource_name`` in ``resources``."""
        return self.registry.hooks(resource_name)

    def restricted_actions(self, resource_name: str) -> frozenset[str]:
        """Restricted actions (``update``, ``replace``) for ``resource_name``."""
        return self.registry.restricted_actions(resource_name)

    def as_dict(self) -> dict[str, Any]:
        """The user environment as Heat shows it (validate output, ``environment show``)."""
        return {
            "parameters": copy.deepcopy(dict(self.parameters)),
            "resource_registry": self.registry.as_dict(),
            "parameter_defaults": copy.deepcopy(dict(self.parameter_defaults)),
            "event_sinks": [dict(s) for s in self.event_sinks],
        }


def merge_environments(
    documents: Sequence[Mapping[Any, Any]],
    *,
    user_params: Mapping[str, Any] | None = None,
    parameter_types: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> Environment:
    """Merge environment files in order, with Heat's rules (see the module docstring).

    ``parameter_types`` maps every parameter declared by the template or any template in
    the files map to its type (``string``, ``number``, ``comma_delimited_list``, ``json``,
    ``boolean``); ``names`` name the files in errors.
    """
    types = dict(parameter_types or {})
    merged: dict[str, Any] = {
        "parameters": dict(user_params or {}),
        "resource_registry": {},
        "parameter_defaults": {},
        "encrypted_param_names": [],
        "event_sinks": [],
    }
    chosen: dict[str, str] = {}
    for index, raw in enumerate(documents):
        name = names[index] if names and index < len(names) else f"environment {index + 1}"
        try:
            _merge_one(merged, copy.deepcopy(check_environment(raw)), types, chosen, name)
        except ThermikError as exc:
            exc.message = f"{name}: {exc.message}"
            raise
    return Environment.from_dict(merged)


def _merge_one(
    merged: dict[str, Any],
    document: dict[str, Any],
    types: Mapping[str, str],
    chosen: dict[str, str],
    name: str,
) -> None:
    strategies = document.pop("parameter_merge_strategies", {})
    for section, value in document.items():
        if not value:
            continue
        if section in ("parameters", "parameter_defaults"):
            merged[section] = _merge_parameters(
                merged[section], value, types, strategies, chosen, name
            )
        elif isinstance(value, list):
            merged[section] = [*merged[section], *value]
        else:
            merged[section] = _merge_map(merged[section], value, deep=False)


def _strategy(strategies: Mapping[str, Any], key: str, chosen: Mapping[str, str]) -> str:
    default = strategies.get("default", "overwrite")
    found = strategies.get(key, chosen.get(key, default))
    return str(found) if found in MERGE_STRATEGIES else str(default)


def _merge_parameters(
    old: dict[str, Any],
    new: Mapping[str, Any],
    types: Mapping[str, str],
    strategies: Mapping[str, Any],
    chosen: dict[str, str],
    name: str,
) -> dict[str, Any]:
    for key, value in new.items():
        if key in types and value is not None:
            strategy = _strategy(strategies, key, chosen)
            if chosen.setdefault(key, strategy) != strategy:
                raise EnvironmentError_(
                    f"Conflicting merge strategy '{strategy}' for parameter '{key}' in file "
                    f"'{name}'."
                )
    if not old:
        return dict(new)
    for key, value in new.items():
        if key not in types or value is None:
            continue
        strategy = chosen[key]
        if strategy == "overwrite":
            old[key] = value
        else:
            old[key] = _merge_value(key, old.get(key), value, types[key], strategy == "deep_merge")
    return old


def _merge_value(key: str, old: Any, new: Any, ptype: str, deep: bool) -> Any:
    if ptype == JSON:
        return _merge_map(old or {}, _as_json(new), deep)
    if ptype in (BOOLEAN, NUMBER) or not isinstance(new, (str, list)):
        raise EnvironmentError_(
            f"Invalid merge strategy for parameter '{key}': a {ptype} value cannot be merged"
        )
    if ptype == STRING:
        return (old if isinstance(old, str) else "") + str(new)
    if ptype == LIST:
        return _merge_list(key, old, new)
    raise EnvironmentError_(f"Invalid merge strategy for parameter '{key}'")  # pragma: no cover


def _as_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value) if value else {}
        except ValueError as exc:
            raise EnvironmentError_(f"Invalid parameter in environment {exc}.") from None
    return value


def _merge_list(key: str, old: Any, new: Any) -> Any:
    if not old:
        return new
    if isinstance(old, list) and isinstance(new, list):
        return [*old, *new]
    if isinstance(old, str) and isinstance(new, str):
        return f"{old},{new}"
    raise EnvironmentError_(
        f"cannot merge parameter '{key}': mixes a list and a comma-delimited string"
    )


def _merge_map(old: Any, new: Mapping[str, Any], deep: bool) -> Any:
    if not old or not isinstance(old, dict):
        return dict(new) if isinstance(new, Mapping) else new
    if not isinstance(new, Mapping):
        raise EnvironmentError_("cannot merge a map with a value that is not a map")
    for key, value in new.items():
        if value is None:
            continue
        current = old.get(key)
        if not deep:
            old[key] = value
        elif isinstance(value, Mapping):
            old[key] = _merge_map(current, value, deep) if current else value
        elif isinstance(value, list):
            old[key] = [*current, *value] if isinstance(current, list) and current else value
        elif isinstance(value, str):
            old[key] = (current if isinstance(current, str) else "") + value
        else:
            old[key] = value
    return old
