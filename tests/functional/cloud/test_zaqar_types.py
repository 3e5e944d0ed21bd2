"""OS::Zaqar::Queue, Subscription and SignedQueueURL on the real Zaqar, reached through the
loopback cloud's catalog with the demo user's own Keystone credentials
(tools/zaqar-keystone-up.sh): create, attributes, a signed URL that works without a token,
update in place and by replacement, check, delete leaving nothing, and Heat's validation."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import requests
from openstack.connection import Connection

from tests.functional.cloud.cloud import CloudEnv, wait_for_cloud_job
from tests.functional.cloud.engine import CloudEngine
from tests.functional.services import unavailable
from thermik.clients.messaging import (
    delete_queue,
    queue_metadata,
    queue_names,
    subscription,
    subscriptions,
    unsubscribe,
)
from thermik.errors import PropertyError

pytestmark = pytest.mark.functional

QUEUES = """
heat_template_version: 2018-08-31
parameters:
  prefix: {type: string}
  colour: {type: string, default: blue}
  subscriber: {type: string, default: "http://127.0.0.1:9/one"}
  ttl: {type: number, default: 3600}
  methods: {type: comma_delimited_list, default: [GET]}
resources:
  queue:
    type: OS::Zaqar::Queue
    properties:
      name: {list_join: ["-", [{get_param: prefix}, queue]]}
      metadata: {colour: {get_param: colour}}
  subscription:
    type: OS::Zaqar::Subscription
    properties:
      queue_name: {get_resource: queue}
      subscriber: {get_param: subscriber}
      ttl: {get_param: ttl}
      options: {hint: thermik}
  signed:
    type: OS::Zaqar::SignedQueueURL
    properties:
      queue: {get_resource: queue}
      methods: {get_param: methods}
      paths: [messages]
      ttl: 3600
outputs:
  queue: {value: {get_resource: queue}}
  href: {value: {get_attr: [queue, href]}}
  subscription: {value: {get_resource: subscription}}
  signature: {value: {get_attr: [signed, signature]}}
  expires: {value: {get_attr: [signed, expires]}}
  paths: {value: {get_attr: [signed, paths]}}
  methods: {value: {get_attr: [signed, methods]}}
  project: {value: {get_attr: [signed, project]}}
  query: {value: {get_attr: [signed, query_str]}}
"""


@pytest.fixture
def demo(cloud_env: CloudEnv) -> Iterator[Connection]:
    """The demo user's connection, once the catalog has a messaging service."""
    wait_for_cloud_job()
    conn = cloud_env.connect()
    try:
        if not conn.message.get_endpoint():
            raise LookupError("no endpoint")
    except Exception as error:  # no endpoint: keystoneauth's or openstacksdk's error
        conn.close()
        unavailable(f"the cloud's catalog has no messaging (tools/zaqar-keystone-up.sh): {error}")
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def prefix(demo: Connection) -> Iterator[str]:
    prefix = f"zq-{uuid.uuid4().hex[:8]}"
    yield prefix
    for name in [q for q in queue_names(demo) if q.startswith(prefix)]:
        delete_queue(demo, name)


def _read_with(url: str, out: dict[str, object]) -> int:
    """The status of a GET of the queue's messages with the signed URL's headers, no token."""
    headers = {
        "URL-Signature": str(out["signature"]),
        "URL-Expires": str(out["expires"]),
        "URL-Methods": ",".join(out["methods"]),  # type: ignore[arg-type]
        "URL-Paths": ",".join(out["paths"]),  # type: ignore[arg-type]
        "X-Project-ID": str(out["project"]),
        "Client-ID": str(uuid.uuid4()),
    }
    return requests.get(f"{url}/messages", headers=headers, timeout=10).status_code


def test_a_queue_its_subscription_and_signed_url_are_made_updated_checked_and_deleted(
    cloud_engine: CloudEngine, demo: Connection, prefix: str
) -> None:
    stack = cloud_engine.create(prefix, QUEUES, prefix=prefix)
    view = cloud_engine.wait(stack)
    assert view.status == "COMPLETE", view.status_reason
    out = cloud_engine.outputs(stack)
    queue = out["queue"]
    assert queue == f"{prefix}-queue"
    assert out["href"] == f"{str(demo.message.get_endpoint()).rstrip('/')}/queues/{queue}"
    assert queue_metadata(demo, queue)["colour"] == "blue"
    found = subscription(demo, queue, out["subscription"])
    assert (found["subscriber"], found["ttl"], found["options"]) == (
        "http://127.0.0.1:9/one",
        3600,
        {"hint": "thermik"},
    )
    assert out["project"] == demo.current_project_id
    assert out["methods"] == ["GET"]
    assert out["paths"] == [f"/v2/queues/{queue}/messages"]
    assert len(out["signature"]) == 64
    assert f"queue_name={queue}" in out["query"]
    assert f"signature={out['signature']}" in out["query"]
    assert _read_with(out["href"], out) in (200, 204), "the signed URL works without a token"
    assert cloud_engine.check(stack).status == "COMPLETE"

    # Metadata and the subscription change in place; new methods make a new signed URL.
    cloud_engine.update(
        stack,
        prefix=prefix,
        colour="red",
        subscriber="http://127.0.0.1:9/two",
        ttl=7200,
        methods="GET,POST",
    )
    view = cloud_engine.wait(stack)
    assert (view.action, view.status) == ("UPDATE", "COMPLETE"), view.status_reason
    now = cloud_engine.outputs(stack)
    assert (now["queue"], now["subscription"]) == (queue, out["subscription"])
    assert queue_metadata(demo, queue)["colour"] == "red"
    found = subscription(demo, queue, out["subscription"])
    assert (found["subscriber"], found["ttl"]) == ("http://127.0.0.1:9/two", 7200)
    assert now["methods"] == ["GET", "POST"]
    assert now["signature"] != out["signature"]

    # A subscription deleted behind the stack's back: check fails, naming it.
    unsubscribe(demo, queue, out["subscription"])
    view = cloud_engine.check(stack)
    assert (view.action, view.status) == ("CHECK", "FAILED")
    assert out["subscription"] in view.status_reason
    assert "http://" not in view.status_reason.replace("http://127.0.0.1:9", "")

    view = cloud_engine.delete(stack)
    assert (view.action, view.status) == ("DELETE", "COMPLETE"), view.status_reason
    assert queue not in queue_names(demo)
    assert subscriptions(demo, queue) == []


def test_heats_rules_fail_validation_naming_the_property(
    cloud_engine: CloudEngine, demo: Connection, prefix: str
) -> None:
    with pytest.raises(PropertyError, match="The subscriber type of must be one of") as error:
        cloud_engine.create(prefix, QUEUES, prefix=prefix, subscriber="ftp://127.0.0.1/x")
    assert "resources.subscription.properties.subscriber" in str(error.value)
    with pytest.raises(PropertyError, match="out of range") as error:
        cloud_engine.create(prefix, QUEUES, prefix=prefix, ttl=10)
    assert "resources.subscription.properties.ttl" in str(error.value)
    unknown = """
heat_template_version: 2018-08-31
resources:
  subscription:
    type: OS::Zaqar::Subscription
    properties: {queue_name: no-such-queue-here, subscriber: "http://127.0.0.1:9/x"}
"""
    with pytest.raises(PropertyError, match=r"The Queue \(no-such-queue-here\) could not be"):
        cloud_engine.create(prefix, unknown)
