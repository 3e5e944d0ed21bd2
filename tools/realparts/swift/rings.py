"""Build the three one-device, one-replica rings of the loopback Swift.

Run with .venv-swift's Python: ``rings.py ETC_DIR ACCOUNT_PORT CONTAINER_PORT OBJECT_PORT``. One
process does all three (about 0.3 s) where nine ``swift-ring-builder`` calls take seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from swift.common.ring import RingBuilder  # type: ignore[import-not-found]

PART_POWER = 6
REPLICAS = 1
MIN_PART_HOURS = 0


def build(etc: Path, kind: str, port: int) -> None:
    """Write ``<kind>.builder`` and ``<kind>.ring.gz`` with one device at 127.0.0.1:port/d1."""
    builder = RingBuilder(PART_POWER, REPLICAS, MIN_PART_HOURS)
    device = {"region": 1, "zone": 1, "ip": "127.0.0.1", "port": port, "device": "d1"}
    builder.add_dev({**device, "weight": 100})
    builder.rebalance()
    builder.save(str(etc / f"{kind}.builder"))
    builder.get_ring().save(str(etc / f"{kind}.ring.gz"))


def main(argv: list[str]) -> None:
    etc = Path(argv[1])
    for kind, port in zip(("account", "container", "object"), argv[2:5], strict=True):
        build(etc, kind, int(port))


if __name__ == "__main__":
    main(sys.argv)
