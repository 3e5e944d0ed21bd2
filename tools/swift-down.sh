#!/usr/bin/env bash
# Stop the Swift that tools/swift-up.sh started and remove .state/swift.env. Its data and logs
# stay in .state/swift until the next start (or --purge, which deletes them now).
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
state=$RP_STATE/swift
rm -f "$RP_STATE/swift.env"
for s in proxy-keystone proxy-skewed proxy object container account; do
    rp_stop "$state/run/$s.pid" "$state/etc/$s-server.conf"
done
if [ "${1:-}" = --purge ]; then
    rm -rf "$state"
fi
rp_log "stopped"
