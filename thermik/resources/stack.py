"""``OS::Heat::Stack``: a child stack of this engine, or (with a remote ``context``) a stack on
another region's orchestration API (:mod:`thermik.resources.remote_stack`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import yaml

from thermik.errors import PluginError, PropertyError
from thermik.resources.constraints import Range
from thermik.resources.context import ResourceContext, ValidationContext
from thermik.resources.nested_services import NestedTemplate
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import CheckResult, NeedsReplacement, Operation, Progress, Props
from thermik.resources.remote_stack import (
    RemoteStack,
    RemoteStackInvalid,
    checked_by,
    is_remote,
    refuse_secret,
    stack_body,
)
from thermik.resources.remote_stack import needs_replacement as remote_replacement
from thermik.resources.schema import (
    AttributeSchema,
    AttributesSchema,
    AttributeType,
    PropertiesSchema,
    PropertySchema,
    SupportStatus,
    Type,
)


class Stack(NestedStackResource):
    """``OS::Heat::Stack``: a child stack of its ``template``.

    Without a ``context`` naming a region or credentials the child is a nested stack of this
    engine; with one it is a remote stack on that region's orchestration API
    (:mod:`thermik.resources.remote_stack`).
    """

    properties_schema: ClassVar[PropertiesSchema] = {
        "context": PropertySchema(
            Type.MAP,
            "Where the stack lives: with region_name it is made through that region's "
            "orchestration endpoint of the Keystone catalog (Thermik's or Heat's), acting for "
            "the stack's user; without, it is a nested stack of this engine.",
            schema={
                "region_name": PropertySchema(
                    Type.STRING, "Region to create the stack in (a change replaces it)."
                ),
                "credential_secret_id": PropertySchema(
                    Type.STRING,
                    "Barbican secret holding credentials for a remote cloud (not supported: "
                    "refused with its reason).",
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
                "ca_cert": PropertySchema(
                    Type.STRING,
                    "CA certificate (PEM) to verify the remote orchestration API with.",
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
                "insecure": PropertySchema(
                    Type.BOOLEAN,
                    "Do not verify the remote orchestration API's certificate.",
                    default=False,
                    update_allowed=True,
                    support_status=SupportStatus(version="12.0.0"),
                ),
            },
            update_allowed=True,
        ),
        "template": PropertySchema(
            Type.STRING, "The template of the stack.", required=True, update_allowed=True
        ),
        "timeout": PropertySchema(
            Type.INTEGER,
            "Minutes to wait for the stack.",
            update_allowed=True,
            # The child's timeout is stored in a 32-bit column.
            constraints=(Range(min=1, max=2**31 - 1),),
        ),
        "parameters": PropertySchema(
            Type.MAP, "Parameters for the stack.", default={}, update_allowed=True
        ),
    }
    attributes_schema: ClassVar[AttributesSchema] = {
        "stack_name": AttributeSchema("The stack's name.", type=AttributeType.STRING),
        "outputs": AttributeSchema("The stack's outputs.", type=AttributeType.MAP),
    }

    def __init__(self) -> None:
        self.remote = RemoteStack()

    def validate(self, props: Props, vctx: ValidationContext) -> None:
        """Refuse a template that is not a YAML or JSON mapping; have a remote stack's
        region check it (when the request has a cloud), as Heat does."""
        template = props.get("template")
        if not isinstance(template, str) or vctx.unresolved(template):
            return
        document = _template_document(template)
        if not is_remote(props) or vctx.unresolved(props.get("context")):
            return
        refuse_secret(props)
        nested = self._nested(props, document, vctx.files)
        if vctx.unresolved(nested.parameters):
            return
        error = checked_by(vctx.custom_constraints)((props, stack_body(nested)))
        if error is not None:
            raise RemoteStackInvalid(error)

    def nested(self, ctx: ResourceContext, props: Props) -> NestedTemplate:
        """The ``template`` property with the ``parameters``."""
        document = _template_document(str(props.get("template")))
        return self._nested(props, document, self.parent_files)

    @staticmethod
    def _nested(
        props: Props, document: dict[str, Any], files: Mapping[str, str]
    ) -> NestedTemplate:
        parameters = props.get("parameters") or {}
        return NestedTemplate(
            document,
            files,
            {key: value for key, value in parameters.items() if value is not None},
            props.get("timeout"),
        )

    # -- a remote stack's actions (a local one's are the nested stack's) -----------------------

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if is_remote(props):
            return self.remote.create(ctx, props, self.nested(ctx, props))
        return super().create(ctx, props)

    def check_create_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        if is_remote(props):
            return self.remote.settled(ctx, props, progress, "CREATE")
        return super().check_create_complete(ctx, props, progress)

    def needs_replacement(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> NeedsReplacement | None:
        return remote_replacement(new_props, old_props) or super().needs_replacement(
            ctx, new_props, old_props, changed
        )

    def update(
        self, ctx: ResourceContext, new_props: Props, old_props: Props, changed: frozenset[str]
    ) -> Progress | NeedsReplacement | None:
        if is_remote(new_props):
            return self.remote.update(ctx, new_props, self.nested(ctx, new_props))
        return super().update(ctx, new_props, old_props, changed)

    def check_update_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        if is_remote(props):
            return self.remote.settled(ctx, props, progress, "UPDATE")
        return super().check_update_complete(ctx, props, progress)

    def delete(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if is_remote(props):
            return self.remote.delete(ctx, props)
        return super().delete(ctx, props)

    def check_delete_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        if is_remote(props):
            return progress is None or self.remote.settled(ctx, props, progress, "DELETE")
        return super().check_delete_complete(ctx, props, progress)

    def suspend(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._action(ctx, props, "SUSPEND")

    def check_suspend_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._action_settled(ctx, props, progress, "SUSPEND")

    def resume(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._action(ctx, props, "RESUME")

    def check_resume_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._action_settled(ctx, props, progress, "RESUME")

    def check(self, ctx: ResourceContext, props: Props) -> Progress | None:
        return self._action(ctx, props, "CHECK")

    def check_check_complete(
        self, ctx: ResourceContext, props: Props, progress: Progress | None
    ) -> CheckResult:
        return self._action_settled(ctx, props, progress, "CHECK")

    def snapshot(self, ctx: ResourceContext, props: Props) -> Progress | None:
        if is_remote(props):
            raise PluginError(
                "snapshots of remote stacks are not supported", resource=ctx.resource_name
            )
        return super().snapshot(ctx, props)

    def cancel(self, ctx: ResourceContext, props: Props, operation: Operation) -> None:
        if not is_remote(props):  # a remote stack's operation runs its course, as in Heat
            super().cancel(ctx, props, operation)

    def _action(self, ctx: ResourceContext, props: Props, action: str) -> Progress | None:
        if is_remote(props):
            return self.remote.act(ctx, props, action)
        return super()._act(ctx, action)

    def _action_settled(
        self, ctx: ResourceContext, props: Props, progress: Progress | None, action: str
    ) -> CheckResult:
        if progress is None:
            return True
        if is_remote(props):
            return self.remote.settled(ctx, props, progress, action)
        return self.settled(ctx, action)

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """The child stack's id (``None`` until created)."""
        return ctx.physical_id

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """``stack_name`` and ``outputs`` of the child."""
        if is_remote(props):
            return self.remote.attribute(ctx, props, name)
        if name == "stack_name":
            state = self.child_state(ctx)
            return state.stack_name if state is not None else None
        if name == "outputs":
            return dict(self.child_outputs(ctx)) if ctx.physical_id is not None else None
        return None


class _TemplateLoader(yaml.SafeLoader):
    """PyYAML's safe loader keeping dates as strings (``heat_template_version: 2021-04-16``),
    as Heat parses templates."""


_TemplateLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _template_document(text: str) -> dict[str, Any]:
    """The ``template`` property as a document (the engine checks it like any template)."""
    try:
        document = json.loads(text)
    except ValueError:
        try:
            document = yaml.load(text, Loader=_TemplateLoader)
        except yaml.YAMLError as exc:
            raise PropertyError(
                f"invalid template: {exc}", path=("properties", "template")
            ) from None
    if not isinstance(document, dict):
        raise PropertyError(
            "the template must be a YAML or JSON mapping", path=("properties", "template")
        )
    return document
