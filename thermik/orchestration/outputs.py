"""Stack outputs, resolved with Heat's semantics from what the runtime stored.

``get_attr``/``get_resource`` read the stored attribute values and reference ids of the
current resource versions (:class:`thermik.actors.stored.StoredResolution`); a resource not
created yet gives ``None``, as in Heat. An output that cannot be resolved does not fail the
request: it carries its error (``output_error``) instead of a value.
"""

from __future__ import annotations

from collections.abc import Sequence

from thermik.actors.stored import StoredResolution
from thermik.api.boundary import OutputView, RequestContext, StackIdentity
from thermik.errors import NotFound, ThermikError
from thermik.orchestration.base import Base
from thermik.persistence.values import Stack
from thermik.template import OutputResult, StackDefinition

#: What an output without a description says, as in Heat.
NO_DESCRIPTION = "No description given"


def described(description: str | None) -> str:
    """An output's description as shown: Heat's words when the template gives none."""
    return NO_DESCRIPTION if description is None else description


def output_view(result: OutputResult) -> OutputView:
    """A resolved output: its value, or the error that prevented resolving it."""
    description = described(result.description)
    if result.error is not None:
        return OutputView(result.name, description, None, str(result.error))
    return OutputView(result.name, description, result.value)


class OutputOperations(Base):
    """Listing and resolving outputs."""

    def resolve_outputs(self, stack: Stack, definition: StackDefinition) -> tuple[OutputView, ...]:
        """Every output of ``stack`` resolved against its stored resources."""
        results = definition.resolve_outputs(StoredResolution(self.store, stack.id))
        return tuple(output_view(result) for result in results.values())

    def list_outputs(self, ctx: RequestContext, stack: StackIdentity) -> Sequence[OutputView]:
        row = self.find_stack(ctx, stack)
        definition = self.shown_definition(row)
        return [
            OutputView(name, described(output.description), resolved=False)
            for name, output in definition.outputs.items()
        ]

    def show_output(self, ctx: RequestContext, stack: StackIdentity, key: str) -> OutputView:
        row = self.find_stack(ctx, stack)
        definition = self.shown_definition(row)
        output = definition.outputs.get(key)
        if output is None:
            raise NotFound(f"Specified output key {key} not found.")
        description = described(output.description)
        try:
            value = definition.resolve_output(key, StoredResolution(self.store, row.id))
        except ThermikError as exc:
            return OutputView(key, description, None, str(exc))
        return OutputView(key, description, value)
