"""Template resources: ``type: my_server.yaml``, or a registry alias to a template.

The resource is a child stack of its template: its properties are the template's parameters
and its attributes the template's outputs (schemas from
:func:`~thermik.resources.stack.template_resource_schema` and
:func:`~thermik.resources.stack.template_resource_attributes`). The engine binds one class per
template (:meth:`TemplateResource.for_template`); the unbound class serves a stored version
whose template is not at hand (deleting it needs only the child's id).

As in Heat, ``get_resource`` gives the child's ARN (or the child's ``OS::stack_id`` output when
it has one), ``get_attr: [r, OS::stack_id]`` the child's id, ``get_attr: [r, <output>]`` an
output and ``get_attr: [r, resource.<name>, <attr>]`` an attribute of a resource of the child.
"""

from __future__ import annotations

import types
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar
from urllib.parse import quote

from thermik.errors import AttributeValueError
from thermik.resources.constraints import CustomValidator
from thermik.resources.context import ResourceContext
from thermik.resources.nested_services import (
    NestedTemplate,
    child_stack_id,
    nested_services,
)
from thermik.resources.nested_stack import NestedStackResource
from thermik.resources.plugin import Props, select_path
from thermik.resources.properties import Unresolved, never_unresolved
from thermik.resources.schema import AttributeSchema, AttributesSchema
from thermik.resources.template_schemas import (
    template_resource_attributes,
    template_resource_schema,
)

#: The output (and attribute) naming the child stack, as in Heat.
STACK_ID_OUTPUT = "OS::stack_id"
#: Attributes of the child's resources: ``resource.<name>``.
_RESOURCE_PREFIX = "resource."


class TemplateResource(NestedStackResource):
    """A resource implemented by a template, as a child stack of the same engine."""

    #: The template document (bound classes only).
    template: ClassVar[Mapping[str, Any]] = types.MappingProxyType({})
    dynamic_attributes: ClassVar[bool] = True
    attributes_schema: ClassVar[AttributesSchema] = types.MappingProxyType(
        {STACK_ID_OUTPUT: AttributeSchema("The nested stack's id.")}
    )

    @classmethod
    def for_template(
        cls,
        template: Mapping[str, Any],
        files: Mapping[str, str],
        defaulted: Collection[str] = (),
    ) -> type[TemplateResource]:
        """The class of resources implemented by ``template`` in a stack with ``files`` whose
        environment's ``parameter_defaults`` name ``defaulted`` (not required properties).

        Raises:
            TemplateError: a parameter definition of the template is malformed.
        """
        parameters = _section(template, "parameters", "Parameters")
        outputs = _section(template, "outputs", "Outputs")
        attributes = {
            STACK_ID_OUTPUT: AttributeSchema("The nested stack's id."),
            **template_resource_attributes(outputs),
        }
        namespace = {
            "__module__": cls.__module__,
            "template": template,
            "parent_files": files,
            "properties_schema": types.MappingProxyType(
                template_resource_schema(parameters, defaulted)
            ),
            "attributes_schema": types.MappingProxyType(attributes),
            "dynamic_attributes": False,
        }
        return type(cls.__name__, (cls,), namespace)

    @classmethod
    def check_properties(
        cls,
        values: Props | None,
        *,
        unresolved: Unresolved = never_unresolved,
        custom_constraints: Mapping[str, CustomValidator] | None = None,
        path: Sequence[str | int] = (),
    ) -> dict[str, Any]:
        """Validate against the template's parameters (the unbound class takes anything)."""
        if not cls.template:
            return dict(values or {})
        return super().check_properties(
            values, unresolved=unresolved, custom_constraints=custom_constraints, path=path
        )

    @classmethod
    def has_attribute(cls, name: str) -> bool:
        """Outputs, ``OS::stack_id`` and ``resource.<name>`` attributes of the child."""
        return name.startswith(_RESOURCE_PREFIX) or super().has_attribute(name)

    def nested(self, ctx: ResourceContext, props: Props) -> NestedTemplate:
        """The template with the properties as its parameters."""
        parameters = {key: value for key, value in props.items() if value is not None}
        return NestedTemplate(self.template, self.parent_files, parameters)

    def reference_id(self, ctx: ResourceContext, props: Props) -> str | None:
        """The child's ``OS::stack_id`` output if it has one, else its ARN (the resource's
        name before the child exists)."""
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return ctx.resource_name
        outputs = self.child_outputs(ctx)
        if outputs.get(STACK_ID_OUTPUT) is not None:
            return str(outputs[STACK_ID_OUTPUT])
        state = self.child_state(ctx)
        name = state.stack_name if state is not None else ""
        return stack_arn(ctx.stack.tenant, name, stack_id)

    def attribute(
        self, ctx: ResourceContext, props: Props, name: str, path: Sequence[str | int] = ()
    ) -> Any:
        """An output, the child's id, or an attribute of one of the child's resources."""
        stack_id = child_stack_id(ctx)
        if stack_id is None:
            return None
        if name.startswith(_RESOURCE_PREFIX):
            return _inner_attribute(ctx, stack_id, name[len(_RESOURCE_PREFIX) :], path)
        return select_path(self.resolve_attribute(ctx, props, name), path)

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        """An output of the child (``OS::stack_id``: the child's id unless an output says)."""
        outputs = self.child_outputs(ctx)
        if name == STACK_ID_OUTPUT and outputs.get(name) is None:
            return child_stack_id(ctx)
        if name not in outputs:
            stack_id = child_stack_id(ctx)
            error = (
                None
                if stack_id is None
                else nested_services(ctx).output_error(ctx, stack_id, name)
            )
            if error is not None:
                raise AttributeValueError(f"Error in {ctx.resource_name} output {name}: {error}")
        return outputs.get(name)


def _inner_attribute(
    ctx: ResourceContext, stack_id: str, name: str, path: Sequence[str | int]
) -> Any:
    """``resource.<name>[.<attr>]`` of the child.

    ``resource.<name>.<attr>`` is one attribute. ``resource.<name>`` alone is the map of that
    resource's attributes when the engine can list them, so that ``get_attr: [r,
    resource.<name>, <attr>]`` selects from it (the engine stores attribute values whole, and
    paths are followed into them); otherwise, as in Heat, the resource's reference.
    """
    services = nested_services(ctx)
    inner, dot, attr = name.partition(".")
    if dot:
        return services.resource_attribute(ctx, stack_id, inner, [attr, *path])
    if path:
        return services.resource_attribute(ctx, stack_id, inner, path)
    every = getattr(services, "resource_attributes", None)
    if callable(every):
        return every(ctx, stack_id, inner)
    return services.resource_reference(ctx, stack_id, inner)


def stack_arn(tenant: str, name: str, stack_id: str) -> str:
    """Heat's ARN of a stack (what ``get_resource`` gives for a nested stack)."""
    path = f"stacks/{quote(name, '')}/{quote(stack_id, '')}"
    return f"arn:openstack:heat::{quote(tenant, '')}:{path}"


def _section(template: Mapping[str, Any], hot: str, cfn: str) -> Mapping[str, Any]:
    found = template.get(hot, template.get(cfn))
    return found if isinstance(found, Mapping) else {}
