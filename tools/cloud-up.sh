#!/usr/bin/env bash
# Start a real OpenStack cloud on loopback for the functional tests, the benchmarks and the demo:
# Keystone, Glance (file store), Placement, Nova (api, conductor, scheduler, and compute with
# Nova's fake virt driver), Neutron (ML2 with no agents) and Cinder (fake volume driver), each
# installed from PyPI into a venv of its own (.venv-<service>), APIs under uWSGI on free
# 127.0.0.1 ports. Databases live on the machine's MariaDB (root@127.0.0.1:3306), named
# thermik_cloud_<tag>_<service> where <tag> comes from the state dir's path, RPC on its RabbitMQ
# (guest@127.0.0.1:5672, vhost thermik_cloud_<tag>). Config, data and logs live under
# $THERMIK_STATE_DIR/cloud (default .state/cloud) and are kept by tools/cloud-down.sh, so the
# next start is a warm one; tools/cloud-down.sh --purge wipes them and the databases.
# When it is up, .state/cloud.env says how to reach it:
#   THERMIK_CLOUD_CONFIG      a clouds.yaml with the clouds "loopback" (user demo, member of
#                             project demo) and "loopback-admin" (admin)
#   THERMIK_CLOUD / THERMIK_CLOUD_ADMIN   those two names
#   THERMIK_CLOUD_AUTH_URL    Keystone's v3 URL
#   THERMIK_CLOUD_IMAGE, THERMIK_CLOUD_FLAVOR, THERMIK_CLOUD_PUBLIC_NETWORK
#                             a 4 KiB raw image, the m1.tiny flavor (m1.small exists too) and the
#                             shared external network (flat, 198.51.100.0/24) for floating IPs
# Running it again while the cloud is up only prints the env file.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
. "$RP_DIR/cloud/lib.sh"

declare -A port

# load_ports: the ports of the last start where they are still free, new free ones elsewhere
# (Keystone's catalog is updated to match).
load_ports() {
    local saved=() fresh=() name p
    [ ! -f "$data/ports" ] || read -r -a saved < "$data/ports" || true
    # Free ports that are none of the saved ones (free too, while the cloud is down).
    for p in $(rp_free_ports $((2 * ${#CLOUD_APIS[@]}))); do
        [[ " ${saved[*]} " == *" $p "* ]] || fresh+=("$p")
    done
    for name in "${CLOUD_APIS[@]}"; do
        p=${saved[0]:-}
        saved=("${saved[@]:1}")
        if [ -z "$p" ] || (echo > "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
            p=${fresh[0]}
            fresh=("${fresh[@]:1}")
        fi
        port[$name]=$p
    done
    for name in "${CLOUD_APIS[@]}"; do echo "${port[$name]}"; done | paste -sd' ' > "$data/ports"
}

# keystone_sections USER [SECTION...]: what a service needs to check tokens ([keystone_authtoken])
# and to call other services (each SECTION), always as its own service USER.
keystone_sections() {
    local user=$1 section
    cat << EOF

[keystone_authtoken]
www_authenticate_uri = $auth_url
auth_url = $auth_url
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $user
password = $password
service_token_roles = service
service_token_roles_required = true
EOF
    shift
    for section in "$@"; do
        cat << EOF

[$section]
auth_type = password
auth_url = $auth_url
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $user
password = $password
region_name = RegionOne
valid_interfaces = public
EOF
    done
}

# render SERVICE TEMPLATE OUT USER [SECTION...]: a config from its template, with the Keystone
# sections of USER appended.
render() {
    local service=$1 template=$2 out=$3
    shift 3
    mkdir -p "$(dirname "$out")"
    rp_render "$RP_DIR/cloud/$template" "$out" "LOG=$log" "DATA=$data" "ETC=$etc" \
        "DB=$(cloud_db_url)" "RABBIT=$(cloud_rabbit_url)" "PORT=${port[$service]:-0}"
    [ $# -eq 0 ] || keystone_sections "$@" >> "$out"
}

write_configs() {
    local service
    for service in glance nova neutron cinder; do
        mkdir -p "$etc/$service"
        cp "$RP_ROOT/.venv-$service/etc/$service/"*paste.ini "$etc/$service/"
    done
    render keystone keystone.conf.in "$etc/keystone/keystone.conf"
    render glance glance-api.conf.in "$etc/glance/glance-api.conf" glance
    render placement placement.conf.in "$etc/placement/placement.conf" placement
    render nova nova.conf.in "$etc/nova/nova.conf" nova placement neutron service_user
    echo "send_service_user_token = true" >> "$etc/nova/nova.conf"
    # nova-compute refuses to start with database URLs in its configuration.
    grep -v '^connection = ' "$etc/nova/nova.conf" > "$etc/nova/nova-cpu.conf"
    render neutron neutron.conf.in "$etc/neutron/neutron.conf" neutron nova
    render neutron ml2_conf.ini.in "$etc/neutron/plugins/ml2/ml2_conf.ini"
    render cinder cinder.conf.in "$etc/cinder/cinder.conf" cinder nova
}

# spawn NAME MARK CMD...: start process NAME in a process group of its own.
spawn() {
    local name=$1
    echo "$2" > "$run/$name.mark"
    shift 2
    rp_spawn "$run/$name.pid" "$log/$name.out" "$@"
}

# wsgi_api NAME VENV MODULE THREADS ENV [ARG...]: a WSGI API of .venv-VENV under uWSGI, one
# process.
wsgi_api() {
    local name=$1 venv=$RP_ROOT/.venv-$2 module=$3 threads=$4 env=$5 socket
    shift 5
    socket=127.0.0.1:${port[${name%-api}]}
    # Connection: close, since uWSGI's HTTP socket resets clients that keep a connection alive.
    # --lazy-apps: the worker loads the app after the fork (as devstack runs every API), since
    # nova-api starts thread pools while loading and a worker forked from them can hang forever.
    spawn "$name" "$socket" env "$env" "$(rp_uwsgi_dir)/bin/uwsgi" "$@" \
        --http-socket "$socket" --virtualenv "$venv" --module "$module" --master --processes 1 --threads "$threads" \
        --lazy-apps --enable-threads --die-on-term --need-app --buffer-size 65535 --worker-reload-mercy 2 \
        --add-header "Connection: close"
}

# daemon NAME VENV CONFIG [ARG...]: a service's own console script.
daemon() {
    local name=$1 venv=$RP_ROOT/.venv-$2 config=$3
    shift 3
    spawn "$name" "$config" "$venv/bin/$name" --config-file "$config" "$@"
}

# once STEP CMD...: run a schema step unless it succeeded before for this state dir.
once() {
    local step=$1
    shift
    [ -f "$data/$step.done" ] && return 0
    rp_quiet "$log/$step.log" "$@"
    touch "$data/$step.done"
    rp_log "$step done"
}

keystone_schema() {
    local manage=("$RP_ROOT/.venv-keystone/bin/keystone-manage" --config-file
        "$etc/keystone/keystone.conf")
    "${manage[@]}" db_sync &&
        "${manage[@]}" fernet_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" &&
        "${manage[@]}" credential_setup --keystone-user "$(id -un)" \
            --keystone-group "$(id -gn)" &&
        "${manage[@]}" bootstrap --bootstrap-password "$password" \
            --bootstrap-region-id RegionOne --bootstrap-public-url "$auth_url"
}

nova_manage() {
    "$RP_ROOT/.venv-nova/bin/nova-manage" --config-file "$etc/nova/nova.conf" "$@"
}

nova_schema() {
    nova_manage api_db sync &&
        nova_manage cell_v2 map_cell0 --database_connection "$(cloud_db_url)nova_cell0" &&
        { nova_manage cell_v2 list_cells | grep -q ' cell1 ' ||
            nova_manage cell_v2 create_cell --name cell1; } &&
        nova_manage db sync
}

# schemas: every service's schema step at once, in the background; their pids in $schema.
declare -A schema
schemas() {
    local v=$RP_ROOT/.venv
    once keystone-schema keystone_schema & schema[keystone]=$!
    once glance-schema "$v-glance/bin/glance-manage" --config-file "$etc/glance/glance-api.conf" \
        db_sync & schema[glance]=$!
    once placement-schema "$v-placement/bin/placement-manage" \
        --config-file "$etc/placement/placement.conf" db sync & schema[placement]=$!
    once nova-schema nova_schema & schema[nova]=$!
    once neutron-schema "$v-neutron/bin/neutron-db-manage" \
        --config-file "$etc/neutron/neutron.conf" \
        --config-file "$etc/neutron/plugins/ml2/ml2_conf.ini" upgrade heads & schema[neutron]=$!
    once cinder-schema "$v-cinder/bin/cinder-manage" --config-file "$etc/cinder/cinder.conf" \
        db sync & schema[cinder]=$!
}

# wait_api NAME URL: until the API answers at all (any status below 500).
# A service alive but silent for 300 s is stuck: say so with its log rather than wait for ever.
wait_api() {
    local name=$1 url=$2 code deadline=$((SECONDS + 300))
    while [ "$SECONDS" -lt "$deadline" ]; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url" || true)
        if [ "$code" != 000 ] && [ "$code" -lt 500 ]; then
            rp_log "$name answers"
            return 0
        fi
        cloud_alive "$name" || { tail -20 "$log/$name.out" >&2; rp_die "$name died"; }
        sleep 0.1
    done
    tail -20 "$log/$name.out" >&2
    rp_die "$name does not answer at $url after 300 s"
}

# wait_rpc NAME:QUEUE...: until every service NAME consumes its RabbitMQ QUEUE (then it has
# registered itself; nova-compute has also reported its node to Placement).
wait_rpc() {
    local deadline=$((SECONDS + 300)) entry queues=() idle
    for entry in "$@"; do queues+=("${entry#*:}"); done
    until idle=$("$RP_ROOT/.venv-nova/bin/python" "$RP_DIR/cloud/queues.py" "$CLOUD_VHOST" \
        "${queues[@]}" 2> "$log/queues.log"); do
        for entry in "$@"; do
            cloud_alive "${entry%%:*}" || {
                tail -n 20 "$log/${entry%%:*}.log" "$log/${entry%%:*}.out" >&2
                rp_die "${entry%%:*} died"
            }
        done
        [ "$SECONDS" -lt "$deadline" ] || rp_die "nobody consumes the queues: $idle"
        sleep 1
    done
    rp_log "RPC services listen"
}

register() {
    local args=(env CLOUD_AUTH_URL="$auth_url" CLOUD_PASSWORD="$password") name
    for name in "${CLOUD_APIS[@]}"; do
        args+=("CLOUD_PORT_${name^^}=${port[$name]}")
    done
    rp_quiet "$log/register-$1.log" "${args[@]}" "$RP_ROOT/.venv-keystone/bin/python" \
        "$RP_DIR/cloud/register.py" "$1"
    rp_log "registered $1"
}

prepare() {
    local db
    [ -f "$data/password" ] || cloud_drop_data
    mkdir -p "$etc" "$log" "$run" "$data"/{keystone,glance,nova,neutron,cinder,lock}
    [ -f "$data/password" ] || rp_random_key > "$data/password"
    password=$(cat "$data/password")
    load_ports
    auth_url=http://127.0.0.1:${port[keystone]}/v3
    write_configs
    for db in "${CLOUD_DATABASES[@]}"; do
        cloud_sql "CREATE DATABASE IF NOT EXISTS $CLOUD_PREFIX$db CHARACTER SET utf8"
    done
    if ! rabbitmqctl -q list_vhosts | grep -qx "$CLOUD_VHOST"; then
        rabbitmqctl -q add_vhost "$CLOUD_VHOST" > /dev/null
        rabbitmqctl -q set_permissions -p "$CLOUD_VHOST" guest '.*' '.*' '.*' > /dev/null
    fi
}

start_services() {
    local registered=1 identity
    wait "${schema[keystone]}" || rp_die "keystone's schema failed"
    wsgi_api keystone keystone keystone.wsgi.api:application 4 \
        "OS_KEYSTONE_CONFIG_FILES=$etc/keystone/keystone.conf"
    # Registered again when the ports or what register.py registers changed.
    identity=$(cat "$data/ports" "$RP_DIR/cloud/register.py" | sha256sum)
    if [ "$(cat "$data/identity.done" 2> /dev/null)" != "$identity" ]; then
        registered=0
        wait_api keystone "$auth_url"
        register identity
        echo "$identity" > "$data/identity.done"
    fi
    wait "${schema[placement]}" || rp_die "placement's schema failed"
    wsgi_api placement placement placement.wsgi.api:application 2 \
        "OS_PLACEMENT_CONFIG_DIR=$etc/placement"
    wait "${schema[glance]}" || rp_die "glance's schema failed"
    wsgi_api glance glance glance.wsgi.api:application 4 "OS_GLANCE_CONFIG_DIR=$etc/glance"
    wait "${schema[neutron]}" || rp_die "neutron's schema failed"
    # --optimize 1 (python -O) strips the asserts of the ML2 test mechanism driver, written for
    # unit tests, which fail on real port updates.
    wsgi_api neutron neutron neutron.wsgi.api:application 4 "OS_NEUTRON_CONFIG_DIR=$etc/neutron" \
        --optimize 1
    wait "${schema[nova]}" || rp_die "nova's schema failed"
    wsgi_api nova-api nova nova.wsgi.osapi_compute:application 1 "OS_NOVA_CONFIG_DIR=$etc/nova"
    daemon nova-conductor nova "$etc/nova/nova.conf" --log-file "$log/nova-conductor.log"
    daemon nova-scheduler nova "$etc/nova/nova.conf" --log-file "$log/nova-scheduler.log"
    wait "${schema[cinder]}" || rp_die "cinder's schema failed"
    daemon cinder-api cinder "$etc/cinder/cinder.conf"
    daemon cinder-scheduler cinder "$etc/cinder/cinder.conf"
    daemon cinder-volume cinder "$etc/cinder/cinder.conf"
    # nova-compute reports its node to Placement (found through the catalog) as it starts, and
    # only a minute later when that fails.
    [ "$registered" = 0 ] || wait_api keystone "$auth_url"
    wait_api placement "http://127.0.0.1:${port[placement]}/"
    daemon nova-compute nova "$etc/nova/nova-cpu.conf" --log-file "$log/nova-compute.log"
}

wait_services() {
    local host=host-ovs-filter-active name
    for name in glance neutron nova-api cinder-api; do
        wait_api "$name" "http://127.0.0.1:${port[${name%-api}]}/"
    done
    wait_rpc nova-conductor:conductor nova-scheduler:scheduler "nova-compute:compute.$host" \
        cinder-scheduler:cinder-scheduler cinder-volume:cinder-volume.loopback@fake
    if [ "$(cloud_sql "SELECT COUNT(*) FROM ${CLOUD_PREFIX}nova_api.host_mappings")" = 0 ]; then
        rp_quiet "$log/discover-hosts.log" nova_manage cell_v2 discover_hosts
        rp_log "compute host mapped to cell1"
    fi
}

# clouds_entry NAME USER PROJECT: one cloud of clouds.yaml.
clouds_entry() {
    cat << EOF
  $1:
    auth:
      auth_url: $auth_url
      username: $2
      password: $password
      project_name: $3
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
    interface: public
    identity_api_version: 3
EOF
}

write_client_config() {
    {
        echo "# The loopback cloud of tools/cloud-up.sh (OS_CLIENT_CONFIG_FILE=$state/clouds.yaml)."
        echo "clouds:"
        clouds_entry loopback demo demo
        clouds_entry loopback-admin admin admin
    } > "$state/clouds.yaml"
    cat > "$env_file" << EOF
export THERMIK_CLOUD_CONFIG=$state/clouds.yaml
export THERMIK_CLOUD=loopback
export THERMIK_CLOUD_ADMIN=loopback-admin
export THERMIK_CLOUD_AUTH_URL=$auth_url
export THERMIK_CLOUD_IMAGE=thermik-tiny
export THERMIK_CLOUD_FLAVOR=m1.tiny
export THERMIK_CLOUD_PUBLIC_NETWORK=public
EOF
}

all_alive() {
    local entry
    for entry in "${CLOUD_PROCESSES[@]}"; do
        cloud_alive "${entry%%:*}" || return 1
    done
}

install() {
    local service pids=()
    rp_uv > /dev/null
    rp_build_uwsgi &
    pids+=($!)
    for service in "${CLOUD_APIS[@]}"; do
        rp_venv "$service" > /dev/null &
        pids+=($!)
    done
    for service in "${pids[@]}"; do
        wait "$service" || rp_die "a venv did not install (see above)"
    done
}

export PYTHONWARNINGS=ignore
if all_alive && [ -f "$env_file" ]; then
    rp_log "already running"
else
    install
    rm -f "$env_file"
    cloud_stop_all
    prepare
    schemas
    start_services
    wait_services
    [ -f "$data/resources.done" ] || {
        register resources
        touch "$data/resources.done"
    }
    write_client_config
    rp_log "up: $auth_url"
fi
cat "$env_file"
