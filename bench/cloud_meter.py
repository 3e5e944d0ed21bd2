"""What bench/cloud_bench.py measures besides wall time: requests and CPU.

* :class:`ServedRequests`: the requests each of the cloud's APIs served, from the request lines
  uWSGI writes to ``<cloud>/log/<api>.out`` (one ``[pid: ...] ... GET /path => generated ...``
  line per request). They count every client: the engine under test, the cloud's services
  calling each other (Nova asking Neutron, Glance, Placement), and anyone else using the cloud
  meanwhile, which :meth:`ServedRequests.rate` estimates beforehand.
* :func:`group_cpu`: the CPU time of a process group from /proc (heat-engine is a master and a
  worker process).
* :func:`keystoneauth_requests`: the requests a service logged with keystoneauth's debug lines
  (Heat's own, with ``THERMIK_HEAT_LOG_REQUESTS=1 tools/heat-up.sh``).
"""

from __future__ import annotations

import collections
import os
import re
import time
from pathlib import Path

#: The cloud's APIs under uWSGI, by their log file's name.
APIS = ("keystone", "glance", "placement", "nova-api", "neutron")
_REQUEST_LINE = b"[pid: "


class ServedRequests:
    """Request lines of the cloud's uWSGI logs since a mark, by API."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        missing = [api for api in APIS if not (log_dir / f"{api}.out").exists()]
        if missing:
            raise SystemExit(f"no uWSGI request log of {', '.join(missing)} in {log_dir}")

    def mark(self) -> dict[str, int]:
        """Where each log ends now (byte offsets)."""
        return {api: (self.log_dir / f"{api}.out").stat().st_size for api in APIS}

    def since(self, mark: dict[str, int]) -> dict[str, int]:
        """The requests each API served since ``mark``."""
        counts = {}
        for api in APIS:
            with open(self.log_dir / f"{api}.out", "rb") as log:
                log.seek(mark[api])
                counts[api] = sum(1 for line in log if line.startswith(_REQUEST_LINE))
        return counts

    def rate(self, seconds: float) -> float:
        """Requests per second all APIs served over the next ``seconds`` (others' traffic)."""
        mark = self.mark()
        time.sleep(seconds)
        return sum(self.since(mark).values()) / seconds


def group_cpu(pgid: int) -> float:
    """CPU seconds (user + system) of the live processes of process group ``pgid``."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[2]) == pgid:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


_KEYSTONEAUTH = re.compile(rb"REQ: curl -g -i -X (\w+) (https?://[^/ ]+)")


def keystoneauth_requests(log: Path, offset: int, services: dict[str, str]) -> dict[str, int]:
    """Requests in keystoneauth's debug lines of ``log`` after byte ``offset``, by service
    (``services`` maps ``scheme://host:port`` to a name). keystoneauth logs no token request."""
    counts: collections.Counter[str] = collections.Counter()
    with open(log, "rb") as lines:
        lines.seek(offset)
        for line in lines:
            found = _KEYSTONEAUTH.search(line)
            if found:
                root = found.group(2).decode()
                counts[services.get(root, root)] += 1
    return dict(counts)


def size(path: Path) -> int:
    """The size of ``path`` now (0 when missing): a mark for :func:`keystoneauth_requests`."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
