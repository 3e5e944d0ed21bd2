#!/usr/bin/env bash
# Stop the Zaqar (and its private Redis) that tools/zaqar-up.sh started and remove
# .state/zaqar.env. Logs stay in .state/zaqar until the next start (or --purge).
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
state=$RP_STATE/zaqar
rm -f "$RP_STATE/zaqar.env"
rp_stop "$state/run/zaqar-keystone.pid" "$state/zaqar-keystone.conf"
rp_stop "$state/run/zaqar.pid" "$state/zaqar.conf"
# redis-server rewrites its command line to "redis-server ADDRESS:PORT".
rp_stop "$state/run/redis.pid" "127.0.0.1:$(cat "$state/run/redis.port" 2> /dev/null || echo none)"
rm -f "$state/run/redis.port"
if [ "${1:-}" = --purge ]; then
    rm -rf "$state"
fi
rp_log "stopped"
