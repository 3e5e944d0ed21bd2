#!/usr/bin/env bash
# Bring up every real service the functional tests and the demo use, all on loopback: Swift
# (tools/swift-up.sh, plus the second proxy with a lagging clock of tools/swift-skew-up.sh where
# libfaketime is or can be installed: in CI or as root), Zaqar (tools/zaqar-up.sh) and the guest
# agent (tools/agent-setup.sh).
# They install and start side by side; each writes its endpoint to .state/<service>.env.
# tools/services-down.sh stops them again.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
rp_uv > /dev/null # once, before the steps below need it at the same time
swift=swift-up
if [ -n "${CI:-}" ] || [ "$(id -u)" = 0 ] || ls /usr/lib/*/faketime/libfaketimeMT.so.1 &> /dev/null; then
    swift=swift-skew-up
fi
pids=()
for step in $swift zaqar-up agent-setup; do
    # A second try covers a free port taken by someone else between choosing and binding it.
    { "$RP_ROOT/tools/$step.sh" || "$RP_ROOT/tools/$step.sh"; } > /dev/null &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
done
[ "$failed" = 0 ] || rp_die "a service did not come up (see above)"
rp_log "ready: $(cd "$RP_STATE" && echo swift.env zaqar.env agent.env) in $RP_STATE"
