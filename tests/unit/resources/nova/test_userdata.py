"""A server's user_data is what Heat gives it: parsed back part by part."""

from __future__ import annotations

import base64
import email
import email.message
import json
import uuid
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from thermik.errors import PropertyError
from thermik.resources.agent_config import occ_section, request_settings
from thermik.resources.nova import guest_parts
from thermik.resources.nova.userdata import (
    MAX_ENCODED_USER_DATA,
    build_user_data,
    encode_user_data,
    server_metadata,
    user_data_content,
)

SCRIPT = "#!/bin/sh\necho booted > /tmp/booted\n"
AGENT = occ_section(
    "request", request_settings("http://engine/md?sig=1"), default_collectors=("ec2",)
)
METADATA = server_metadata({"role": "web"}, AGENT)


def parts_of(text: str | None) -> list[email.message.Message]:
    assert text is not None
    message = email.message_from_string(text)
    assert message.get_content_type() == "multipart/mixed"
    return [p for p in message.walk() if not p.is_multipart()]


def described(parts: list[email.message.Message]) -> list[tuple[str, str | None]]:
    return [(p.get_content_type(), p.get_filename()) for p in parts]


def text(part: email.message.Message) -> str:
    raw = part.get_payload(decode=True)
    assert isinstance(raw, bytes)
    return raw.decode(part.get_content_charset() or "us-ascii")


def test_raw_is_passed_unchanged() -> None:
    assert build_user_data("RAW", SCRIPT, METADATA) == SCRIPT
    assert build_user_data("RAW", None) is None


def test_software_config_parts() -> None:
    parts = parts_of(build_user_data("SOFTWARE_CONFIG", SCRIPT, METADATA))
    assert described(parts) == [
        ("text/cloud-config", "cloud-config"),
        ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"),
        ("text/plain", None),
        ("text/x-cfninitdata", "cfn-init-data"),
    ]
    assert all(p["Content-Disposition"].startswith("attachment") for p in parts)
    assert "output: {all: '| tee -a /var/log/cloud-init-output.log'}" in text(parts[0])
    assert "user:" not in text(parts[0])
    assert text(parts[1]).rstrip().endswith("exit 0")
    assert text(parts[2]).startswith("#part-handler")
    assert text(parts[3]) == SCRIPT
    booted = json.loads(text(parts[4]))
    assert booted == {
        "role": "web",
        "os-collect-config": {
            "collectors": ["ec2", "request", "local"],
            "request": {"metadata_url": "http://engine/md?sig=1"},
        },
        "deployments": [],
    }


def test_the_same_parts_make_the_same_message() -> None:
    built = build_user_data("SOFTWARE_CONFIG", SCRIPT, METADATA)
    assert build_user_data("SOFTWARE_CONFIG", SCRIPT, METADATA) == built
    assert build_user_data("SOFTWARE_CONFIG", SCRIPT + "#\n", METADATA) != built


def test_software_config_without_user_data_has_no_empty_part() -> None:
    parts = parts_of(build_user_data("SOFTWARE_CONFIG", None, METADATA))
    assert [p.get_filename() for p in parts] == [
        "cloud-config",
        "boothook.sh",
        "part-handler.py",
        "cfn-init-data",
    ]


def test_multipart_user_data_contributes_each_of_its_parts() -> None:
    mime = MIMEMultipart()
    first = MIMEText("#cloud-config\npackages: [git]\n", "cloud-config")
    first.add_header("Content-Disposition", "attachment", filename="pkgs")
    mime.attach(first)
    second = MIMEText("#!/bin/sh\necho 'caf\u00e9'\n", "x-shellscript", "utf-8")
    second.add_header("Content-Disposition", "attachment", filename="greet.sh")
    mime.attach(second)
    parts = parts_of(build_user_data("SOFTWARE_CONFIG", mime.as_string(), METADATA))
    assert described(parts)[3:5] == [
        ("text/cloud-config", "pkgs"),
        ("text/x-shellscript", "greet.sh"),
    ]
    assert text(parts[3]) == "#cloud-config\npackages: [git]\n"
    assert text(parts[4]) == "#!/bin/sh\necho 'caf\u00e9'\n"
    assert parts[4].get_content_charset() == "utf-8"


def test_heat_cfntools_runs_the_user_data_without_a_cfn_api() -> None:
    parts = parts_of(build_user_data("HEAT_CFNTOOLS", SCRIPT, {"AWS::CloudFormation::Init": {}}))
    assert described(parts) == [
        ("text/cloud-config", "cloud-config"),
        ("text/cloud-boothook", "boothook.sh"),
        ("text/part-handler", "part-handler.py"),
        ("text/x-cfninitdata", "cfn-userdata"),
        ("text/x-shellscript", "provision.sh"),
        ("text/x-cfninitdata", "cfn-init-data"),
    ]
    assert text(parts[3]) == SCRIPT
    assert '"$data/cfn-userdata"' in text(parts[4])
    assert json.loads(text(parts[5])) == {"AWS::CloudFormation::Init": {}}


def test_instance_user_is_created_and_checked() -> None:
    parts = parts_of(build_user_data("SOFTWARE_CONFIG", None, METADATA, instance_user="ec2"))
    assert "user: ec2" in text(parts[0]).splitlines()
    assert "    useradd -m ec2" in text(parts[1]).splitlines()
    with pytest.raises(PropertyError, match="'root; rm' is not a valid user name"):
        build_user_data("SOFTWARE_CONFIG", None, METADATA, instance_user="root; rm")


def test_unknown_format_is_named() -> None:
    with pytest.raises(PropertyError) as info:
        build_user_data("YAML", SCRIPT)
    assert str(info.value) == (
        "user_data_format: must be one of HEAT_CFNTOOLS, RAW, SOFTWARE_CONFIG, not 'YAML'"
    )


def test_ignition_user_data_gets_the_metadata_as_files() -> None:
    ignition = json.dumps({"ignition": {"version": "2.2.0"}, "storage": {"files": []}})
    built = json.loads(build_user_data("SOFTWARE_CONFIG", ignition, METADATA) or "")
    files: list[dict[str, Any]] = built["storage"]["files"]
    assert [f["path"] for f in files] == [
        "/var/lib/heat-cfntools/cfn-init-data",
        "/var/lib/cloud/data/cfn-init-data",
    ]
    source: str = files[0]["contents"]["source"]
    assert json.loads(unquote(source.removeprefix("data:,"))) == METADATA
    assert files[0]["mode"] == 0o640
    with pytest.raises(PropertyError, match='"files" section must be a list'):
        build_user_data(
            "SOFTWARE_CONFIG",
            json.dumps({"ignition": {"version": "2"}, "storage": {"files": 1}}),
            METADATA,
        )


def test_encoding_is_base64_within_novas_limit() -> None:
    built = build_user_data("SOFTWARE_CONFIG", SCRIPT, METADATA)
    encoded = encode_user_data(built)
    assert encoded is not None
    assert base64.b64decode(encoded).decode() == built
    assert encode_user_data(None) is None
    with pytest.raises(PropertyError) as info:
        encode_user_data("x" * MAX_ENCODED_USER_DATA)
    assert str(info.value).startswith("user_data: is 87380 bytes once encoded")


def test_server_metadata_keeps_template_settings_and_refuses_deployments() -> None:
    metadata = server_metadata(
        {"os-collect-config": {"polling_interval": 5, "heat": {"user_id": "old"}}}, AGENT
    )
    assert metadata["os-collect-config"] == {
        **AGENT,
        "polling_interval": 5,
        "heat": {"user_id": None},
    }
    with pytest.raises(PropertyError) as info:
        server_metadata({"deployments": []}, AGENT)
    assert str(info.value).startswith("metadata: deployments key not allowed")


def test_user_data_may_name_a_software_config() -> None:
    config_id = str(uuid.uuid4())
    configs = {config_id: SCRIPT}
    assert user_data_content(config_id, "SOFTWARE_CONFIG", configs.get) == SCRIPT
    assert user_data_content(config_id, "RAW", configs.get) == SCRIPT
    assert user_data_content(config_id, "HEAT_CFNTOOLS", configs.get) == config_id
    other = str(uuid.uuid4())
    assert user_data_content(other, "RAW", configs.get) == other
    assert user_data_content("echo hi", "RAW", configs.get) == "echo hi"


def test_part_handler_writes_boot_data_where_the_agent_reads_it(tmp_path: Path) -> None:
    heat, cloud = tmp_path / "heat-cfntools", tmp_path / "cloud"
    cloud.mkdir()
    handler: dict[str, Any] = {}
    exec(compile(guest_parts.PART_HANDLER, "part-handler.py", "exec"), handler)
    handler["DIRS"] = (str(heat), str(cloud))
    assert handler["list_types"]() == ["text/x-cfninitdata"]
    handler["handle_part"](None, "__begin__", None, None)
    handler["handle_part"](None, "text/x-cfninitdata", "cfn-init-data", '{"a": 1}')
    handler["handle_part"](None, "text/plain", "other", "ignored")
    handler["handle_part"](None, "__end__", None, None)
    assert (heat / "cfn-init-data").read_text() == '{"a": 1}'
    assert (cloud / "cfn-init-data").read_text() == '{"a": 1}'
    assert sorted(p.name for p in heat.iterdir()) == ["cfn-init-data"]
