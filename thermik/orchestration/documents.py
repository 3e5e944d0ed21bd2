"""A stack's documents: its template, environment and files, and its abandon/export data.

The abandon document is Heat's: the stack's identity and state, its template, environment and
files, and each resource's physical id, type, state, metadata and private data, which
``adopt`` takes back to make a new stack of the same resources.
"""

from __future__ import annotations

from collections.abc import Mapping

from thermik.actors.runtime import ConvergeRequest
from thermik.api.boundary import Json, RequestContext, StackIdentity
from thermik.api.formatting import MASK
from thermik.engine.states import Action
from thermik.orchestration.base import Base
from thermik.orchestration.versions import current_resources
from thermik.persistence.crypto import SECRET_SECTIONS
from thermik.persistence.values import Stack


class DocumentOperations(Base):
    """Template, environment, files, abandon and export."""

    def stack_template(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        row = self.find_stack(ctx, stack)
        return dict(self.store.get_raw_template(row.raw_template_id).template)

    def stack_environment(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        row = self.find_stack(ctx, stack)
        raw = self.store.get_raw_template(row.raw_template_id)
        return masked_environment(raw.environment, raw.hidden_parameters)

    def stack_files(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, str]:
        row = self.find_stack(ctx, stack)
        return dict(self.store.get_raw_template(row.raw_template_id).files)

    def export_document(self, stack: Stack) -> dict[str, Json]:
        """Heat's abandon data of a stack."""
        raw = self.store.get_raw_template(stack.raw_template_id)
        resources = {
            name: {
                "name": name,
                "resource_id": resource.physical_resource_id,
                "type": resource.resource_type,
                "action": resource.action,
                "status": resource.status,
                "metadata": dict(resource.metadata),
                "resource_data": self.store.get_resource_data(resource.id),
            }
            for name, resource in current_resources(self.store, stack).items()
        }
        return {
            "name": stack.name,
            "id": stack.id,
            "action": stack.action,
            "status": stack.status,
            "template": dict(raw.template),
            "environment": dict(raw.environment),
            "files": dict(raw.files),
            "resources": resources,
            "project_id": stack.tenant,
            "stack_user_project_id": stack.stack_user_project_id,
            "tags": list(stack.tags),
        }

    def export_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        return self.export_document(self.find_stack(ctx, stack, live=True))

    def abandon_stack(self, ctx: RequestContext, stack: StackIdentity) -> Mapping[str, Json]:
        row = self.find_stack(ctx, stack, live=True)
        document = self.export_document(row)
        self.runtime.converge(ConvergeRequest(stack_id=row.id, operation=Action.ABANDON))
        return document


def masked_environment(environment: Mapping[str, Json], hidden: frozenset[str]) -> dict[str, Json]:
    """``environment`` with the values of ``hidden`` parameters masked, as stack show masks
    them (export and abandon keep them: adopt needs them)."""
    shown = dict(environment)
    for section in SECRET_SECTIONS:
        values = shown.get(section)
        if isinstance(values, Mapping):
            shown[section] = {
                name: MASK if name in hidden else value for name, value in values.items()
            }
    return shown
