#!/usr/bin/env bash
# Add a Keystone-authenticated zaqar-server to the loopback Zaqar of tools/zaqar-up.sh and put it
# in the loopback cloud's catalog (tools/cloud-up.sh) as the messaging service, so that the
# cloud's users reach Zaqar with their own Keystone credentials (OS::Zaqar::*, through the
# catalog). It shares the first server's Redis and signing key, which stay as they are; a
# Keystone user's queues are those of its project. Appends
#   THERMIK_ZAQAR_KEYSTONE_URL  its base URL (http://127.0.0.1:<port>)
# to .state/zaqar.env. Needs Zaqar and the cloud up; tools/zaqar-down.sh stops it too.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

state=$RP_STATE/zaqar
env_file=$RP_STATE/zaqar.env
conf=$state/zaqar-keystone.conf
cloud_env=$RP_STATE/cloud.env
[ -f "$cloud_env" ] || rp_die "the loopback cloud is not up ($cloud_env missing): run tools/cloud-up.sh"
[ -f "$env_file" ] || rp_die "Zaqar is not up ($env_file missing): run tools/zaqar-up.sh"
auth_url=$(sed -n 's/^export THERMIK_CLOUD_AUTH_URL=//p' "$cloud_env")
admin_password=$(cat "$RP_STATE/cloud/data/password")

venv=$(rp_venv zaqar)
if rp_alive "$state/run/zaqar-keystone.pid" "$conf" && grep -q KEYSTONE_URL "$env_file"; then
    rp_log "already running"
    cat "$env_file"
    exit 0
fi
mkdir -p "$state/run" "$state/log"
port=$(rp_free_ports 1)
password=$(rp_random_key)
sed -e "s/^port = .*/port = $port/" -e "s/^auth_strategy =.*/auth_strategy = keystone/" \
    "$state/zaqar.conf" > "$conf"
cat >> "$conf" << EOF

[keystone_authtoken]
www_authenticate_uri = $auth_url
auth_url = $auth_url
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = zaqar
password = $password
EOF
"$venv/bin/python" "$RP_DIR/register_service.py" "$auth_url" "$admin_password" zaqar "$password" \
    zaqar messaging "http://127.0.0.1:$port" || rp_die "could not register Zaqar in the catalog"
rp_spawn "$state/run/zaqar-keystone.pid" "$state/log/zaqar-keystone.log" \
    "$venv/bin/zaqar-server" --config-file "$conf"
# Without a token the server answers 401: it is up and asks for Keystone's.
rp_wait_http "http://127.0.0.1:$port/v2/queues" 401 60 "$state/run/zaqar-keystone.pid" "$conf" ||
    { tail -30 "$state/log/zaqar-keystone.log" >&2; rp_die "the Keystone Zaqar did not come up"; }
sed -i '/THERMIK_ZAQAR_KEYSTONE_URL/d' "$env_file"
echo "export THERMIK_ZAQAR_KEYSTONE_URL=http://127.0.0.1:$port" >> "$env_file"
rp_log "up: Keystone Zaqar on :$port, in the catalog as messaging"
cat "$env_file"
