#!/usr/bin/env bash
# Install the real in-guest agent a Heat server runs, and lay out a sandbox to run it in:
#   * os-collect-config, os-refresh-config, os-apply-config and dib-utils from PyPI (.venv-agent);
#   * heat-agents' 55-heat-config, heat-config-notify and `script` hook, taken from the
#     heat-agents source distribution on PyPI (its wheel carries no hooks) and kept only under
#     .venv-agent (never committed); the tarball is cached, checked by sha256, in ~/.cache/thermik.
# The sandbox (default $THERMIK_STATE_DIR/agent, or --sandbox DIR) holds everything the agent
# would write under /etc, /var and /usr on a server; tools/agent-run.sh runs the agent in it.
# Without --sandbox it also writes .state/agent.env (THERMIK_AGENT_SETUP, THERMIK_AGENT_RUN,
# THERMIK_AGENT_SANDBOX, THERMIK_OS_COLLECT_CONFIG) for the functional tests.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

HEAT_AGENTS_VERSION=13.0.0
HEAT_AGENTS_SHA256=346099c6e9f16bd5e68913b825013acdd97b6743a1764ebcfc08d6528cefa9d6

sandbox=$RP_STATE/agent
write_env=1
if [ "${1:-}" = --sandbox ]; then
    sandbox=$(realpath -m "${2:?usage: agent-setup.sh [--sandbox DIR]}")
    write_env=0
fi

# fetch_heat_agents DEST: unpack the verified heat-agents sdist into DEST.
fetch_heat_agents() {
    local cache=${XDG_CACHE_HOME:-$HOME/.cache}/thermik
    local tarball=$cache/heat_agents-$HEAT_AGENTS_VERSION.tar.gz
    if ! echo "$HEAT_AGENTS_SHA256  $tarball" | sha256sum -c --status 2> /dev/null; then
        rp_log "downloading the heat-agents $HEAT_AGENTS_VERSION source distribution"
        mkdir -p "$cache"
        rp_quiet "$cache/download.log" "$(rp_python)" -m pip download -q --no-deps \
            --no-binary :all: -d "$cache" "heat-agents==$HEAT_AGENTS_VERSION"
        echo "$HEAT_AGENTS_SHA256  $tarball" | sha256sum -c --status ||
            rp_die "$tarball does not match its pinned sha256"
    fi
    rm -rf "$1"
    mkdir -p "$1"
    tar xzf "$tarball" -C "$1" --strip-components=1
    echo "$HEAT_AGENTS_VERSION" > "$1/.thermik-version"
}

# lay_out DIR: a fresh sandbox with the agent's phase scripts, hooks, templates and config.
lay_out() {
    local dir=$1 src=$venv/heat-agents
    rm -rf "$dir"
    mkdir -p "$dir"/{orc/configure.d,hooks,bin,root,deployed,cache,backup,script/work,script/out}
    cp -r "$src/heat-config/os-apply-config" "$dir/templates"
    install -m 755 "$RP_DIR/agent/20-os-apply-config" "$dir/orc/configure.d/"
    install -m 755 "$src/heat-config/os-refresh-config/configure.d/55-heat-config" \
        "$dir/orc/configure.d/"
    install -m 755 "$src/heat-config/bin/heat-config-notify" "$dir/bin/"
    install -m 755 "$src/heat-config-script/install.d/hook-script.py" "$dir/hooks/script"
    cat > "$dir/os-collect-config.conf" <<CONF
[DEFAULT]
command = os-refresh-config --lockfile $dir/orc.lock
cachedir = $dir/cache
backup_cachedir = $dir/backup
min_polling_interval = 1
CONF
    # The hooks start with "#!/usr/bin/env python3" and import yaml and requests: the venv's bin
    # comes first on PATH. The other variables move every path the hooks use into the sandbox.
    cat > "$dir/agent.env" <<ENV
export PATH="$venv/bin:\$PATH"
export THERMIK_AGENT_ROOT=$dir/root
export OS_REFRESH_CONFIG_BASE_DIR=$dir/orc
export OS_CONFIG_APPLIER_TEMPLATES=$dir/templates
export HEAT_SHELL_CONFIG=$dir/root/var/run/heat-config/heat-config
export HEAT_CONFIG_HOOKS=$dir/hooks
export HEAT_CONFIG_DEPLOYED=$dir/deployed
export HEAT_CONFIG_DEPLOYED_OLD=$dir/deployed-old
export HEAT_CONFIG_NOTIFY=$dir/bin/heat-config-notify
export HEAT_SCRIPT_WORKING=$dir/script/work
export HEAT_SCRIPT_OUTPUTS=$dir/script/out
ENV
}

venv=$(rp_venv agent "about 24 MB to download, 95 MB on disk")
if [ "$(cat "$venv/heat-agents/.thermik-version" 2> /dev/null)" != "$HEAT_AGENTS_VERSION" ]; then
    fetch_heat_agents "$venv/heat-agents"
fi
lay_out "$sandbox"
if [ "$write_env" = 1 ]; then
    mkdir -p "$RP_STATE"
    cat > "$RP_STATE/agent.env" <<EOF
export THERMIK_AGENT_SETUP=$RP_ROOT/tools/agent-setup.sh
export THERMIK_AGENT_RUN=$RP_ROOT/tools/agent-run.sh
export THERMIK_AGENT_SANDBOX=$sandbox
export THERMIK_OS_COLLECT_CONFIG=$venv/bin/os-collect-config
EOF
    cat "$RP_STATE/agent.env"
fi
rp_log "sandbox ready: $sandbox"
