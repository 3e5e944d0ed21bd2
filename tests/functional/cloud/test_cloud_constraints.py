"""Custom constraints checked against the real cloud: an unknown image, flavor or key pair
fails validation naming the property and the cloud's answer, and one name is looked up once
per request however many resources name it (and once more per traversal that resolves it)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CTX, CloudEngine
from thermik.api.boundary import StackRequest
from thermik.errors import PropertyError
from thermik.resources.cloud_access import find
from thermik.resources.constraints import CustomConstraint
from thermik.resources.context import ResourceContext
from thermik.resources.plugin import Progress, Props, ResourcePlugin
from thermik.resources.schema import AttributeSchema, PropertiesSchema, PropertySchema, Type
from thermik.template.loader import load_document

pytestmark = pytest.mark.functional

TYPE = "Thermik::Test::NamesCloudThings"
KINDS = {"flavor": "nova.flavor", "image": "glance.image", "key_name": "nova.keypair"}


class NamesCloudThings(ResourcePlugin):
    """A resource naming a flavor, an image and a key pair, as a server does; its create
    resolves them to ids (the ``ids`` attribute)."""

    properties_schema: ClassVar[PropertiesSchema] = {
        name: PropertySchema(Type.STRING, constraints=(CustomConstraint(kind),))
        for name, kind in KINDS.items()
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {"ids": AttributeSchema()}

    def create(self, ctx: ResourceContext, props: Props) -> Progress | None:
        for name, kind in KINDS.items():
            if props.get(name):
                ctx.data.set(name, find(ctx, kind, props[name]))
        ctx.set_physical_id(ctx.resource_name)
        return None

    def resolve_attribute(self, ctx: ResourceContext, props: Props, name: str) -> Any:
        return dict(ctx.data.as_dict()) if name == "ids" else None


@pytest.fixture
def engine(cloud_env: CloudEnv, tmp_path: Path) -> Iterator[CloudEngine]:
    engine = CloudEngine(tmp_path / "state", cloud_env)
    engine.engine.registry.register(TYPE, NamesCloudThings)
    try:
        yield engine
    finally:
        engine.close()


@pytest.fixture
def keypair(cloud_env: CloudEnv) -> Iterator[str]:
    conn = cloud_env.connect()
    name = f"glance-constraint-{uuid.uuid4().hex[:6]}"
    conn.compute.create_keypair(name=name)
    try:
        yield name
    finally:
        conn.compute.delete_keypair(name)


def template(count: int, **props: str) -> str:
    """``count`` resources with ``props``, the last one's ``ids`` as output ``ids``."""
    body = ", ".join(f"{k}: {v}" for k, v in props.items())
    resources = "\n".join(
        f"  r{i}: {{type: {TYPE}, properties: {{{body}}}}}" for i in range(count)
    )
    last = f"r{count - 1}"
    return (
        f"heat_template_version: 2018-08-31\nresources:\n{resources}\n"
        f"outputs:\n  ids: {{value: {{get_attr: [{last}, ids]}}}}\n"
    )


@pytest.mark.parametrize(
    ("prop", "answer"),
    [
        ("image", "The Image (no-such-image) could not be found."),
        ("flavor", "The Flavor (no-such-flavor) could not be found."),
        ("key_name", "The Key (no-such-key_name) could not be found."),
    ],
)
def test_an_unknown_name_fails_validation_with_the_clouds_answer(
    engine: CloudEngine, cloud_env: CloudEnv, keypair: str, prop: str, answer: str
) -> None:
    good = {"image": cloud_env.image, "flavor": cloud_env.flavor, "key_name": keypair}
    good[prop] = f"no-such-{prop}"
    with pytest.raises(PropertyError) as create:
        engine.create(f"glance-bad-{uuid.uuid4().hex[:6]}", template(1, **good))
    with pytest.raises(PropertyError) as validate:
        engine.service.validate_template(
            CTX, StackRequest(template=load_document(template(1, **good)))
        )
    for error in (create.value, validate.value):
        assert f"resources.r0.properties.{prop}" in str(error)
        assert answer in str(error)


def test_fifty_resources_naming_one_flavor_cost_one_look_up(
    engine: CloudEngine, cloud_env: CloudEnv, keypair: str
) -> None:
    names = {"image": cloud_env.image, "flavor": cloud_env.flavor, "key_name": keypair}
    counter = engine.engine.cloud.pool.counter if engine.engine.cloud else None
    assert counter is not None
    engine.wait(engine.create("glance-warm", template(1, **names)))  # token, version documents
    fifty = template(50, **names)
    before = counter.snapshot()
    engine.service.validate_template(CTX, StackRequest(template=load_document(fifty)))
    # One flavor list and one key pair GET (compute), one image list (image), nothing else.
    assert _delta(before, counter.snapshot()) == {("compute", "GET"): 2, ("image", "GET"): 1}

    before = counter.snapshot()
    stack = engine.create(f"glance-fifty-{uuid.uuid4().hex[:6]}", fifty)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    # The create's validation, then its traversal (for its 50 resources), each once.
    assert _delta(before, counter.snapshot()) == {("compute", "GET"): 4, ("image", "GET"): 2}
    ids = engine.outputs(stack)["ids"]
    conn = cloud_env.connect()
    assert ids["flavor"] == conn.compute.find_flavor(cloud_env.flavor, ignore_missing=False).id
    assert ids["image"] == conn.image.find_image(cloud_env.image, ignore_missing=False).id
    assert ids["key_name"] == keypair


def _delta(
    before: Mapping[tuple[str, str], int], after: Mapping[tuple[str, str], int]
) -> dict[tuple[str, str], int]:
    return {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
