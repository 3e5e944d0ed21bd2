#!/usr/bin/env bash
# Add a Keystone-authenticated proxy server to the loopback Swift of tools/swift-up.sh and put it
# in the loopback cloud's catalog (tools/cloud-up.sh) as the object-store service, so that the
# cloud's users reach Swift with their own Keystone credentials (OS::Swift::Container, through
# the catalog). It shares the rings and backends of the tempauth proxy, which stays as it is;
# Keystone's accounts are AUTH_<project id>, apart from tempauth's AUTH_test. Appends
#   THERMIK_SWIFT_KEYSTONE_URL  the proxy's base URL (http://127.0.0.1:<port>)
# to .state/swift.env. Needs Swift (tools/swift-up.sh) and the cloud up; tools/swift-down.sh
# stops this proxy too.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"

state=$RP_STATE/swift
env_file=$RP_STATE/swift.env
conf=$state/etc/proxy-keystone-server.conf
cloud_env=$RP_STATE/cloud.env
[ -f "$cloud_env" ] || rp_die "the loopback cloud is not up ($cloud_env missing): run tools/cloud-up.sh"
auth_url=$(sed -n 's/^export THERMIK_CLOUD_AUTH_URL=//p' "$cloud_env")
admin_password=$(cat "$RP_STATE/cloud/data/password")

[ -f "$env_file" ] || rp_die "Swift is not up ($env_file missing): run tools/swift-up.sh"
venv=$(rp_venv swift)
if rp_alive "$state/run/proxy-keystone.pid" "$conf" && grep -q KEYSTONE_URL "$env_file"; then
    rp_log "already running"
    cat "$env_file"
    exit 0
fi
port=$(rp_free_ports 1)
password=$(rp_random_key)
# The tempauth proxy's configuration with Keystone's authtoken and keystoneauth instead of
# tempauth; swift_dir still names the shared rings.
sed -e "s/^bind_port = .*/bind_port = $port/" -e "s/^log_name = .*/log_name = proxy-keystone/" \
    -e "s/ tempauth / authtoken keystoneauth /" -e '/^\[filter:tempauth\]/,/^\[/{/^\[filter:tempauth\]/d;/^\[/!d}' \
    "$state/etc/proxy-server.conf" > "$conf"
cat >> "$conf" << EOF

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
www_authenticate_uri = $auth_url
auth_url = $auth_url
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = swift
password = $password
delay_auth_decision = true

[filter:keystoneauth]
use = egg:swift#keystoneauth
reseller_prefix = AUTH
operator_roles = admin, member
reseller_admin_role = ResellerAdmin
EOF
"$venv/bin/python" "$RP_DIR/register_service.py" "$auth_url" "$admin_password" swift "$password" \
    swift object-store "http://127.0.0.1:$port/v1/AUTH_\$(project_id)s" ||
    rp_die "could not register Swift in the catalog"
rp_spawn "$state/run/proxy-keystone.pid" "$state/log/proxy-keystone.log" \
    "$venv/bin/swift-proxy-server" "$conf" -v
rp_wait_http "http://127.0.0.1:$port/healthcheck" 200 30 "$state/run/proxy-keystone.pid" "$conf" ||
    { tail -20 "$state/log/proxy-keystone.log" >&2; rp_die "the Keystone proxy did not come up"; }
sed -i '/THERMIK_SWIFT_KEYSTONE_URL/d' "$env_file"
echo "export THERMIK_SWIFT_KEYSTONE_URL=http://127.0.0.1:$port" >> "$env_file"
rp_log "up: Keystone proxy on :$port, in the catalog as object-store"
cat "$env_file"
