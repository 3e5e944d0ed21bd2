"""From a request to a checked stack definition: template, environments, parameters.

Heat's order (``_parse_template_and_validate_stack``): the request's ``parameters`` go over its
``environment``'s, the ``environment_files`` (named in the files map) are merged on top in
order, the template is applied to the merged environment, and then every resource is checked
(:mod:`thermik.orchestration.checks`). A PATCH update starts from what is stored instead
(:func:`patch_environment`). Nothing here writes anything.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from thermik.api.boundary import Document, StackRequest
from thermik.conf.settings import LimitSettings
from thermik.errors import EnvironmentError_, InvalidInput
from thermik.orchestration.checks import check_resources
from thermik.orchestration.service_check import ServiceCheck
from thermik.resources import CustomValidator, Registry
from thermik.template import (
    Environment,
    Identity,
    StackDefinition,
    Template,
    build_stack,
    merge_environments,
    parse_environment,
)
from thermik.template.environment import check_environment
from thermik.template.parameters import parameter_types

#: How errors name the request's own environment among the environment files.
BODY_ENVIRONMENT = "environment"


@dataclasses.dataclass(frozen=True, slots=True)
class Prepared:
    """A validated stack definition and the documents to store for it."""

    definition: StackDefinition
    template: Mapping[str, Any]
    environment: Mapping[str, Any]
    files: Mapping[str, str]

    @property
    def hidden_parameters(self) -> frozenset[str]:
        """Names of ``hidden`` parameters (their values are stored encrypted)."""
        params = self.definition.parameters.user_facing()
        return frozenset(name for name, param in params.items() if param.schema.hidden)


def check_sources(request: StackRequest) -> None:
    """Refuse what this engine cannot fetch (URLs, Swift containers)."""
    if request.template is None and request.template_url is not None:
        raise InvalidInput(
            "template_url is not supported: send the template itself", path=("template_url",)
        )
    if request.files_container is not None:
        raise InvalidInput(
            "files_container is not supported: send the files in the files map",
            path=("files_container",),
        )


def load_template(
    document: Document | None, files: Mapping[str, str], limits: LimitSettings
) -> Template:
    """The request's template, parsed and checked at the level of sections."""
    if document is None:
        raise InvalidInput("No template specified", path=("template",))
    if isinstance(document, str):
        return Template.load(document, files, max_size=limits.max_template_size)
    return Template.from_document(copy.deepcopy(dict(document)), files)


def _environment_document(document: Document | None, limits: LimitSettings) -> dict[str, Any]:
    if document is None:
        return {}
    if isinstance(document, str):
        return parse_environment(document, max_size=limits.max_template_size)
    if not isinstance(document, Mapping):
        raise EnvironmentError_("The environment is not a JSON object or YAML mapping.")
    return check_environment(copy.deepcopy(dict(document)))


def _environment_files(
    names: Sequence[str], files: Mapping[str, str], limits: LimitSettings
) -> list[dict[str, Any]]:
    documents = []
    for name in names:
        text = files.get(name)
        if text is None:
            raise EnvironmentError_(
                f"Environment file {name} is not in the files map", path=("environment_files",)
            )
        try:
            documents.append(parse_environment(text, max_size=limits.max_template_size))
        except EnvironmentError_ as exc:
            exc.message = f"{name}: {exc.message}"
            raise
    return documents


def request_environment(
    request: StackRequest,
    template: Template,
    limits: LimitSettings,
    base: Mapping[str, Any] | None = None,
) -> Environment:
    """The merged environment of a request, optionally on top of a stored one (PATCH)."""
    body = _environment_document(request.environment, limits)
    params = {**body.get("parameters", {}), **request.parameters}
    if params:
        body["parameters"] = params
    documents = [body, *_environment_files(request.environment_files, request.files, limits)]
    names = [BODY_ENVIRONMENT, *request.environment_files]
    if base is not None:
        documents.insert(0, dict(base))
        names.insert(0, "stored environment")
    return merge_environments(documents, parameter_types=parameter_types(template), names=names)


def patch_environment(stored: Mapping[str, Any], clear: Sequence[str]) -> dict[str, Any]:
    """A stored environment to merge a PATCH onto, without the ``clear_parameters``."""
    document = copy.deepcopy(dict(stored))
    params = dict(document.get("parameters") or {})
    document["parameters"] = {k: v for k, v in params.items() if k not in set(clear)}
    return document


def _unchecked(value: Any) -> None:
    return None


class Checkable(Mapping[str, CustomValidator]):
    """Custom constraint validators, answering for a name they lack with one that accepts
    everything: a parameter then fares as a property does with a constraint the cloud layer
    cannot check yet (the resource's own action reports a bad value)."""

    def __init__(self, validators: Mapping[str, CustomValidator]) -> None:
        self._validators = validators

    def __getitem__(self, name: str) -> CustomValidator:
        return self._validators.get(name, _unchecked)

    def __iter__(self) -> Iterator[str]:
        return iter(self._validators)

    def __len__(self) -> int:
        return len(self._validators)


def prepare(
    template: Template,
    environment: Environment,
    identity: Identity,
    registry: Registry,
    limits: LimitSettings,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    services: ServiceCheck | None = None,
) -> Prepared:
    """Build and fully check a stack definition, as Heat does before storing anything;
    ``custom_constraints`` check parameter and property values against the cloud (unchecked
    when ``None``; a constraint the cloud layer has no look-up for is not checked), and
    ``services`` that the types' services are in the caller's catalog."""
    definition = build_stack(
        template,
        environment,
        None,
        identity,
        custom_constraints=None if custom_constraints is None else Checkable(custom_constraints),
        known_types=registry.__contains__,
        budget=limits.function_budget(),
    )
    check_resources(
        definition, registry, limits, custom_constraints=custom_constraints, services=services
    )
    return Prepared(
        definition=definition,
        template=dict(template.data),
        environment=environment.as_dict(),
        files=dict(template.files),
    )


def prepare_request(
    request: StackRequest,
    identity: Identity,
    registry: Registry,
    limits: LimitSettings,
    base: Mapping[str, Any] | None = None,
    custom_constraints: Mapping[str, CustomValidator] | None = None,
    services: ServiceCheck | None = None,
) -> Prepared:
    """Parse and check a create/preview/adopt request (an adopt's environment is ``base``)."""
    check_sources(request)
    template = load_template(request.template, request.files, limits)
    environment = request_environment(request, template, limits, base)
    return prepare(template, environment, identity, registry, limits, custom_constraints, services)
