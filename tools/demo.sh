#!/usr/bin/env bash
# Set up .venv and the server agent, then run the software deployment demo on the embedded
# default (SQLite, in-process engine): a DeployedServer and three script deployments, delivered
# over the builtin transport to the real os-collect-config + heat-agents hooks, which
# tools/agent-setup.sh installs into .venv-agent and lays out in a sandbox under .state/.
# The demo's database is its own, in .state/demo (never the user's stacks).
# Arguments go to `thermik demo` (e.g. --parameter greeting=Hi, -f json, --state-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/realparts/lib.sh
if [ ! -x .venv/bin/thermik ] || [ ! -x .venv-agent/bin/os-collect-config ]; then
    # Measured on a fresh clone: pip download of each venv's packages, du of the venvs.
    rp_log "first run: installing Thermik into .venv and the server agent into .venv-agent" \
        "(about 66 MB to download, 320 MB on disk; a minute or two), then the demo"
fi
tools/bootstrap.sh
state="${THERMIK_STATE_DIR:-$PWD/.state}"
sandbox="$state/demo-agent"
tools/agent-setup.sh --sandbox "$sandbox"
agent="$(printf '%q ' "$PWD/tools/agent-run.sh" --sandbox "$sandbox" --poll 2)"
exec .venv/bin/thermik demo --state-dir "$state/demo" --agent "$agent" "$@"
