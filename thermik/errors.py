"""The exception tree of Thermik.

Every error Thermik raises on purpose is a :class:`ThermikError`. Anything else escaping a
boundary (API, CLI, actor) is a bug. The tree::

    ThermikError                       500  root; never raised directly
    ├── InvalidInput                   400  a user sent something wrong
    │   ├── TemplateError                   a template, parameter or environment is invalid
    │   │   ├── TemplateSyntaxError         malformed YAML/JSON, not a mapping
    │   │   ├── TemplateVersionError        missing or unknown template version
    │   │   ├── TemplateTooLarge            over ``max_template_size`` or nesting limits
    │   │   ├── FunctionError               unknown function, bad arguments, not in this version
    │   │   ├── CircularDependency          the resource graph has a cycle
    │   │   ├── ParameterError              missing value, wrong type, failed constraint
    │   │   ├── EnvironmentError_           bad environment file or registry entry
    │   │   ├── ResourceTypeNotFound        no plugin or registry mapping for a type
    │   │   ├── ResourceTypeUnavailable     the type's service is not in the caller's catalog
    │   │   └── PropertyError               a resource property fails its schema
    │   ├── InvalidSignal                   malformed, oversized or unexpected signal data
    │   │   └── InvalidBreakPointHook       ``unset_hook`` of a hook the resource is not at
    │   └── InvalidRequest                  a malformed API request body or query
    ├── Unauthorized                   401
    ├── Forbidden                      403  tenant isolation, wrong signature, expired URL
    │   └── DelegationRefused               Keystone refused the caller's trust for the stack
    ├── NotFound                       404  StackNotFound, ResourceNotFound, ...
    ├── Conflict                       409  a compare-and-swap lost, or an action is illegal now
    │   ├── TraversalConflict               the stack's current traversal moved on
    │   ├── LockConflict                    a resource row is locked by another engine
    │   ├── GenerationConflict              a server's metadata generation moved on
    │   ├── LeaseConflict                   another live engine holds the stack lease
    │   ├── DuplicateName                   a stack of that name exists in the tenant
    │   └── InvalidTransition               the action is not legal in the current state
    ├── RequestTooLarge                413  body or template over the configured limit
    ├── ConfigError                    500  configuration is missing or contradictory
    ├── PluginError                    500  a resource plugin misbehaved (bug or cloud failure)
    │   ├── ActionAborted                   a resource action was cancelled or timed out
    │   └── CloudError                      a cloud API call failed; the message is the cloud's
    │       ├── CloudGone                   404: the cloud resource is not there (a delete is done)
    │       ├── CloudConflict               409: busy or in the wrong state now (retried)
    │       ├── CloudUnavailable            unreachable, timed out, 5xx or 429 (retried)
    │       │   └── CloudNoAnswer           no answer in time (the request may still be served)
    │       ├── CloudQuotaExceeded          over a quota of the project
    │       └── CloudFault                  any other refusal or failure (400, 401, 403, ...)
    ├── EngineStopping                 503  the engine is stopping
    ├── EngineUnavailable              503  service mode: no engine answered over RPC in time
    ├── StoreError                     503  the database cannot be used
    │   ├── DatabaseUnavailable             unreachable, wrong credentials, locked file
    │   ├── SchemaNotMigrated               run ``thermik-manage db sync``
    │   └── SecretKeyError                  missing or wrong encryption key
    └── DeliveryError                  503  Swift/Zaqar/builtin delivery failed
        ├── DeliveryUnavailable             unreachable, timed out, reset, or answered 5xx
        ├── DeliveryRejected                the service refused the credentials or the request
        ├── DeliveryTargetMissing           the container, object or queue does not exist
        └── DeliveryStuck                   the served metadata stays older than the latest

Errors carry structured fields (``path``, ``resource``, ``parameter``, ``stack``) rather than
preformatted text, so the API and CLI can render them, and ``str(error)`` always names the place:
``resources.web.properties.image: value is required``.

Failures that cross actor boundaries or are stored travel as :class:`Failure` records, never as
live exception objects.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar

PathElement = str | int


def format_path(path: Sequence[PathElement]) -> str:
    """Render a template path the way Heat users read it: ``resources.web.properties[0]``."""
    out = ""
    for element in path:
        if isinstance(element, int):
            out += f"[{element}]"
        elif out:
            out += f".{element}"
        else:
            out = element
    return out


class ThermikError(Exception):
    """Root of every error Thermik raises on purpose."""

    http_status: ClassVar[int] = 500
    #: Heat's error type name for the API error body, where a client depends on it.
    heat_type: ClassVar[str] = "HeatException"
    #: Whether retrying the same operation later may succeed.
    retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        path: Sequence[PathElement] = (),
        resource: str | None = None,
        parameter: str | None = None,
        stack: str | None = None,
    ) -> None:
        self.message = message
        self.path: tuple[PathElement, ...] = tuple(path)
        self.resource = resource
        self.parameter = parameter
        self.stack = stack
        super().__init__(str(self))

    def __str__(self) -> str:
        where = format_path(self.path)
        return f"{where}: {self.message}" if where else self.message

    def reason_type(self) -> str:
        """The exception class name Heat would record for this error in a status reason."""
        return type(self).__name__

    def at(self, *prefix: PathElement) -> ThermikError:
        """Return this error with ``prefix`` prepended to its path (used while unwinding)."""
        self.path = tuple(prefix) + self.path
        self.args = (str(self),)
        return self


class InvalidInput(ThermikError):
    """Something a user sent is wrong; nothing was changed."""

    http_status = 400
    heat_type = "StackValidationFailed"

    def reason_type(self) -> str:
        """Heat records a bad value met while acting (a property) as ``StackValidationFailed``."""
        return "StackValidationFailed"


class TemplateError(InvalidInput):
    """A template, its parameters or its environment is invalid."""


class TemplateSyntaxError(TemplateError):
    """The document is not well-formed YAML/JSON, or not a mapping."""


class TemplateVersionError(TemplateError):
    """The template version is missing, unknown, or does not allow what is used."""

    heat_type = "InvalidTemplateVersion"


class TemplateTooLarge(TemplateError):
    """The template exceeds a configured size or nesting limit."""

    heat_type = "RequestLimitExceeded"


class FunctionError(TemplateError):
    """An intrinsic function is unknown, misused, or not offered by the template version."""


class CircularDependency(TemplateError):
    """The dependency graph has a cycle; ``cycle`` lists its resources in order."""

    heat_type = "CircularDependencyException"

    def __init__(self, cycle: Sequence[str]) -> None:
        self.cycle = tuple(cycle)
        super().__init__("Circular Dependency Found: " + " -> ".join((*self.cycle, self.cycle[0])))


class ParameterError(TemplateError):
    """A parameter value is missing, of the wrong type, or violates a constraint."""


class EnvironmentError_(TemplateError):  # noqa: N801 - avoid shadowing the builtin alias
    """An environment file or a registry entry is invalid."""


class ResourceTypeNotFound(TemplateError):
    """No plugin or registry mapping exists for a resource type."""

    heat_type = "ResourceTypeNotFound"


class ResourceTypeUnavailable(TemplateError):
    """A resource type needs a cloud service the caller's catalog does not list. Heat's
    error ``HEAT-E99001``, which template validate ignores when asked to (``error_code``)."""

    heat_type = "ResourceTypeUnavailable"
    error_code: ClassVar[str] = "99001"


class PropertyError(TemplateError):
    """A resource property fails its schema."""


class PropertyValueError(PropertyError):
    """A resource property's value cannot be worked out (a function in it fails): said as
    Heat says it, ``Property error: resources.<name>.properties.<property>: <why>``."""

    def __str__(self) -> str:
        return f"Property error: {format_path(self.path)}: {self.message}"

    def preview_text(self) -> str:
        """The error as Heat's stack preview words it (each part once more behind a colon)."""
        return f"Property error: : {format_path(self.path)}: : {self.message}"


class AttributeValueError(InvalidInput):
    """A resource attribute cannot be worked out (a template resource's output failed): the
    attribute is stored as failed, and reading it fails with this message, as Heat's
    ``Error in <resource> output <attribute>: <why>`` (no path: it is the whole message)."""

    def __str__(self) -> str:
        return self.message


class InvalidSignal(InvalidInput):
    """Signal data is malformed, oversized, or the resource takes no signals."""

    heat_type = "ResourceFailure"


class InvalidBreakPointHook(InvalidSignal):
    """A signal ``{"unset_hook": ...}`` names no hook type, or one the resource does not
    wait at."""

    heat_type = "InvalidBreakPointHook"


class InvalidRequest(InvalidInput):
    """An API request body or query string is malformed."""

    heat_type = "HTTPBadRequest"


class Unauthorized(ThermikError):
    """Missing or invalid credentials."""

    http_status = 401
    heat_type = "HTTPUnauthorized"


class Forbidden(ThermikError):
    """Credentials are valid but do not allow this (other tenant, bad signature, expired URL)."""

    http_status = 403
    heat_type = "Forbidden"


class DelegationRefused(Forbidden):
    """Keystone refused to let the engine act for the caller later (a trust of their roles)."""


class NotFound(ThermikError):
    """The named entity does not exist (or is not visible to the caller)."""

    http_status = 404
    heat_type = "EntityNotFound"


class StackNotFound(NotFound):
    """No such stack in the caller's tenant."""

    heat_type = "EntityNotFound"


class ResourceNotFound(NotFound):
    """No such resource in the stack."""

    heat_type = "EntityNotFound"


class Conflict(ThermikError):
    """The request lost a compare-and-swap, or is illegal in the current state."""

    http_status = 409
    heat_type = "HTTPConflict"


class TraversalConflict(Conflict):
    """The stack's current traversal is not the one the caller expected."""

    heat_type = "ActionInProgress"


class LockConflict(Conflict):
    """A resource row is locked by another engine or a newer atomic key."""

    retryable = True


class GenerationConflict(Conflict):
    """A server's metadata generation changed since it was read."""

    retryable = True


class LeaseConflict(Conflict):
    """Another live engine holds the stack lease."""

    retryable = True


class DuplicateName(Conflict):
    """A stack with that name already exists in the tenant."""

    heat_type = "StackExists"


class InvalidTransition(Conflict):
    """The requested action is not legal from the current state."""

    heat_type = "ActionInProgress"


class RequestTooLarge(ThermikError):
    """The request body exceeds the configured limit."""

    http_status = 413
    heat_type = "RequestLimitExceeded"


class ConfigError(ThermikError):
    """Configuration is missing or contradictory."""


class PluginError(ThermikError):
    """A resource plugin failed; the message is shown in the resource's status reason.

    ``kind`` is the exception class name the reason starts with, as Heat writes it
    (``Error: resources.web: ...``): Heat's plugins mostly raise its generic ``Error``; a
    plugin imitating one that raises something else names that.
    """

    heat_type = "ResourceFailure"

    def __init__(
        self,
        message: str,
        *,
        path: Sequence[PathElement] = (),
        resource: str | None = None,
        stack: str | None = None,
        kind: str = "Error",
    ) -> None:
        self.kind = kind
        super().__init__(message, path=path, resource=resource, stack=stack)

    def reason_type(self) -> str:
        """The exception class name the status reason starts with (may be empty)."""
        return self.kind


class ActionAborted(PluginError):
    """A resource action was stopped before it ended (a cancel, the stack's deadline).

    Its message is the whole status reason, as Heat writes it: ``UPDATE aborted`` or
    ``CREATE aborted (<why>)``, with neither a class name nor a path in front.
    """

    def __init__(self, message: str, *, resource: str | None = None) -> None:
        super().__init__(message, resource=resource, kind="")


class CloudError(PluginError):
    """A call to the cloud (Nova, Neutron, Glance, ...) failed; ``message`` is the cloud's own.

    ``service`` is the service type that answered (``compute``, ``network``, ...) and ``status``
    its HTTP status, when there was an answer. The message never carries URLs or hosts.
    """

    #: The name the resource's status reason starts with, as Heat writes a client's error.
    default_kind: ClassVar[str] = "Error"

    def __init__(
        self,
        message: str,
        *,
        service: str | None = None,
        status: int | None = None,
        resource: str | None = None,
    ) -> None:
        self.service = service
        self.status = status
        super().__init__(message, resource=resource, kind=self.default_kind)


class CloudGone(CloudError):
    """The cloud resource does not exist (any more): a delete of it is complete."""

    default_kind = "NotFound"


class CloudConflict(CloudError):
    """The cloud refused the call for the resource's current state; it may pass later."""

    default_kind = "Conflict"
    retryable = True


class CloudUnavailable(CloudError):
    """The service is unreachable, timed out, overloaded or failed inside (5xx)."""

    default_kind = "ServiceUnavailable"
    retryable = True


class CloudNoAnswer(CloudUnavailable):
    """The request got no answer in time: the service may still be serving it."""


class CloudQuotaExceeded(CloudError):
    """The call would take the project over one of its quotas."""

    default_kind = "OverQuota"


class CloudFault(CloudError):
    """Any other refusal or failure of the cloud: a bad value, missing rights, an error state."""


class EngineStopping(ThermikError):
    """The engine is stopping: the request reached it too late (the next engine may take it)."""

    http_status = 503
    retryable = True


class EngineUnavailable(ThermikError):
    """Service mode: the engine that drives the stack (or every engine) did not answer over
    RPC in time; once a dead engine's lease expires, another engine resumes its stacks."""

    http_status = 503
    retryable = True


class RemoteUnavailable(ThermikError):
    """A remote Thermik or Heat service (``thermik --os-endpoint``/``--remote``) failed or
    cannot be reached; the message is the service's own, or says which part failed."""

    http_status = 503
    retryable = True


class NotRemote(InvalidInput):
    """A command that needs this machine's engine or database was run against a remote
    service (``--os-endpoint``/``--remote``)."""


class StoreError(ThermikError):
    """The database cannot be used."""

    http_status = 503


class DatabaseUnavailable(StoreError):
    """The database is unreachable, refuses the credentials, or its file is locked."""

    retryable = True


class SchemaNotMigrated(StoreError):
    """The schema is missing or older than the code; run ``thermik-manage db sync``."""


class SecretKeyError(StoreError):
    """The key to encrypt or decrypt secrets at rest is missing or wrong."""


class DeliveryError(ThermikError):
    """Publishing metadata or collecting signals through a delivery backend failed."""

    http_status = 503
    retryable = True


class DeliveryUnavailable(DeliveryError):
    """The delivery service is unreachable, timed out, reset the connection or answered 5xx."""


class DeliveryRejected(DeliveryError):
    """The delivery service refused the credentials or the request; retrying will not help."""

    retryable = False


class DeliveryTargetMissing(DeliveryError):
    """The container, object or queue a delivery endpoint names does not exist."""

    retryable = False


class DeliveryStuck(DeliveryError):
    """The document a server is served stays older than the latest generation past a deadline."""


def heat_path(path: Sequence[PathElement]) -> str:
    """Render a path as Heat does in status reasons: like :func:`format_path`, but a name made
    of digits (a ResourceGroup member) is an index too: ``resources.group.resources[1]``."""
    out = ""
    for element in path:
        if isinstance(element, int) or element.isdigit():
            out += f"[{element}]"
        else:
            out = f"{out}.{element}" if out else element
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class Failure:
    """A failure as it crosses actor boundaries or is stored: a value, not an exception.

    ``str()`` gives it the way Heat writes a failure in a status reason:
    ``<type>: <path>: <message>``, leaving out an empty type or path.
    """

    type_name: str
    message: str
    retryable: bool = False
    path: tuple[PathElement, ...] = ()

    @classmethod
    def from_exception(cls, exc: BaseException) -> Failure:
        """Capture ``exc``; errors outside the tree are recorded by class name and text."""
        if isinstance(exc, ThermikError):
            return cls(exc.reason_type(), exc.message, exc.retryable, exc.path)
        return cls(type(exc).__name__, str(exc) or type(exc).__name__)

    @property
    def detail(self) -> str:
        """The message with its path in front, without the type."""
        where = heat_path(self.path)
        return f"{where}: {self.message}" if where else self.message

    def of_resource(self, name: str) -> Failure:
        """This failure as Heat records it for resource ``name``: its path is under
        ``resources.<name>`` (a path there already, such as a property's, is kept)."""
        if self.path[:2] == ("resources", name):
            return self
        return dataclasses.replace(self, path=("resources", name, *self.path))

    def __str__(self) -> str:
        return f"{self.type_name}: {self.detail}" if self.type_name else self.detail
