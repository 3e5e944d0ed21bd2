"""The remote orchestration service: :class:`thermik.api.boundary.OrchestrationService` over a
remote Thermik or Heat service's v1 REST API, for ``thermik --os-endpoint``/``--remote``.

The CLI's commands call it as they call the local engine; nothing here touches a database or
runs an engine. Stacks are :mod:`thermik.remote.stacks`, software configs and deployments
:mod:`thermik.remote.software`; resources, events and the catalog are here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from thermik.api.boundary import (
    EventQuery,
    EventView,
    RequestContext,
    ResourceQuery,
    ResourceTypeView,
    ResourceView,
    ServiceView,
    StackIdentity,
    StackRequest,
    TemplateFunctionView,
    TemplateVersionView,
    ValidationView,
)
from thermik.clients.heat_wire import segment
from thermik.remote import bodies, views
from thermik.remote.software import RemoteSoftware
from thermik.remote.stacks import RemoteStacks, stack_path
from thermik.remote.views import mapping

Json = Any


def _listed(document: Any, key: str) -> list[Any]:
    return [item for item in mapping(document).get(key) or () if item is not None]


class RemoteOrchestrator(RemoteStacks, RemoteSoftware):
    """Everything the CLI asks of the engine, asked of a remote service."""

    def close(self) -> None:
        """Release the HTTP connections."""
        self.api.close()

    # Resources and events

    def _resource_path(self, stack: StackIdentity, name: str) -> str:
        return f"{stack_path(stack)}/resources/{segment(name)}"

    def list_resources(
        self, ctx: RequestContext, stack: StackIdentity, query: ResourceQuery
    ) -> Sequence[ResourceView]:
        path = f"{stack_path(stack)}/resources"
        found = self.api.call("GET", path, params=bodies.resource_params(query))
        return [views.resource(item, stack) for item in _listed(found, "resources")]

    def show_resource(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        with_attr: Sequence[str] = (),
    ) -> ResourceView:
        params = {"with_attr": list(with_attr)} if with_attr else {}
        shown = self.api.call("GET", self._resource_path(stack, name), params=params)
        return views.resource(mapping(mapping(shown).get("resource")), stack)

    def resource_metadata(
        self, ctx: RequestContext, stack: StackIdentity, name: str
    ) -> Mapping[str, Json]:
        shown = self.api.call("GET", f"{self._resource_path(stack, name)}/metadata")
        return mapping(mapping(shown).get("metadata"))

    def signal_resource(
        self, ctx: RequestContext, stack: StackIdentity, name: str, details: Json
    ) -> None:
        self.api.call("POST", f"{self._resource_path(stack, name)}/signal", body=details)

    def mark_resource_unhealthy(
        self,
        ctx: RequestContext,
        stack: StackIdentity,
        name: str,
        *,
        unhealthy: bool,
        reason: str,
    ) -> None:
        body = {"mark_unhealthy": unhealthy, "resource_status_reason": reason}
        self.api.call("PATCH", self._resource_path(stack, name), body=body)

    def list_events(
        self, ctx: RequestContext, stack: StackIdentity, query: EventQuery
    ) -> Sequence[EventView]:
        path = stack_path(stack)
        if query.resource_name is not None:
            path = self._resource_path(stack, query.resource_name)
        found = self.api.call("GET", f"{path}/events", params=bodies.event_params(query))
        return [views.event(item, stack) for item in _listed(found, "events")]

    def show_event(
        self, ctx: RequestContext, stack: StackIdentity, resource_name: str, event_id: str
    ) -> EventView:
        path = f"{self._resource_path(stack, resource_name)}/events/{segment(event_id)}"
        return views.event(mapping(mapping(self.api.call("GET", path)).get("event")), stack)

    # The catalog

    def validate_template(
        self,
        ctx: RequestContext,
        request: StackRequest,
        *,
        show_nested: bool = False,
        ignore_errors: Sequence[str] = (),
    ) -> ValidationView:
        params: dict[str, Any] = {"show_nested": "True"} if show_nested else {}
        if ignore_errors:
            params["ignore_errors"] = ",".join(ignore_errors)
        answer = self.api.call("POST", "/validate", body=bodies.stack_body(request), params=params)
        return views.validation(mapping(answer))

    def list_resource_types(
        self,
        ctx: RequestContext,
        *,
        name: str | None = None,
        version: str | None = None,
        support_status: str | None = None,
    ) -> Sequence[ResourceTypeView]:
        asked = {"name": name, "version": version, "support_status": support_status}
        params = {key: value for key, value in asked.items() if value is not None}
        params["with_description"] = "True"
        found = self.api.call("GET", "/resource_types", params=params)
        return [
            ResourceTypeView(str(item["resource_type"]), item.get("description") or "")
            if isinstance(item, Mapping)
            else ResourceTypeView(str(item))
            for item in _listed(found, "resource_types")
        ]

    def show_resource_type(
        self, ctx: RequestContext, type_name: str, *, with_description: bool = False
    ) -> Mapping[str, Json]:
        params = {"with_description": "True"} if with_description else {}
        return mapping(
            self.api.call("GET", f"/resource_types/{segment(type_name)}", params=params)
        )

    def resource_type_template(
        self, ctx: RequestContext, type_name: str, template_type: str
    ) -> Mapping[str, Json]:
        path = f"/resource_types/{segment(type_name)}/template"
        return mapping(self.api.call("GET", path, params={"template_type": template_type}))

    def list_template_versions(self, ctx: RequestContext) -> Sequence[TemplateVersionView]:
        found = self.api.call("GET", "/template_versions")
        return [
            TemplateVersionView(
                str(item.get("version")), str(item.get("type")), tuple(item.get("aliases") or ())
            )
            for item in _listed(found, "template_versions")
        ]

    def list_template_functions(
        self, ctx: RequestContext, version: str, *, with_condition_func: bool = False
    ) -> Sequence[TemplateFunctionView]:
        params = {"with_condition_func": "True"} if with_condition_func else {}
        path = f"/template_versions/{segment(version)}/functions"
        found = self.api.call("GET", path, params=params)
        return [
            TemplateFunctionView(str(item.get("functions")), item.get("description") or "")
            for item in _listed(found, "template_functions")
        ]

    def engine_revision(self, ctx: RequestContext) -> str:
        engine = mapping(mapping(self.api.call("GET", "/build_info")).get("engine"))
        return str(engine.get("revision") or "")

    def list_services(self, ctx: RequestContext) -> Sequence[ServiceView]:
        return [
            ServiceView(
                id=str(item.get("id")),
                host=str(item.get("host")),
                binary=str(item.get("binary")),
                engine_id=str(item.get("engine_id")),
                topic=str(item.get("topic")),
                status=str(item.get("status")),
                report_interval=int(item.get("report_interval") or 0),
                created_at=views.timestamp(item.get("created_at")),
                updated_at=views.timestamp(item.get("updated_at")),
            )
            for item in _listed(self.api.call("GET", "/services"), "services")
        ]
