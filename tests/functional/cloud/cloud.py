"""A handle on the real OpenStack cloud that tools/cloud-up.sh runs on loopback.

Its settings come from ``.state/cloud.env`` (or the same ``THERMIK_CLOUD_*`` variables, which
tools/run-tests.sh exports): a ``clouds.yaml`` and the names of its two clouds, one for the demo
user (a plain member of project demo, as the engine's users are) and one for admin.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import openstack.config
import openstack.connection

from tests.functional.services import service_settings, state_dir, unavailable

KEYS = (
    "THERMIK_CLOUD_CONFIG",
    "THERMIK_CLOUD",
    "THERMIK_CLOUD_ADMIN",
    "THERMIK_CLOUD_AUTH_URL",
    "THERMIK_CLOUD_IMAGE",
    "THERMIK_CLOUD_FLAVOR",
    "THERMIK_CLOUD_PUBLIC_NETWORK",
)


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, not reaped yet by its parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_for_cloud_up(timeout: float = 1800, env_name: str = "cloud.env") -> None:
    """When tools/run-tests.sh starts the cloud beside the suite (``THERMIK_CLOUD_UP_PID``),
    wait until it is up (its ``env_name`` is written: the cloud's, or that of a service it
    starts after the cloud), or fail saying where its log is if it ended without coming up."""
    pid = os.environ.get("THERMIK_CLOUD_UP_PID")
    env_file = state_dir() / env_name
    if not pid:
        return
    deadline = time.monotonic() + timeout
    while not env_file.is_file() and running(int(pid)) and time.monotonic() < deadline:
        time.sleep(1)
    if not env_file.is_file():
        log = state_dir() / "cloud-up.log"
        tail = log.read_text()[-3000:] if log.is_file() else ""
        unavailable(f"tools/cloud-up.sh did not bring the cloud up (log: {log}):\n{tail}")


def wait_for_cloud_job(timeout: float = 300) -> None:
    """When tools/run-tests.sh brings the cloud up beside the suite, the Keystone-authenticated
    Swift and Zaqar join its catalog after it: wait for that job to end."""
    pid = os.environ.get("THERMIK_CLOUD_UP_PID")
    deadline = time.monotonic() + timeout
    while pid and running(int(pid)) and time.monotonic() < deadline:
        time.sleep(1)


@dataclasses.dataclass(frozen=True)
class CloudEnv:
    """Where the loopback cloud is, and the image, flavor and external network it was given."""

    config_file: Path
    cloud: str
    admin_cloud: str
    auth_url: str
    image: str
    flavor: str
    public_network: str

    @classmethod
    def from_settings(cls) -> CloudEnv:
        wait_for_cloud_up()
        s = service_settings("cloud", KEYS, start="tools/cloud-up.sh")
        env = cls(Path(s[KEYS[0]]), *(s[key] for key in KEYS[1:]))
        try:
            env.connect().authorize()
        except Exception as error:  # any failure to log in means the cloud is not usable
            unavailable(f"the cloud at {env.auth_url} does not answer: {error}")
        return env

    def connect(self, *, admin: bool = False) -> openstack.connection.Connection:
        """A new SDK connection as demo (or admin), configured only by the cloud's clouds.yaml."""
        config = openstack.config.OpenStackConfig(
            config_files=[str(self.config_file)], load_envvars=False
        )
        region = config.get_one(cloud=self.admin_cloud if admin else self.cloud)
        return openstack.connection.Connection(config=region)
