"""OS::Nova::HostAggregate on the real Nova, as the cloud's admin: an aggregate with the cloud's
compute host and metadata; renamed, its metadata changed and its host removed in place (every
property of Heat's type changes in place, so there is no replacement); check; a second
aggregate of the same name failing with Nova's answer; delete; an unknown host refused at
validation. The aggregate has no availability zone while the host is in it, so no other
test's servers move. Nothing is left behind."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.cloud.cloud import CloudEnv
from tests.functional.cloud.engine import CloudEngine
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  hosts: {type: comma_delimited_list}
  metadata: {type: json, default: {a: "1"}}
resources:
  aggregate:
    type: OS::Nova::HostAggregate
    properties:
      name: {get_param: name}
      hosts: {get_param: hosts}
      metadata: {get_param: metadata}
outputs:
  id: {value: {get_resource: aggregate}}
"""


@contextlib.contextmanager
def no_aggregates_left(admin: Any, prefix: str) -> Iterator[None]:
    """Whatever fails inside, no aggregate named ``prefix...`` stays (its hosts removed)."""
    try:
        yield
    finally:
        for aggregate in list(admin.compute.aggregates()):
            if (aggregate.name or "").startswith(prefix):
                for host in aggregate.hosts or []:
                    admin.compute.remove_host_from_aggregate(aggregate, host)
                admin.compute.delete_aggregate(aggregate, ignore_missing=True)


def mine(admin: Any, prefix: str) -> list[str]:
    return [a.name for a in admin.compute.aggregates() if (a.name or "").startswith(prefix)]


def test_an_aggregate_is_created_updated_checked_and_deleted(
    admin_engine: CloudEngine, cloud_env: CloudEnv
) -> None:
    admin = cloud_env.connect(admin=True)
    name = f"aggregate-{uuid.uuid4().hex[:8]}"
    host = next(iter(admin.compute.hypervisors())).name
    with no_aggregates_left(admin, name):
        lifecycle(admin_engine, admin, name, host)
        assert not mine(admin, name)


def lifecycle(engine: CloudEngine, admin: Any, name: str, host: str) -> None:
    stack = engine.create(name, TEMPLATE, name=name, hosts=host)
    view = engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    aggregate_id = engine.outputs(stack)["id"]
    aggregate = admin.compute.get_aggregate(aggregate_id)
    assert (aggregate.name, aggregate.hosts, aggregate.metadata) == (name, [host], {"a": "1"})

    engine.update(stack, name=f"{name}-b", hosts="", metadata={"b": "2"})
    view = engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    assert engine.outputs(stack)["id"] == aggregate_id, "updated in place"
    updated = admin.compute.get_aggregate(aggregate_id)
    assert (updated.name, updated.hosts, updated.metadata) == (f"{name}-b", [], {"b": "2"})

    assert engine.check(stack).status == "COMPLETE"

    twin = engine.create(f"{name}-twin", TEMPLATE, name=f"{name}-b", hosts="")
    view = engine.wait(twin)
    assert view.status == "FAILED", "Nova keeps aggregate names unique"
    assert "aggregate" in view.status_reason
    view = engine.delete(twin)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert admin.compute.get_aggregate(aggregate_id).name == f"{name}-b", "the first one stays"

    view = engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason


def test_an_unknown_host_is_refused_at_validation(admin_engine: CloudEngine) -> None:
    with pytest.raises(PropertyError) as raised:
        admin_engine.create(
            f"aggregate-{uuid.uuid4().hex[:8]}", TEMPLATE, name="x", hosts="no-such-host-x"
        )
    assert "properties.hosts[0]" in str(raised.value)
    assert "could be found" in str(raised.value)
