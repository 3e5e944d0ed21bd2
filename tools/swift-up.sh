#!/usr/bin/env bash
# Start a real, throwaway OpenStack Swift on loopback for tests and the demo: one proxy (tempauth,
# TempURL) and one account, container and object server over one replica, installed from PyPI
# into .venv-swift. Everything lives under $THERMIK_STATE_DIR/swift (default .state/swift); a
# fresh start wipes it. When it is up, the endpoint is written to .state/swift.env:
#   THERMIK_SWIFT_AUTH_URL  tempauth v1 URL (…/auth/v1.0)
#   THERMIK_SWIFT_USER / THERMIK_SWIFT_KEY                    owner of account AUTH_test
#   THERMIK_SWIFT_RESELLER_USER / THERMIK_SWIFT_RESELLER_KEY  may create and use any AUTH_<name>
# Settings: THERMIK_SWIFT_PORT (proxy port; default: a free one), THERMIK_SWIFT_DEVICES (storage
# dir; must support user xattrs, /dev/shm is about twice as fast). Running it again while Swift
# is up only prints the env file.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

state=$RP_STATE/swift
env_file=$RP_STATE/swift.env
servers=(account container object proxy)

all_alive() {
    local s
    for s in "${servers[@]}"; do
        rp_alive "$state/run/$s.pid" "$state/etc/$s-server.conf" || return 1
    done
}

check_xattrs() {
    "$venv/bin/python" - "$1" <<'PY' || rp_die "no user xattrs under $1: set THERMIK_SWIFT_DEVICES"
import os, sys
probe = os.path.join(sys.argv[1], ".xattr-probe")
open(probe, "w").close()
try:
    os.setxattr(probe, "user.swift.probe", b"x" * 254)
finally:
    os.unlink(probe)
PY
}

# Ports of the four servers, filled in by start().
declare -A port

write_configs() {
    local etc=$state/etc devices=$1 fernet s
    user_key=$(rp_random_key)
    reseller_key=$(rp_random_key)
    fernet=$("$venv/bin/python" -c \
        'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())')
    rp_render "$RP_DIR/swift/swift.conf.in" "$etc/swift.conf" "HASH_SUFFIX=$(rp_random_key)"
    rp_render "$RP_DIR/swift/proxy-server.conf.in" "$etc/proxy-server.conf" "PORT=${port[proxy]}" \
        "ETC=$etc" "USER_KEY=$user_key" "RESELLER_KEY=$reseller_key" "FERNET_KEY=$fernet"
    for s in account container object; do
        rp_render "$RP_DIR/swift/backend-server.conf.in" "$etc/$s-server.conf" "SERVER=$s" \
            "PORT=${port[$s]}" "ETC=$etc" "DEVICES=$devices"
    done
    "$venv/bin/python" "$RP_DIR/swift/rings.py" "$etc" \
        "${port[account]}" "${port[container]}" "${port[object]}"
}

start() {
    "$RP_ROOT/tools/swift-down.sh" 2> /dev/null
    local devices=${THERMIK_SWIFT_DEVICES:-$state/devices} s
    rm -rf "$state" "$devices/d1"
    mkdir -p "$state/etc" "$state/run" "$state/log" "$devices/d1"
    check_xattrs "$devices/d1"
    read -r 'port[proxy]' 'port[account]' 'port[container]' 'port[object]' <<< "$(rp_free_ports 4)"
    port[proxy]=${THERMIK_SWIFT_PORT:-${port[proxy]}}
    write_configs "$devices"
    for s in "${servers[@]}"; do
        rp_spawn "$state/run/$s.pid" "$state/log/$s.log" \
            "$venv/bin/swift-$s-server" "$state/etc/$s-server.conf" -v
    done
    for s in "${servers[@]}"; do
        rp_wait_http "http://127.0.0.1:${port[$s]}/healthcheck" 200 30 \
            "$state/run/$s.pid" "$state/etc/$s-server.conf" ||
            { tail -20 "$state/log/$s.log" >&2; rp_die "$s server did not come up"; }
    done
    local auth_url=http://127.0.0.1:${port[proxy]}/auth/v1.0
    rp_wait_http "$auth_url" 200 10 "$state/run/proxy.pid" "$state/etc/proxy-server.conf" \
        -H "X-Auth-User: test:tester" -H "X-Auth-Key: $user_key" ||
        rp_die "tempauth refused test:tester"
    cat > "$env_file" <<EOF
export THERMIK_SWIFT_AUTH_URL=$auth_url
export THERMIK_SWIFT_USER=test:tester
export THERMIK_SWIFT_KEY=$user_key
export THERMIK_SWIFT_RESELLER_USER=admin:admin
export THERMIK_SWIFT_RESELLER_KEY=$reseller_key
EOF
}

venv=$(rp_venv swift)
if all_alive && [ -f "$env_file" ]; then
    rp_log "already running"
else
    start
    rp_log "up: $(grep AUTH_URL "$env_file" | cut -d= -f2)"
fi
cat "$env_file"
