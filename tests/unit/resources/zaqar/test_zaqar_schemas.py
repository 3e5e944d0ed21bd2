"""The Zaqar types' own checks and Heat's update rules, before any cloud is asked."""

from __future__ import annotations

import pytest

from thermik.errors import PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.schema import SupportLevel, update_allowed_names
from thermik.resources.zaqar.queue import Queue
from thermik.resources.zaqar.signed_url import SignedQueueURL
from thermik.resources.zaqar.subscription import FOREVER, Subscription


def test_a_subscriber_needs_a_type_zaqar_notifies() -> None:
    props = Subscription.check_properties({"queue_name": "q", "subscriber": "ftp://x"})
    with pytest.raises(PropertyError, match="must be one of: http, https, mailto") as error:
        Subscription().validate(props, ValidationContext())
    assert error.value.path == ("properties", "subscriber")
    for good in ("http://x", "mailto:a@example.org", "trust+https://x"):
        props = Subscription.check_properties({"queue_name": "q", "subscriber": good})
        Subscription().validate(props, ValidationContext())
    assert props["ttl"] == FOREVER
    with pytest.raises(PropertyError, match="out of range"):
        Subscription.check_properties({"queue_name": "q", "subscriber": "http://x", "ttl": 59})


def test_heats_update_rules_and_hidden_attribute() -> None:
    assert update_allowed_names(Queue.properties_schema) == {"metadata"}
    assert update_allowed_names(Subscription.properties_schema) == {
        "subscriber",
        "ttl",
        "options",
    }
    assert update_allowed_names(SignedQueueURL.properties_schema) == frozenset()
    assert Queue.attributes_schema["queue_id"].support_status.status is SupportLevel.HIDDEN
    assert SignedQueueURL.attributes_schema["signature"].secret
    with pytest.raises(PropertyError, match="length"):
        Queue.check_properties({"name": "q" * 65})
    with pytest.raises(PropertyError, match="allowed value"):
        SignedQueueURL.check_properties({"queue": "q", "methods": ["HEAD"]})
