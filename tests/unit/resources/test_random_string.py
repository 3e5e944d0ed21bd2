"""OS::Heat::RandomString: classes, sequences, minimum counts, determinism, replacement."""

from __future__ import annotations

import random
import string

import pytest

from tests.unit.resources.harness import Context
from thermik.errors import PropertyError
from thermik.resources import ValidationContext, plan_update
from thermik.resources.random_string import RandomString, generate


def create(values: dict[str, object], seed: int = 42) -> tuple[Context, str]:
    ctx = Context(resource_name="pw", resource_type="OS::Heat::RandomString")
    ctx.random = random.Random(seed)
    props = RandomString.check_properties(values)
    plugin = RandomString()
    plugin.validate(props, ValidationContext())
    plugin.create(ctx, props)
    value = plugin.attribute(ctx, props, "value")
    assert isinstance(value, str)
    return ctx, value


def test_default_is_32_letters_and_digits_stored_redacted() -> None:
    ctx, value = create({})
    assert len(value) == 32
    assert set(value) <= set(string.ascii_letters + string.digits)
    assert ctx.data.redacted == {"value"}
    assert (ctx.physical_id or "").startswith("teststack-pw-")


def test_same_seed_same_string_other_seed_other_string() -> None:
    assert create({}, seed=1)[1] == create({}, seed=1)[1]
    assert create({}, seed=1)[1] != create({}, seed=2)[1]


def test_minimum_counts_of_classes_and_sequences_are_met() -> None:
    for seed in range(20):
        _, value = create(
            {
                "length": 8,
                "character_classes": [{"class": "digits", "min": 3}, {"class": "uppercase"}],
                "character_sequences": [{"sequence": "!@", "min": 2}],
            },
            seed=seed,
        )
        assert len(value) == 8
        assert sum(c in string.digits for c in value) >= 3
        assert sum(c in "!@" for c in value) >= 2
        assert any(c in string.ascii_uppercase for c in value)
        assert set(value) <= set(string.digits + string.ascii_uppercase + "!@")


@pytest.mark.parametrize(
    ("name", "alphabet"),
    [("hexdigits", string.digits + "ABCDEF"), ("octdigits", string.octdigits)],
)
def test_named_classes(name: str, alphabet: str) -> None:
    _, value = create({"length": 64, "character_classes": [{"class": name}]})
    assert set(value) <= set(alphabet)


def test_deprecated_sequence_property_still_works() -> None:
    _, value = create({"length": 40, "sequence": "octdigits"})
    assert set(value) <= set(string.octdigits)


def test_reference_id_is_the_value_once_created() -> None:
    plugin = RandomString()
    ctx = Context(resource_name="pw")
    assert plugin.reference_id(ctx, {}) == "pw"
    props = RandomString.check_properties({})
    plugin.create(ctx, props)
    assert plugin.reference_id(ctx, props) == ctx.data.get("value")


def test_minimums_must_fit_in_the_length() -> None:
    # The default lettersdigits class counts too: 2 + 1 > 2.
    props = RandomString.check_properties(
        {"length": 2, "character_sequences": [{"sequence": "ab", "min": 2}]}
    )
    with pytest.raises(PropertyError) as info:
        RandomString().validate(props, ValidationContext())
    assert str(info.value) == (
        "Length property cannot be smaller than combined character class and character "
        "sequence minimums"
    )


def test_minimum_check_waits_for_unresolved_values() -> None:
    marker = object()
    props = dict(RandomString.check_properties({"length": 1}))
    props["character_sequences"] = [{"sequence": "ab", "min": marker}]
    RandomString().validate(props, ValidationContext(unresolved=lambda v: v is marker))


def test_length_out_of_range_is_heats_message() -> None:
    with pytest.raises(PropertyError) as info:
        RandomString.check_properties({"length": 0}, path=("resources", "pw", "properties"))
    assert str(info.value) == (
        "resources.pw.properties.length: 0 is out of range (min: 1, max: 512)"
    )


def test_any_change_replaces_so_salt_regenerates() -> None:
    ctx, plugin = Context(), RandomString()
    old = RandomString.check_properties({"salt": "1"})
    new = RandomString.check_properties({"salt": "2"})
    assert plan_update(plugin, ctx, new, old).replacement is not None
    assert plan_update(plugin, ctx, old, old).replacement is None


def test_generate_uses_every_pool_member_set() -> None:
    value = generate(random.Random(0), 5, [("a", 5)])
    assert value == "aaaaa"
