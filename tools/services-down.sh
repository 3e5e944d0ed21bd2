#!/usr/bin/env bash
# Stop what tools/services-up.sh started (Swift and Zaqar; the agent has no daemon). Pass
# --purge to delete their data and logs as well.
set -euo pipefail
cd "$(dirname "$0")"
./swift-down.sh "$@"
./zaqar-down.sh "$@"
