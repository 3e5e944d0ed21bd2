"""The Glance and Nova types' own checks, before any cloud is asked (Heat's rules)."""

from __future__ import annotations

import pytest

from thermik.errors import PropertyError
from thermik.resources.context import ValidationContext
from thermik.resources.glance.web_image import WebImage
from thermik.resources.nova.keypair import KeyPair
from thermik.resources.nova.server_group import ServerGroup

IMAGE = {"location": "http://example.org/i.raw", "disk_format": "raw", "container_format": "bare"}


def test_an_ami_container_needs_the_same_disk_format() -> None:
    props = WebImage.check_properties({**IMAGE, "container_format": "ami"})
    with pytest.raises(PropertyError, match="Invalid mix of disk and container formats") as bad:
        WebImage().validate(props, ValidationContext())
    assert bad.value.path == ("properties", "disk_format")
    WebImage().validate(WebImage.check_properties(IMAGE), ValidationContext())


def test_image_members_need_a_shared_image() -> None:
    props = WebImage.check_properties({**IMAGE, "members": ["p1"]})
    with pytest.raises(PropertyError, match='requires "visibility" to be "shared"'):
        WebImage().validate(props, ValidationContext())
    shared = WebImage.check_properties({**IMAGE, "members": ["p1"], "visibility": "shared"})
    WebImage().validate(shared, ValidationContext())


def test_a_web_image_needs_its_location_and_formats() -> None:
    with pytest.raises(PropertyError, match="location"):
        WebImage.check_properties({"disk_format": "raw", "container_format": "bare"})
    with pytest.raises(PropertyError, match="disk_format"):
        WebImage.check_properties({**IMAGE, "disk_format": "floppy"})


def test_key_pair_and_server_group_schemas_are_heats() -> None:
    with pytest.raises(PropertyError, match="name"):
        KeyPair.check_properties({"name": ""})
    assert KeyPair.attributes_schema["private_key"].secret
    assert ServerGroup.check_properties({})["policies"] == ["anti-affinity"]
    with pytest.raises(PropertyError, match="policies"):
        ServerGroup.check_properties({"policies": ["spread"]})
