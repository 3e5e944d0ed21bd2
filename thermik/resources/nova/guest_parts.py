"""The cloud-init parts a server configured by Heat boots with, besides the template's own.

They do on the guest what Heat's ``heat/cloudinit`` files do, written for Thermik:

- :func:`cloud_config`: cloud-config that creates ``instance_user`` (when one is asked for) and
  keeps the output of every boot script in ``/var/log/cloud-init-output.log``;
- :func:`boothook`: runs at every boot, before the other parts: the same user for cloud-init
  versions that do not create it themselves, and the ``/opt/aws/bin`` links of heat-cfntools
  when it is installed;
- :data:`PART_HANDLER`: a cloud-init part handler that writes every ``text/x-cfninitdata``
  part to ``/var/lib/heat-cfntools/<filename>`` (and ``/var/lib/cloud/data``), where
  heat-cfntools and os-collect-config's ``heat_local`` collector read the server's metadata
  (``cfn-init-data``) and, for HEAT_CFNTOOLS, the template's user_data (``cfn-userdata``);
- :data:`PROVISION_SCRIPT`: for HEAT_CFNTOOLS, runs that user_data and logs it to
  ``/var/log/heat-provision.log``, then marks ``provision-finished``.
"""

from __future__ import annotations

import re

#: The directory heat-cfntools and os-collect-config read boot data from.
CFN_DATA_DIR = "/var/lib/heat-cfntools"
#: The part carrying the server's metadata (with its ``os-collect-config`` section).
METADATA_PART = "cfn-init-data"
#: The part carrying the template's user_data with HEAT_CFNTOOLS.
USERDATA_PART = "cfn-userdata"

# A POSIX user name: what useradd and cloud-init's `user:` accept, and safe in a shell line.
_USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


def valid_user_name(name: str) -> bool:
    """Whether ``name`` can be created on the guest as is."""
    return bool(_USER_NAME.match(name))


def cloud_config(instance_user: str | None) -> str:
    """The cloud-config part."""
    lines = ["#cloud-config"]
    if instance_user:
        lines.append(f"user: {instance_user}")
    lines += [
        "",
        "# Each boot script's output also goes to a file, for troubleshooting",
        "output: {all: '| tee -a /var/log/cloud-init-output.log'}",
    ]
    return "\n".join(lines) + "\n"


def boothook(instance_user: str | None) -> str:
    """The cloud-boothook part (always succeeds: a failing boothook stops the boot)."""
    lines = ["#!/bin/sh"]
    if instance_user:
        # The name was checked with valid_user_name: no quoting is needed.
        lines += [
            f"if ! id {instance_user} >/dev/null 2>&1; then",
            f"    useradd -m {instance_user}",
            f"    printf '%s\\tALL=(ALL)\\tNOPASSWD: ALL\\n' {instance_user} >> /etc/sudoers",
            "fi",
        ]
    lines += [
        "if command -v cfn-create-aws-symlinks >/dev/null 2>&1; then",
        "    cfn-create-aws-symlinks",
        "fi",
        "exit 0",
    ]
    return "\n".join(lines) + "\n"


PART_HANDLER = f'''\
#part-handler
"""Writes the server's Heat boot data where heat-cfntools and os-collect-config read it."""

import os

DIRS = ("{CFN_DATA_DIR}", "/var/lib/cloud/data")


def list_types():
    return ["text/x-cfninitdata"]


def handle_part(data, ctype, filename, payload):
    if ctype == "__begin__":
        os.makedirs(DIRS[0], mode=0o700, exist_ok=True)
        return
    if ctype != "text/x-cfninitdata":
        return
    name = os.path.basename(filename or "")
    if not name:
        return
    for directory in DIRS:
        if os.path.isdir(directory):
            with open(os.path.join(directory, name), "w") as out:
                out.write(payload)
'''

PROVISION_SCRIPT = f"""\
#!/bin/sh
# Runs the template's user_data the way heat-cfntools expects it to have run.
data={CFN_DATA_DIR}
log=/var/log/heat-provision.log
chmod 700 "$data/{USERDATA_PART}"
echo "Provision began: $(date)" >> "$log"
"$data/{USERDATA_PART}" >> "$log" 2>&1
code=$?
echo "Provision done: $(date)" >> "$log"
if [ "$code" = 126 ]; then
    echo "user_data is empty or not executable" >> "$log"
    code=0
fi
if [ "$code" != 0 ]; then
    echo "Provision failed with exit code $code" >> "$log"
    exit "$code"
fi
touch "$data/provision-finished"
"""
