"""The child templates of ResourceGroup and ResourceChain, built from their properties."""

from __future__ import annotations

from typing import Any

from thermik.resources.group_templates import (
    CHILD_TEMPLATE_VERSION,
    chain_template,
    group_template,
    member_definition,
    member_names,
    resolve_removals,
    substitute_index,
    updated_removals,
)

SERVER_DEF: dict[str, Any] = {
    "type": "OS::Heat::TestResource",
    "properties": {
        "value": "node-%index%",
        "nested": {"names": ["a-%index%", 7, {"k%index%": "%index%%index%"}]},
        "unset": None,
    },
    "metadata": {"role": "r-%index%"},
}


def test_member_names_are_the_lowest_indices_never_removed() -> None:
    assert member_names(3, ()) == ["0", "1", "2"]
    assert member_names(3, {"1"}) == ["0", "2", "3"]
    assert member_names(0, ()) == []
    assert member_names(2, {"0", "1", "5"}) == ["2", "3"]


def test_scaling_keeps_existing_names_adds_above_and_removes_from_the_top() -> None:
    removed = {"1"}
    five = member_names(5, removed)
    assert five == ["0", "2", "3", "4", "5"]
    assert member_names(6, removed)[:5] == five
    assert member_names(2, removed) == ["0", "2"]


def test_index_is_substituted_in_every_string_value_but_not_in_keys() -> None:
    value = {"a": "x%index%", "b": ["%index%", 1, None], "k%index%": True}
    assert substitute_index(value, "%index%", "4") == {
        "a": "x4",
        "b": ["4", 1, None],
        "k%index%": True,
    }
    assert substitute_index("$i-$i", "$i", "10") == "10-10"


def test_member_definition_drops_null_properties_and_keeps_metadata_verbatim() -> None:
    assert member_definition(SERVER_DEF, "2") == {
        "type": "OS::Heat::TestResource",
        "properties": {
            "value": "node-2",
            "nested": {"names": ["a-2", 7, {"k%index%": "22"}]},
        },
        "metadata": {"role": "r-%index%"},
    }
    assert member_definition({"type": "T", "properties": None, "metadata": None}, "0") == {
        "type": "T"
    }


def test_group_template_with_a_custom_index_var() -> None:
    definition = {"type": "OS::Heat::RandomString", "properties": {"salt": "__n__"}}
    template = group_template(definition, ["0", "3"], "__n__")
    assert template == {
        "heat_template_version": CHILD_TEMPLATE_VERSION,
        "resources": {
            "0": {"type": "OS::Heat::RandomString", "properties": {"salt": "0"}},
            "3": {"type": "OS::Heat::RandomString", "properties": {"salt": "3"}},
        },
    }


def test_the_source_definition_is_never_changed() -> None:
    definition = {"type": "T", "properties": {"v": ["%index%"]}}
    group_template(definition, ["0", "1"])
    assert definition == {"type": "T", "properties": {"v": ["%index%"]}}


def test_before_creation_every_removal_entry_is_a_name() -> None:
    policies = [{"resource_list": ["1", 2]}, {"resource_list": ["not-there"]}]
    assert resolve_removals(policies, known=(), created=False) == {"1", "2", "not-there"}


def test_after_creation_entries_are_names_or_reference_ids_of_members() -> None:
    refs = {"0": "id-a", "1": "id-b", "2": "id-c"}
    policies = [{"resource_list": ["id-c", "0", "unknown", 9]}]
    found = resolve_removals(policies, known=(), created=True, members=list(refs), refs=refs)
    assert found == {"0", "2"}


def test_a_known_removed_name_stays_a_name_even_when_no_member_has_it() -> None:
    policies = [{"resource_list": ["4"]}]
    assert resolve_removals(policies, known={"4"}, created=True, members=["0"]) == {"4"}


def test_append_mode_keeps_earlier_removals_update_mode_replaces_them() -> None:
    members = ["0", "2", "3"]
    policies = [{"resource_list": ["3"]}]
    appended = updated_removals(policies, "append", ["1"], created=True, members=members)
    assert appended == ["1", "3"]
    replaced = updated_removals(policies, "update", ["1"], created=True, members=members)
    assert replaced == ["3"]
    assert updated_removals([], "update", ["1"], created=True, members=members) == []


def test_sequential_chain_members_depend_on_the_previous_one() -> None:
    types = ["OS::Heat::TestResource", "OS::Heat::RandomString", "OS::Heat::None"]
    template = chain_template(types, {"value": "v"}, concurrent=False)
    assert template["resources"] == {
        "0": {"type": types[0], "properties": {"value": "v"}},
        "1": {"type": types[1], "properties": {"value": "v"}, "depends_on": ["0"]},
        "2": {"type": types[2], "properties": {"value": "v"}, "depends_on": ["1"]},
    }
    assert template["heat_template_version"] == CHILD_TEMPLATE_VERSION


def test_concurrent_chain_members_are_independent_and_may_have_no_properties() -> None:
    template = chain_template(["A", "B"], None, concurrent=True)
    assert template["resources"] == {"0": {"type": "A"}, "1": {"type": "B"}}
