"""The Cinder types' own checks, before any cloud is asked (Heat's rules)."""

from __future__ import annotations

from typing import Any

import pytest

from thermik.errors import PropertyError
from thermik.resources.cinder.quota import Quota
from thermik.resources.cinder.volume import Volume
from thermik.resources.cinder.volume_type import EncryptedVolumeType, VolumeType
from thermik.resources.context import ValidationContext


def _volume(**props: Any) -> None:
    Volume().validate(Volume.check_properties(props), ValidationContext())


@pytest.mark.parametrize(
    "props",
    [
        {"size": 1},
        {"size": 1, "image": "cirros"},
        {"snapshot_id": "s"},
        {"source_volid": "v"},
        {"backup_id": "b"},
        {"backup_id": "b", "image": "cirros", "snapshot_id": "s"},
    ],
)
def test_a_volume_is_made_from_one_source_or_has_a_size(props: dict[str, Any]) -> None:
    _volume(**props)


@pytest.mark.parametrize(
    ("props", "where", "message"),
    [
        ({}, ("properties", "size"), 'If neither "backup_id" nor "size" is provided'),
        ({"image": "cirros"}, ("properties", "size"), "currently specified options: ['image']"),
        (
            {"snapshot_id": "s", "source_volid": "v"},
            ("properties", "size"),
            "one and only one of",
        ),
        (
            {"size": 1, "image": "cirros", "snapshot_id": "s"},
            ("properties", "image"),
            'If "size" is provided, only one of',
        ),
        (
            {"size": 1, "image": "cirros", "imageRef": "i"},
            ("properties", "image"),
            "Cannot define the following properties at the same time: image, imageRef",
        ),
    ],
)
def test_a_volume_with_sources_in_conflict_is_refused(
    props: dict[str, Any], where: tuple[str, ...], message: str
) -> None:
    with pytest.raises(PropertyError) as bad:
        _volume(**props)
    assert bad.value.path[:2] == where
    assert message in bad.value.message


def test_a_volume_cannot_be_smaller_than_one_gigabyte() -> None:
    with pytest.raises(PropertyError, match="size"):
        Volume.check_properties({"size": 0})
    assert Volume.check_properties({"size": 1})["metadata"] == {}


def test_volume_type_encryption_and_quota_schemas_are_heats() -> None:
    public = VolumeType.check_properties({"name": "t", "projects": ["p"]})
    with pytest.raises(PropertyError, match='"projects" if the volume type is public'):
        VolumeType().validate(public, ValidationContext())
    private = VolumeType.check_properties({"name": "t", "projects": ["p"], "is_public": False})
    VolumeType().validate(private, ValidationContext())
    encryption = EncryptedVolumeType.check_properties({"provider": "luks", "volume_type": "t"})
    assert encryption["control_location"] == "front-end"
    with pytest.raises(PropertyError, match="cipher"):
        EncryptedVolumeType.check_properties(
            {"provider": "luks", "volume_type": "t", "cipher": "rot13"}
        )
    with pytest.raises(PropertyError, match="At least one of the following properties"):
        Quota().validate(Quota.check_properties({"project": "p"}), ValidationContext())
    with pytest.raises(PropertyError, match="volumes"):
        Quota.check_properties({"project": "p", "volumes": -2})
    Quota().validate(Quota.check_properties({"project": "p", "volumes": -1}), ValidationContext())
