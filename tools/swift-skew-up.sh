#!/usr/bin/env bash
# Add a second proxy server ("B") with a shifted clock to the loopback Swift of tools/swift-up.sh,
# for the metadata race test under clock skew. B uses the same rings, backends and tempauth keys
# as proxy A and runs under libfaketime, so Swift stamps the writes through it with a clock that
# is THERMIK_SWIFT_SKEW seconds off (default -2). A write through B that arrives within that
# window after one through A is answered 202 and dropped, as on a real cluster with a lagging
# proxy. Installs Debian's faketime with apt-get when it is missing. Appends
#   THERMIK_SWIFT_SKEWED_URL  proxy B's base URL (http://127.0.0.1:<port>)
#   THERMIK_SWIFT_SKEW        its clock offset in seconds
# to .state/swift.env. Starts Swift first when it is not up. tools/swift-down.sh stops B too.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

state=$RP_STATE/swift
env_file=$RP_STATE/swift.env
skew=${THERMIK_SWIFT_SKEW:--2}
conf=$state/etc/proxy-skewed-server.conf

faketime_lib() {
    local lib
    lib=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 2> /dev/null | head -1)
    if [ -z "$lib" ]; then
        rp_log "installing faketime (apt-get)"
        if ! apt-get install -y -q --no-install-recommends faketime libfaketime > /dev/null 2>&1; then
            apt-get update -q > /dev/null
            apt-get install -y -q --no-install-recommends faketime libfaketime > /dev/null
        fi
        lib=$(ls /usr/lib/*/faketime/libfaketimeMT.so.1 | head -1)
    fi
    echo "$lib"
}

"$RP_ROOT/tools/swift-up.sh" > /dev/null
venv=$(rp_venv swift)
if rp_alive "$state/run/proxy-skewed.pid" "$conf" && grep -q SKEWED_URL "$env_file"; then
    rp_log "already running"
    cat "$env_file"
    exit 0
fi
lib=$(faketime_lib)
port=$(rp_free_ports 1)
sed -e "s/^bind_port = .*/bind_port = $port/" -e "s/^log_name = .*/log_name = proxy-skewed/" \
    "$state/etc/proxy-server.conf" > "$conf"
# A libfaketime process killed earlier leaves its shared memory behind, and a new process that
# gets the same pid then fails with "shm_open failed: File exists".
for f in /dev/shm/faketime_shm_* /dev/shm/sem.faketime_sem_*; do
    [ -e "$f" ] && ! kill -0 "${f##*_}" 2> /dev/null && rm -f "$f" || true
done
LD_PRELOAD=$lib FAKETIME=$skew FAKETIME_DONT_FAKE_MONOTONIC=1 \
    rp_spawn "$state/run/proxy-skewed.pid" "$state/log/proxy-skewed.log" \
    "$venv/bin/swift-proxy-server" "$conf" -v
rp_wait_http "http://127.0.0.1:$port/healthcheck" 200 30 "$state/run/proxy-skewed.pid" "$conf" ||
    { tail -20 "$state/log/proxy-skewed.log" >&2; rp_die "the skewed proxy did not come up"; }
sed -i '/THERMIK_SWIFT_SKEW/d' "$env_file"
cat >> "$env_file" << EOF
export THERMIK_SWIFT_SKEWED_URL=http://127.0.0.1:$port
export THERMIK_SWIFT_SKEW=$skew
EOF
rp_log "up: proxy B on :$port, clock $skew s"
cat "$env_file"
