"""What an ``OS::Nova::Server`` boots with: its user_data and its agent's metadata (pure).

:func:`build_user_data` makes the user_data text for each ``user_data_format``, as Heat's Nova
client plugin does (``build_userdata``):

- ``RAW``: the template's user_data, unchanged;
- ``SOFTWARE_CONFIG``: a cloud-init multipart MIME message of a cloud-config part, a boothook,
  a part handler, the template's user_data (each of its parts, when it is itself multipart, as
  ``OS::Heat::MultipartMime`` makes it) and ``cfn-init-data``: the server's metadata, whose
  ``os-collect-config`` section configures the agent (the part handler writes it where
  os-collect-config's ``heat_local`` collector reads it at first boot). user_data in CoreOS
  Ignition JSON gets the metadata as two Ignition files instead;
- ``HEAT_CFNTOOLS`` (Heat's default): the same message with the template's user_data as
  ``cfn-userdata`` and a script that runs it, so a template's boot script runs as under Heat.
  Heat also gives heat-cfntools the URL and a boto configuration of its CloudFormation API;
  Thermik has no such API, so those two parts are left out: ``cfn-init`` and ``cfn-hup`` on
  the guest find no metadata server, everything else behaves as under Heat.

:func:`encode_user_data` turns the text into what Nova takes (base64, at most 65535 bytes
encoded). :func:`server_metadata` is the resource metadata of a ``SOFTWARE_CONFIG`` server
(its template metadata with the ``os-collect-config`` section and the ``deployments`` list),
which goes into ``cfn-init-data``.

The guest-side parts are Thermik's own (:mod:`thermik.resources.nova.guest_parts`).
"""

from __future__ import annotations

import base64
import email
import email.message
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any, NamedTuple
from urllib.parse import quote

from thermik.errors import PropertyError
from thermik.resources.agent_config import OCC_KEY, overriding
from thermik.resources.nova import guest_parts

RAW, SOFTWARE_CONFIG, HEAT_CFNTOOLS = "RAW", "SOFTWARE_CONFIG", "HEAT_CFNTOOLS"
USER_DATA_FORMATS = (HEAT_CFNTOOLS, RAW, SOFTWARE_CONFIG)
DEPLOYMENTS_KEY = "deployments"
#: Nova's limit on the base64-encoded user_data (its database column).
MAX_ENCODED_USER_DATA = 65535
#: Where the metadata goes on an Ignition guest.
IGNITION_METADATA_PATHS = (
    f"{guest_parts.CFN_DATA_DIR}/{guest_parts.METADATA_PART}",
    f"/var/lib/cloud/data/{guest_parts.METADATA_PART}",
)


class Part(NamedTuple):
    """One part of the multipart message: its text, file name and MIME subtype of ``text/``."""

    content: str
    filename: str | None
    subtype: str


def build_user_data(
    user_data_format: str,
    user_data: str | None,
    metadata: Mapping[str, Any] | None = None,
    *,
    instance_user: str | None = None,
) -> str | None:
    """The user_data text a server boots with (None: no user_data).

    ``metadata`` is the server's resource metadata (:func:`server_metadata` for
    ``SOFTWARE_CONFIG``); ``instance_user`` a user to create on the guest.

    Raises:
        PropertyError: an unknown format, a bad ``instance_user``, or Ignition user_data
            whose ``storage`` or ``storage.files`` is not what Ignition takes.
    """
    if user_data_format == RAW:
        return user_data
    if user_data_format not in USER_DATA_FORMATS:
        raise PropertyError(
            f"must be one of {', '.join(USER_DATA_FORMATS)}, not {user_data_format!r}",
            path=("user_data_format",),
        )
    if instance_user is not None and not guest_parts.valid_user_name(instance_user):
        raise PropertyError(f"{instance_user!r} is not a valid user name", path=("admin_user",))
    if user_data_format == SOFTWARE_CONFIG:
        ignition = _ignition(user_data)
        if ignition is not None:
            return _with_ignition_metadata(ignition, metadata)
    parts = [
        Part(guest_parts.cloud_config(instance_user), "cloud-config", "cloud-config"),
        Part(guest_parts.boothook(instance_user), "boothook.sh", "cloud-boothook"),
        Part(guest_parts.PART_HANDLER, "part-handler.py", "part-handler"),
    ]
    if user_data_format == HEAT_CFNTOOLS:
        parts.append(Part(user_data or "", guest_parts.USERDATA_PART, "x-cfninitdata"))
        parts.append(Part(guest_parts.PROVISION_SCRIPT, "provision.sh", "x-shellscript"))
    elif user_data:
        parts.extend(user_parts(user_data))
    if metadata:
        parts.append(Part(json.dumps(metadata), guest_parts.METADATA_PART, "x-cfninitdata"))
    return multipart(parts)


def user_parts(user_data: str) -> list[Part]:
    """The template's user_data as parts: each part of a multipart message (decoded), or the
    whole text as one ``text/plain`` part, whose type cloud-init tells by its first line."""
    message = email.message_from_string(user_data)
    if not message.is_multipart():
        return [Part(user_data, None, "plain")]
    found = []
    for part in message.walk():
        if part.is_multipart():
            continue
        found.append(Part(_text_of(part), part.get_filename(), part.get_content_subtype()))
    return found


def _text_of(part: email.message.Message) -> str:
    raw = part.get_payload(decode=True)
    if not isinstance(raw, bytes):
        return str(part.get_payload())
    return raw.decode(part.get_content_charset() or "utf-8", errors="replace")


def multipart(parts: list[Part]) -> str:
    """The multipart MIME message of ``parts``, each an attachment with its file name.

    The boundary derives from the content, so the same parts always make the same message.
    """
    digest = hashlib.sha256(json.dumps([list(p) for p in parts]).encode()).hexdigest()
    message = MIMEMultipart(boundary=f"==============={digest[:32]}==")
    for part in parts:
        charset = "us-ascii" if part.content.isascii() else "utf-8"
        sub = MIMEText(part.content, _subtype=part.subtype, _charset=charset)
        if part.filename:
            sub.add_header("Content-Disposition", "attachment", filename=part.filename)
        else:
            sub.add_header("Content-Disposition", "attachment")
        message.attach(sub)
    return message.as_string()


def _ignition(user_data: str | None) -> dict[str, Any] | None:
    if not user_data:
        return None
    try:
        payload = json.loads(user_data)
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    marker = payload.get("ignition")
    if isinstance(marker, Mapping) and marker.get("version"):
        return payload
    return None


def _with_ignition_metadata(payload: dict[str, Any], metadata: Mapping[str, Any] | None) -> str:
    if not metadata:
        return json.dumps(payload)
    storage = payload.setdefault("storage", {})
    if not isinstance(storage, dict):
        raise PropertyError('the Ignition "storage" section must be a map', path=("user_data",))
    files = storage.setdefault("files", [])
    if not isinstance(files, list):
        raise PropertyError('the Ignition "files" section must be a list', path=("user_data",))
    source = "data:," + quote(json.dumps(metadata))
    for path in IGNITION_METADATA_PATHS:
        files.append(
            {
                "filesystem": "root",
                "path": path,
                "user": {"name": "root"},
                "group": {"name": "root"},
                "mode": 0o640,
                "contents": {"source": source, "verification": {}},
            }
        )
    return json.dumps(payload)


def encode_user_data(text: str | None) -> str | None:
    """``text`` as Nova takes it: base64 of its UTF-8 bytes.

    Raises:
        PropertyError: the encoded user_data is longer than Nova stores.
    """
    if text is None:
        return None
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    if len(encoded) > MAX_ENCODED_USER_DATA:
        raise PropertyError(
            f"is {len(encoded)} bytes once encoded (with what Thermik adds for the server's "
            f"agent); Nova takes at most {MAX_ENCODED_USER_DATA}",
            path=("user_data",),
        )
    return encoded


def server_metadata(
    template_metadata: Mapping[str, Any] | None, agent_config: Mapping[str, Any]
) -> dict[str, Any]:
    """The resource metadata of a ``SOFTWARE_CONFIG`` server at boot: its template metadata,
    the agent's ``os-collect-config`` section and an empty ``deployments`` list.

    Raises:
        PropertyError: the template metadata has a ``deployments`` key (Heat refuses it too:
            the engine owns that list).
    """
    metadata = dict(template_metadata or {})
    if DEPLOYMENTS_KEY in metadata:
        raise PropertyError(
            "deployments key not allowed in resource metadata with user_data_format of "
            "SOFTWARE_CONFIG",
            path=("metadata",),
        )
    metadata[OCC_KEY] = overriding(metadata.get(OCC_KEY), agent_config)
    metadata[DEPLOYMENTS_KEY] = []
    return metadata


def user_data_content(
    user_data: str | None, user_data_format: str, find_config: Callable[[str], str | None]
) -> str | None:
    """The user_data to build from: with ``RAW`` or ``SOFTWARE_CONFIG``, a value that is a
    software config's id stands for that config's text (``find_config`` returns None for an
    id it does not know: the value is then used as is), as in Heat."""
    if user_data and user_data_format in (RAW, SOFTWARE_CONFIG) and _uuid_like(user_data):
        found = find_config(user_data)
        if found is not None:
            return found
    return user_data


def _uuid_like(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False
