#!/usr/bin/env bash
# Run the real os-collect-config (request collector) in a sandbox made by tools/agent-setup.sh,
# the way a Heat server does: fetch the metadata document from METADATA_URL (e.g. a Swift
# TempURL), and on a change run os-refresh-config -> os-apply-config -> 55-heat-config -> the
# group's hook -> heat-config-notify, which sends each deployment's signal to its
# deploy_signal_id. Every deployment id runs once per sandbox.
#   tools/agent-run.sh [--sandbox DIR] [--once | --poll SECONDS] METADATA_URL
# --once (the default) fetches once and exits; --poll keeps polling (starting every second,
# doubling up to SECONDS) until it is killed. The agent's log goes to stderr.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

usage() {
    echo "usage: $0 [--sandbox DIR] [--once | --poll SECONDS] METADATA_URL" >&2
    exit 2
}

sandbox=$RP_STATE/agent
mode=(--one-time)
while [ $# -gt 1 ]; do
    case $1 in
        --sandbox) sandbox=$2; shift 2 ;;
        --once) mode=(--one-time); shift ;;
        --poll) mode=(--polling-interval "$2"); shift 2 ;;
        *) usage ;;
    esac
done
[ $# = 1 ] || usage
[ -f "$sandbox/agent.env" ] || rp_die "no agent sandbox at $sandbox: run tools/agent-setup.sh"
. "$sandbox/agent.env"
exec os-collect-config --config-file "$sandbox/os-collect-config.conf" "${mode[@]}" \
    --request-metadata-url "$1" request
