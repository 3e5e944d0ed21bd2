#!/usr/bin/env bash
# Run the real os-collect-config in a sandbox made by tools/agent-setup.sh, the way a Heat server
# does: on a change of the metadata it collects, run os-refresh-config -> os-apply-config ->
# 55-heat-config -> the group's hook -> heat-config-notify, which sends each deployment's signal
# to its deploy_signal_id (or queue). Every deployment id runs once per sandbox.
#   tools/agent-run.sh [--sandbox DIR] [--once | --poll SECONDS] METADATA_URL
#       poll METADATA_URL (e.g. a Swift TempURL) with the request collector;
#   tools/agent-run.sh [--sandbox DIR] --boot CFN_INIT_DATA
#       a server's first boot: the file is the metadata its user_data carried (the cfn-init-data
#       part, which cloud-init's part handler writes to /var/lib/heat-cfntools); the heat_local
#       collector reads it once, and os-apply-config renders the agent's own configuration from
#       its os-collect-config section into the sandbox (root/etc/os-collect-config.conf);
#   tools/agent-run.sh [--sandbox DIR] [--once | --poll SECONDS] --configured COLLECTOR...
#       after --boot: poll with those collectors as that rendered configuration sets them up
#       (request, zaqar or heat; a document that changes the section reconfigures the agent).
# --once (the default) collects once and exits; --poll keeps polling (starting every second,
# doubling up to SECONDS) until it is killed. The agent's log goes to stderr.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

usage() {
    echo "usage: $0 [--sandbox DIR] [--once | --poll SECONDS] METADATA_URL" >&2
    echo "       $0 [--sandbox DIR] --boot CFN_INIT_DATA" >&2
    echo "       $0 [--sandbox DIR] [--once | --poll SECONDS] --configured COLLECTOR..." >&2
    exit 2
}

sandbox=$RP_STATE/agent
mode=(--one-time)
while [ $# -gt 1 ]; do
    case $1 in
        --sandbox) sandbox=$2; shift 2 ;;
        --once) mode=(--one-time); shift ;;
        --poll) mode=(--polling-interval "$2"); shift 2 ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || usage
[ -f "$sandbox/agent.env" ] || rp_die "no agent sandbox at $sandbox: run tools/agent-setup.sh"
. "$sandbox/agent.env"
conf=$sandbox/os-collect-config.conf
case $1 in
    --boot)
        [ $# = 2 ] || usage
        boot=$THERMIK_AGENT_ROOT/var/lib/heat-cfntools
        mkdir -p "$boot"
        cp "$2" "$boot/cfn-init-data"
        exec os-collect-config --config-file "$conf" --one-time \
            --heat_local-path "$boot/cfn-init-data" heat_local
        ;;
    --configured)
        shift
        [ $# -ge 1 ] || usage
        rendered=$THERMIK_AGENT_ROOT/etc/os-collect-config.conf
        [ -f "$rendered" ] || rp_die "no $rendered: boot the sandbox first (--boot)"
        # The sandbox's own file comes last so its command and cache directories win; the
        # local collector reads the sandbox, never this machine's /var/lib.
        exec os-collect-config --config-file "$rendered" --config-file "$conf" "${mode[@]}" \
            --local-path "$sandbox/local-data" "$@"
        ;;
    -*) usage ;;
esac
[ $# = 1 ] || usage
exec os-collect-config --config-file "$conf" "${mode[@]}" \
    --request-metadata-url "$1" request
