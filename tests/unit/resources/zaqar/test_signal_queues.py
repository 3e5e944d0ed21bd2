"""The pure parts of ZAQAR_SIGNAL handles: queue names, what a re-read adds, signal bodies."""

from __future__ import annotations

import re

import pytest

from thermik.clients.messaging import _next_marker
from thermik.errors import PluginError
from thermik.resources.signal_bodies import signals_of
from thermik.resources.zaqar.signal_queues import bodies, merged, signal_queue_name

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_a_valid_physical_name_is_the_queue_name() -> None:
    assert signal_queue_name("stack-wait_handle-abc123") == "stack-wait_handle-abc123"


@pytest.mark.parametrize("name", ["st.ack-h andle-x", "s" * 80 + "-handle-x", "ünï-h-x"])
def test_other_names_become_valid_distinct_queue_names(name: str) -> None:
    made = signal_queue_name(name)
    assert VALID.match(made), made
    assert made != signal_queue_name(name + "y")


def test_a_reread_adds_only_new_messages_in_order() -> None:
    read = [["m1", {"id": "a"}]]
    fresh = [("m1", {"id": "a"}), ("m2", {"id": "b"}), ("m3", None)]
    assert merged(read, fresh) == [["m1", {"id": "a"}], ["m2", {"id": "b"}], ["m3", None]]
    assert merged(read, []) == read


def test_message_bodies_are_signals_numbered_by_position() -> None:
    entries = [["m1", {"data": "here!", "id": "data_id"}], ["m2", None], ["m3", {"data": 1}]]
    assert signals_of(bodies(entries, "wait"), "wait") == {
        "data_id": {"data": "here!", "reason": "Signal data_id received", "status": "SUCCESS"},
        "2": {"data": None, "reason": "Signal 2 received", "status": "SUCCESS"},
        "3": {"data": 1, "reason": "Signal 3 received", "status": "SUCCESS"},
    }


def test_a_message_that_is_no_json_object_is_refused_by_its_text() -> None:
    with pytest.raises(PluginError, match=r"Failed to parse JSON data: \[1, 2\]"):
        bodies([["m1", [1, 2]]], "wait")


def test_an_unknown_status_is_refused() -> None:
    with pytest.raises(PluginError, match="Unknown status: DONE"):
        signals_of([{"status": "DONE"}], "wait")


def test_the_next_page_marker_comes_from_zaqars_next_link() -> None:
    page = {"links": [{"rel": "next", "href": "/v2/queues/q/messages?marker=7&limit=20"}]}
    assert _next_marker(page) == "7"
    assert _next_marker({"links": []}) is None
    assert _next_marker({}) is None
