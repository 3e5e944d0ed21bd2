"""create_once: an interrupted create finds what its first run made; a plain one asks no
look-up. Without a cloud, a cloud type fails naming what to configure."""

from __future__ import annotations

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import CloudNoAnswer, CloudUnavailable, PluginError
from thermik.resources.cloud_access import (
    ANSWER_GRACE,
    ANSWER_LOST_KEY,
    CREATE_STARTED_KEY,
    cloud_access,
    create_once,
    creation_tag,
)


def test_a_first_create_records_its_tag_and_looks_nothing_up() -> None:
    ctx = Context(version_id=7)
    looked: list[str] = []
    made = create_once(ctx, lambda tag: looked.append(tag) or None, lambda tag: f"id-{tag}")
    assert made == f"id-{creation_tag(ctx)}"
    assert ctx.data.get(CREATE_STARTED_KEY) == creation_tag(ctx)
    assert looked == []


def test_a_resumed_create_takes_what_the_first_run_made() -> None:
    ctx = Context(version_id=7)
    ctx.data.set(CREATE_STARTED_KEY, creation_tag(ctx))
    made = create_once(ctx, lambda tag: "existing", lambda tag: pytest.fail("created again"))
    assert made == "existing"


def test_a_resumed_create_that_finds_nothing_creates() -> None:
    ctx = Context(version_id=7)
    ctx.data.set(CREATE_STARTED_KEY, creation_tag(ctx))
    assert create_once(ctx, lambda tag: None, lambda tag: "new") == "new"


def test_tags_are_unique_per_version_and_fit_nova() -> None:
    a, b = Context(version_id=1), Context(version_id=2)
    assert creation_tag(a) != creation_tag(b)
    tag = creation_tag(Context(stack=Context().stack, version_id=10**12))
    assert len(tag.replace("stack-id", "0" * 36)) <= 60
    assert "/" not in tag
    assert "," not in tag


def test_without_a_cloud_the_error_says_how_to_get_one() -> None:
    ctx = Context(resource_name="net", resource_type="OS::Neutron::Net")
    with pytest.raises(PluginError, match="--os-cloud") as raised:
        cloud_access(ctx)
    assert raised.value.resource == "net"


def lost(tag: str) -> str:
    raise CloudNoAnswer("the compute service did not answer in time", service="compute")


def test_a_create_whose_answer_was_lost_waits_for_it_rather_than_asking_again() -> None:
    ctx = Context(version_id=7)
    with pytest.raises(CloudNoAnswer):
        create_once(ctx, lambda tag: pytest.fail("looked up first"), lost)
    assert ctx.data.get(ANSWER_LOST_KEY) is not None
    ctx.clock.advance(ANSWER_GRACE / 2)
    looked: list[str] = []
    with pytest.raises(CloudUnavailable, match="has not answered its create request"):
        create_once(ctx, lambda tag: looked.append(tag) or None, lambda tag: pytest.fail("again"))
    assert looked == [creation_tag(ctx)]
    # The cloud finished the first request meanwhile: its resource is taken.
    assert create_once(ctx, lambda tag: "made-late", lambda tag: pytest.fail("again")) == (
        "made-late"
    )


def test_after_the_grace_a_create_whose_answer_was_lost_asks_again() -> None:
    ctx = Context(version_id=7)
    with pytest.raises(CloudNoAnswer):
        create_once(ctx, lambda tag: None, lost)
    ctx.clock.advance(ANSWER_GRACE + 1)
    assert create_once(ctx, lambda tag: None, lambda tag: "second") == "second"
    assert ctx.data.get(ANSWER_LOST_KEY) is None


def test_a_create_the_cloud_refused_with_an_answer_is_asked_again_at_once() -> None:
    ctx = Context(version_id=7)

    def refused(tag: str) -> str:
        raise CloudUnavailable("the compute service answered HTTP 503", status=503)

    with pytest.raises(CloudUnavailable):
        create_once(ctx, lambda tag: None, refused)
    assert ctx.data.get(ANSWER_LOST_KEY) is None
    assert create_once(ctx, lambda tag: None, lambda tag: "new") == "new"
