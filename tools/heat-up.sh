#!/usr/bin/env bash
# Start real OpenStack Heat 27 on the loopback cloud of tools/cloud-up.sh, as the reference
# bench/cloud_bench.py compares Thermik with: heat-engine (one worker, convergence) and heat-api
# (uWSGI, one process) on a free 127.0.0.1 port, installed from PyPI into .venv-heat. Its
# database lives on the machine's MariaDB (thermik_heat_<tag>), RPC on its RabbitMQ (vhost
# thermik_heat_<tag>), <tag> coming from the state dir's path; its Keystone users are the
# service user heat-<tag> and the stack-user domain heat-<tag> with its admin (no catalog entry:
# clients are given the URL). Config, data and logs live under $THERMIK_STATE_DIR/heat (default
# .state/heat); tools/heat-down.sh stops it, --purge wipes it all.
# The cloud is the one of THERMIK_CLOUD_CONFIG when set (source another tree's .state/cloud.env
# to use its cloud), else of .state/cloud.env. THERMIK_HEAT_LOG_REQUESTS=1 has Heat log each
# request it sends to the cloud (the client libraries' request debug lines only: what
# bench/cloud_bench.py counts Heat's own requests with); THERMIK_HEAT_DEBUG=1 all debug lines.
# When it is up, .state/heat.env says how to reach it:
#   THERMIK_HEAT_URL         heat-api's v1 root (append /<project id>)
#   THERMIK_HEAT_CLOUD_CONFIG, THERMIK_HEAT_CLOUD   the clouds.yaml and cloud to call it as
#   THERMIK_HEAT_ENGINE_PID, THERMIK_HEAT_API_PID   process groups (for their CPU time)
#   THERMIK_HEAT_ENGINE_LOG, THERMIK_HEAT_LOG_REQUESTS, THERMIK_HEAT_DEBUG
# Running it again while Heat is up with the same configuration only prints the env file; a
# changed configuration (another cloud, THERMIK_HEAT_LOG_REQUESTS, THERMIK_HEAT_DEBUG) restarts
# it.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
. "$RP_DIR/heat/lib.sh"

QUIET_LEVELS=amqp=WARN,amqplib=WARN,sqlalchemy=WARN,oslo.messaging=INFO,oslo_messaging=INFO
QUIET_LEVELS+=,iso8601=WARN,stevedore=WARN,urllib3=WARN,routes=WARN,oslo_policy=INFO
QUIET_LEVELS+=,keystonemiddleware=INFO,heat=INFO

# load_port: the port of the last start when heat-api still has it or it is free, else a new
# free one.
load_port() {
    port=$(cat "$heat_data/port" 2> /dev/null || true)
    if [ -n "$port" ] && [ "$(heat_mark heat-api)" = "127.0.0.1:$port" ] && heat_alive heat-api; then
        return
    fi
    if [ -z "$port" ] || (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
        port=$(rp_free_ports 1)
        echo "$port" > "$heat_data/port"
    fi
}

# render_config OUT: heat.conf for this cloud, port and debug setting.
render_config() {
    local debug=False levels=$QUIET_LEVELS,keystoneauth=WARN auth_url=$THERMIK_CLOUD_AUTH_URL
    if [ "${THERMIK_HEAT_LOG_REQUESTS:-0}" = 1 ] || [ "${THERMIK_HEAT_DEBUG:-0}" = 1 ]; then
        # Each client library logs its requests through a logger of its own.
        levels=$QUIET_LEVELS,keystoneauth=DEBUG,openstack=DEBUG,novaclient=DEBUG
        levels+=,neutronclient=DEBUG,glanceclient=DEBUG,cinderclient=DEBUG,keystoneclient=DEBUG
    fi
    [ "${THERMIK_HEAT_DEBUG:-0}" != 1 ] || debug=True
    rp_render "$RP_DIR/heat/heat.conf.in" "$1" "DEBUG=$debug" "LOG_LEVELS=$levels" \
        "RABBIT=rabbit://guest:guest@127.0.0.1:5672/$HEAT_VHOST" "HOST=$HEAT_USER" \
        "DOMAIN=$HEAT_DOMAIN" "DOMAIN_ADMIN=$HEAT_DOMAIN_ADMIN" "PASSWORD=$password" \
        "DB=mysql+pymysql://root@127.0.0.1:3306/$HEAT_DB?charset=utf8" "ETC=$heat_etc" \
        "PORT=$port" "AUTH_URL=$auth_url" "KEYSTONE=${auth_url%/v3}" "USER=$HEAT_USER" \
        "DATA=$heat_data"
    # Which cloud it was made for, so that another cloud restarts it.
    echo "# cloud: $THERMIK_CLOUD_CONFIG" >> "$1"
}

prepare() {
    heat_sql "CREATE DATABASE IF NOT EXISTS $HEAT_DB CHARACTER SET utf8"
    if ! rabbitmqctl -q list_vhosts | grep -qx "$HEAT_VHOST"; then
        rabbitmqctl -q add_vhost "$HEAT_VHOST" > /dev/null
        rabbitmqctl -q set_permissions -p "$HEAT_VHOST" guest '.*' '.*' '.*' > /dev/null
    fi
    cp "$venv/etc/heat/api-paste.ini" "$heat_etc/api-paste.ini"
    rp_quiet "$heat_log/register.log" env OS_CLIENT_CONFIG_FILE="$THERMIK_CLOUD_CONFIG" \
        HEAT_ADMIN_CLOUD="$THERMIK_CLOUD_ADMIN" HEAT_USER="$HEAT_USER" \
        HEAT_DOMAIN="$HEAT_DOMAIN" HEAT_DOMAIN_ADMIN="$HEAT_DOMAIN_ADMIN" \
        HEAT_PASSWORD="$password" "$venv/bin/python" "$RP_DIR/heat/register.py"
    rp_log "registered $HEAT_USER and the domain $HEAT_DOMAIN in the cloud's Keystone"
    if [ ! -f "$heat_data/dbsync.done" ]; then
        rp_quiet "$heat_log/db-sync.log" "$venv/bin/heat-manage" --config-file "$heat_etc/heat.conf" \
            db_sync
        touch "$heat_data/dbsync.done"
        rp_log "database $HEAT_DB ready"
    fi
}

# spawn NAME MARK CMD...: start process NAME in a process group of its own.
spawn() {
    local name=$1
    echo "$2" > "$heat_run/$name.mark"
    shift 2
    rp_spawn "$heat_run/$name.pid" "$heat_log/$name.out" "$@"
}

start() {
    local socket=127.0.0.1:$port deadline code
    spawn heat-engine "$heat_etc/heat.conf" "$venv/bin/heat-engine" --config-file \
        "$heat_etc/heat.conf" --log-file "$heat_log/heat-engine.log"
    # Connection: close, since uWSGI's HTTP socket resets clients that keep a connection alive.
    spawn heat-api "$socket" env HEAT_CONFIG_FILE="$heat_etc/heat.conf" \
        HEAT_LOG_FILE="$heat_log/heat-api.log" "$(rp_uwsgi_dir)/bin/uwsgi" --http-socket "$socket" \
        --virtualenv "$venv" --pythonpath "$RP_DIR/heat" --module heat_wsgi_api:application \
        --master --processes 1 --threads 4 --lazy-apps --enable-threads --die-on-term --need-app \
        --buffer-size 65535 --worker-reload-mercy 2 --add-header "Connection: close"
    deadline=$((SECONDS + 300))
    until code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$socket/") &&
        [ "$code" != 000 ] && [ "$code" -lt 500 ]; do
        heat_alive heat-api || { tail -20 "$heat_log/heat-api.out" >&2; rp_die "heat-api died"; }
        [ "$SECONDS" -lt "$deadline" ] || rp_die "heat-api does not answer after 300 s"
        sleep 0.2
    done
    rp_log "heat-api answers"
    until "$venv/bin/python" "$RP_DIR/cloud/queues.py" "$HEAT_VHOST" engine > /dev/null \
        2> "$heat_log/queues.log"; do
        heat_alive heat-engine || {
            tail -20 "$heat_log/heat-engine.out" "$heat_log/heat-engine.log" >&2
            rp_die "heat-engine died"
        }
        [ "$SECONDS" -lt "$deadline" ] || rp_die "heat-engine does not listen after 300 s"
        sleep 0.5
    done
    rp_log "heat-engine listens"
}

write_env() {
    cat > "$heat_env_file" << EOF
export THERMIK_HEAT_URL=http://127.0.0.1:$port/v1
export THERMIK_HEAT_CLOUD_CONFIG=$THERMIK_CLOUD_CONFIG
export THERMIK_HEAT_CLOUD=$THERMIK_CLOUD
export THERMIK_HEAT_ENGINE_PID=$(cat "$heat_run/heat-engine.pid")
export THERMIK_HEAT_API_PID=$(cat "$heat_run/heat-api.pid")
export THERMIK_HEAT_ENGINE_LOG=$heat_log/heat-engine.log
export THERMIK_HEAT_LOG_REQUESTS=${THERMIK_HEAT_LOG_REQUESTS:-0}
export THERMIK_HEAT_DEBUG=${THERMIK_HEAT_DEBUG:-0}
EOF
}

export PYTHONWARNINGS=ignore
heat_cloud || rp_die "no cloud: start it with tools/cloud-up.sh (or source the env file of another" \
    "tree's running one)"
venv=$(rp_venv heat)
rp_build_uwsgi
mkdir -p "$heat_etc" "$heat_log" "$heat_run" "$heat_data/lock"
[ -f "$heat_data/password" ] || rp_random_key > "$heat_data/password"
password=$(cat "$heat_data/password")
load_port
render_config "$heat_etc/heat.conf.new"
if heat_alive heat-engine && heat_alive heat-api && [ -f "$heat_env_file" ] &&
    cmp -s "$heat_etc/heat.conf.new" "$heat_etc/heat.conf"; then
    rm "$heat_etc/heat.conf.new"
    rp_log "already running"
else
    rm -f "$heat_env_file"
    heat_stop_all
    # The port may have been ours until the stop; render again with one free now.
    load_port
    render_config "$heat_etc/heat.conf"
    rm "$heat_etc/heat.conf.new"
    prepare
    start
    write_env
    rp_log "up: http://127.0.0.1:$port/v1"
fi
cat "$heat_env_file"
