#!/usr/bin/env bash
# Run Heat's own test suite, heat-tempest-plugin 3.0.0 with tempest 47 (installed into
# .venv-tempest from tools/realparts/requirements/tempest.txt), against thermik-api behind the
# loopback cloud's real Keystone, and print passed/failed/skipped per module. It fails when a
# test that is not on tools/realparts/tempest/exclude.txt (one line per test, with the reason)
# fails.
#
# Needs the loopback cloud of tools/cloud-up.sh (the one of THERMIK_CLOUD_CONFIG when set, else of
# .state/cloud.env) and the project's .venv (tools/bootstrap.sh). On that cloud it registers, under
# a name of this state dir's own (tools/realparts/tempest/prepare.py): a service user, the
# `orchestration` service with its endpoints on a free 127.0.0.1 port, a stack user domain, and a
# network with a router in the demo project; all of it is removed again at exit. thermik-api runs
# in service mode (keystonemiddleware, Keystone trusts, stack domain users, SQLite) from
# .state/tempest/thermik.conf; tempest's workspace, its tempest.conf, the server's log and the
# results (api.subunit, functional.subunit, summary.md) are in .state/tempest too. The tests that
# play a server's agent find os-collect-config in .venv-tempest and heat_config_notify_script is
# tools/realparts/tempest/notify.py (ZAQAR_SIGNAL with zaqarclient's v2 API).
#
# Usage: tools/tempest-run.sh [REGEX]   (default: every API and functional test)
# Environment: TEMPEST_CONCURRENCY (functional tests, default 2: the API tests of a gabbi file
# depend on each other and always run one at a time), TEMPEST_BUILD_TIMEOUT (seconds a stack
# may take, default 120), OS_TEST_TIMEOUT (seconds per test, default 300).
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
cd "$RP_ROOT"
only=${1:-}
work=$RP_STATE/tempest
if [ -z "${THERMIK_CLOUD_CONFIG:-}" ]; then
    [ -f "$RP_STATE/cloud.env" ] || rp_die "no loopback cloud: start it with tools/cloud-up.sh"
    set -a
    . "$RP_STATE/cloud.env"
    set +a
fi
[ -x .venv/bin/thermik-api ] || rp_die "no .venv: run tools/bootstrap.sh first"
venv=$(rp_venv tempest "about 30 MB to download, 200 MB on disk")
mkdir -p "$work/state" "$work/results"
rm -f "$work/results"/*

TEMPEST_NAME=thermik-tempest-$(printf %s "$work" | sha1sum | cut -c1-8)
TEMPEST_PASSWORD=$(rp_random_key)
port=$(rp_free_ports 1)
api=http://127.0.0.1:$port
TEMPEST_URL="$api/v1/%(project_id)s"
export TEMPEST_NAME TEMPEST_PASSWORD TEMPEST_URL OS_CLIENT_CONFIG_FILE=$THERMIK_CLOUD_CONFIG

# cleanup: stop thermik-api, take what prepare.py registered off the cloud.
cleanup() {
    rp_stop "$work/thermik-api.pid" thermik-api
    .venv/bin/python "$RP_DIR/tempest/prepare.py" down || rp_log "could not clean up the cloud"
}
trap cleanup EXIT
rp_log "registering $TEMPEST_NAME in Keystone's catalog at $api"
declare -A cloud
while IFS='=' read -r key value; do
    cloud[$key]=$value
done < <(.venv/bin/python "$RP_DIR/tempest/prepare.py" up)

domain_conf=$(.venv/bin/thermik-manage --config-file /dev/null keystone setup-domain \
    --os-cloud "$THERMIK_CLOUD_ADMIN" --stack-user-domain-name "$TEMPEST_NAME" \
    --stack-domain-admin "$TEMPEST_NAME-admin" --stack-domain-admin-password "$TEMPEST_PASSWORD" |
    grep -E '^stack_(user_domain_id|domain_admin|domain_admin_password) = ')

service_auth="auth_url = $THERMIK_CLOUD_AUTH_URL
auth_type = password
username = $TEMPEST_NAME
password = $TEMPEST_PASSWORD
user_domain_name = Default"
rm -f "$work/state/thermik.sqlite"
cat > "$work/thermik.conf" << EOF
[DEFAULT]
state_dir = $work/state
$domain_conf

[api]
bind_host = 127.0.0.1
bind_port = $port
auth_strategy = keystone

[engine]
cpu_affinity = any

[keystone_authtoken]
www_authenticate_uri = $THERMIK_CLOUD_AUTH_URL
$service_auth
project_name = service
project_domain_name = Default

[trustee]
$service_auth
EOF
rp_quiet "$work/db-sync.log" .venv/bin/thermik-manage --config-file "$work/thermik.conf" db sync
rp_spawn "$work/thermik-api.pid" "$work/thermik-api.log" \
    .venv/bin/thermik-api --config-file "$work/thermik.conf"
rp_wait_http "$api/" 300 60 "$work/thermik-api.pid" thermik-api ||
    { tail -30 "$work/thermik-api.log" >&2; rp_die "thermik-api did not start"; }
rp_log "thermik-api serves $api (log: $work/thermik-api.log)"

ws=$work/workspace
[ -d "$ws/etc" ] ||
    rp_quiet "$work/init.log" "$venv/bin/tempest" init --workspace-path "$work/workspace.yaml" "$ws"
cat > "$ws/etc/tempest.conf" << EOF
[DEFAULT]
log_file = $ws/tempest.log

[auth]
admin_username = ${cloud[ADMIN_USER]}
admin_password = ${cloud[ADMIN_PASSWORD]}
admin_project_name = ${cloud[ADMIN_PROJECT]}
admin_domain_name = Default
use_dynamic_credentials = False

[identity]
uri_v3 = $THERMIK_CLOUD_AUTH_URL
auth_version = v3
region = RegionOne

[identity-feature-enabled]
api_v2 = False

[service_available]
heat_plugin = True
nova = True
neutron = True
cinder = True
glance = True
swift = False
zaqar = True
barbican = False

[compute]
image_ref = ${cloud[IMAGE_ID]}
flavor_ref = ${cloud[FLAVOR_ID]}
fixed_network_name = $TEMPEST_NAME

[network]
public_network_id = ${cloud[PUBLIC_ID]}
floating_network_name = ${cloud[PUBLIC_NAME]}

[heat_plugin]
auth_url = $THERMIK_CLOUD_AUTH_URL
username = ${cloud[DEMO_USER]}
password = ${cloud[DEMO_PASSWORD]}
project_name = ${cloud[DEMO_PROJECT]}
admin_username = ${cloud[ADMIN_USER]}
admin_password = ${cloud[ADMIN_PASSWORD]}
admin_project_name = ${cloud[ADMIN_PROJECT]}
user_domain_name = Default
project_domain_name = Default
region = RegionOne
endpoint_type = public
catalog_type = orchestration
image_ref = ${cloud[IMAGE_NAME]}
minimal_image_ref = ${cloud[IMAGE_NAME]}
instance_type = ${cloud[FLAVOR_NAME]}
minimal_instance_type = ${cloud[FLAVOR_NAME]}
fixed_network_name = $TEMPEST_NAME
fixed_subnet_name = $TEMPEST_NAME
floating_network_name = ${cloud[PUBLIC_NAME]}
network_for_ssh = $TEMPEST_NAME
build_timeout = ${TEMPEST_BUILD_TIMEOUT:-120}
build_interval = 1
skip_scenario_tests = True
hidden_stack_tag = data-processing-cluster
volume_size = 1
heat_config_notify_script = $RP_DIR/tempest/notify.py

[heat_features_enabled]
stack_cancel = True
multi_cloud = False
EOF

# ZaqarSignalTransportTest plays the server: it runs os-collect-config (from PATH) to pop the
# server's queue and heat_config_notify_script (notify.py, with the venv's Python) to signal.
export OS_TEST_TIMEOUT=${OS_TEST_TIMEOUT:-300} PYTHONWARNINGS=ignore PATH="$venv/bin:$PATH"
# run_part NAME REGEX CONCURRENCY: one tempest run, its subunit stream kept as it comes.
run_part() {
    local name=$1 regex=$2 concurrency=$3 started=$SECONDS
    [ -z "$only" ] || regex="($regex).*($only)"
    rp_log "tempest: $name tests (concurrency $concurrency)"
    (cd "$ws" && "$venv/bin/tempest" run --subunit --regex "$regex" \
        --exclude-list "$RP_DIR/tempest/exclude.txt" --concurrency "$concurrency") \
        > "$work/results/$name.subunit" 2> "$work/results/$name.err" || true
    "$venv/bin/subunit2pyunit" < "$work/results/$name.subunit" > "$work/results/$name.txt" 2>&1 ||
        true
    rp_log "tempest: $name tests took $((SECONDS - started)) s"
}
run_part api 'heat_tempest_plugin\.tests\.api' 1
run_part functional 'heat_tempest_plugin\.tests\.functional' "${TEMPEST_CONCURRENCY:-2}"
status=0
"$venv/bin/python" "$RP_DIR/tempest/summarize.py" "$work/results/api.subunit" \
    "$work/results/functional.subunit" | tee "$work/results/summary.md" || status=$?
if [ "$status" != 0 ]; then
    rp_log "heat-tempest-plugin: failures (tracebacks in $work/results/*.txt," \
        "thermik-api's log in $work/thermik-api.log)"
fi
exit "$status"
