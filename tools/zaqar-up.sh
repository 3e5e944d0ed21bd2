#!/usr/bin/env bash
# Start a real, throwaway OpenStack Zaqar (v2 API, no Keystone) on loopback for tests and the
# demo, installed from PyPI into .venv-zaqar, backed by a private redis-server with no
# persistence. Everything lives under $THERMIK_STATE_DIR/zaqar (default .state/zaqar); a fresh
# start wipes it. When it is up, the endpoint is written to .state/zaqar.env:
#   THERMIK_ZAQAR_URL  e.g. http://127.0.0.1:PORT (send Client-ID and X-Project-ID headers)
# Settings: THERMIK_ZAQAR_PORT (default: a free one); THERMIK_ZAQAR_REDIS_URL to use an existing
# Redis instead of a private one (e.g. redis://127.0.0.1:6379/7; a database of its own, since
# Zaqar's keys are not prefixed). Running it again while Zaqar is up only prints the env file.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

state=$RP_STATE/zaqar
env_file=$RP_STATE/zaqar.env
conf=$state/zaqar.conf
probe_headers=(-H "Client-ID: 00000000-0000-4000-8000-000000000000" -H "X-Project-ID: probe")

private_redis_alive() {
    [ -n "${THERMIK_ZAQAR_REDIS_URL:-}" ] || rp_alive "$state/run/redis.pid" "$(redis_mark)"
}

# redis-server rewrites its command line to "redis-server ADDRESS:PORT"; that is what we match.
redis_mark() {
    echo "127.0.0.1:$(cat "$state/run/redis.port" 2> /dev/null || echo none)"
}

ensure_redis_server() {
    command -v redis-server > /dev/null && return
    rp_log "installing redis-server (Debian)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends redis-server > /dev/null 2>&1 ||
        { apt-get update -q > /dev/null && apt-get install -y -q --no-install-recommends \
            redis-server > /dev/null; } || rp_die "cannot install redis-server"
}

# start_redis PORT: a private redis-server that keeps nothing on disk.
start_redis() {
    ensure_redis_server
    mkdir -p "$state/redis"
    echo "$1" > "$state/run/redis.port"
    rp_spawn "$state/run/redis.pid" "$state/log/redis.log" redis-server --bind 127.0.0.1 \
        --port "$1" --save '' --appendonly no --dir "$state/redis"
    local i
    for i in $(seq 100); do
        redis-cli -p "$1" ping 2> /dev/null | grep -q PONG && break
        sleep 0.05
    done
    redis-cli -p "$1" ping 2> /dev/null | grep -q PONG ||
        { cat "$state/log/redis.log" >&2; rp_die "redis-server did not come up"; }
}

start() {
    "$RP_ROOT/tools/zaqar-down.sh" 2> /dev/null
    rm -rf "$state"
    mkdir -p "$state/run" "$state/log"
    local port redis_port redis_url
    read -r port redis_port <<< "$(rp_free_ports 2)"
    port=${THERMIK_ZAQAR_PORT:-$port}
    redis_url=${THERMIK_ZAQAR_REDIS_URL:-redis://127.0.0.1:$redis_port/0}
    [ -n "${THERMIK_ZAQAR_REDIS_URL:-}" ] || start_redis "$redis_port"
    rp_render "$RP_DIR/zaqar/zaqar.conf.in" "$conf" "PORT=$port" "REDIS_URL=$redis_url" \
        "SIGNED_URL_KEY=$(rp_random_key)"
    rp_spawn "$state/run/zaqar.pid" "$state/log/zaqar.log" \
        "$venv/bin/zaqar-server" --config-file "$conf"
    rp_wait_http "http://127.0.0.1:$port/v2/ping" 204 60 "$state/run/zaqar.pid" "$conf" \
        "${probe_headers[@]}" || { tail -30 "$state/log/zaqar.log" >&2; rp_die "zaqar did not come up"; }
    echo "export THERMIK_ZAQAR_URL=http://127.0.0.1:$port" > "$env_file"
}

venv=$(rp_venv zaqar)
if rp_alive "$state/run/zaqar.pid" "$conf" && private_redis_alive && [ -f "$env_file" ]; then
    rp_log "already running"
else
    start
    rp_log "up: $(cut -d= -f2 "$env_file")"
fi
cat "$env_file"
