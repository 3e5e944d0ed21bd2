# What tools/cloud-up.sh and tools/cloud-down.sh share about the loopback cloud: where it lives,
# what its databases, RabbitMQ vhost and processes are called. Source it after realparts/lib.sh.

state=$RP_STATE/cloud
env_file=$RP_STATE/cloud.env
etc=$state/etc
data=$state/data
log=$state/log
run=$state/run

# The services with an HTTP API, in the order of data/ports.
CLOUD_APIS=(keystone glance placement nova neutron cinder)
CLOUD_DATABASES=(keystone glance placement nova_api nova_cell0 nova neutron cinder)
# Every process, as NAME:VENV. Each runs in a process group of its own (pid = pgid).
CLOUD_PROCESSES=(keystone:keystone glance:glance placement:placement nova-api:nova
    nova-conductor:nova nova-scheduler:nova nova-compute:nova neutron:neutron
    cinder-api:cinder cinder-scheduler:cinder cinder-volume:cinder)

# Databases and vhost are named after the state dir, so that two work trees on one machine have
# clouds of their own, and a state dir always finds its own databases again.
CLOUD_TAG=$(printf %s "$state" | sha1sum | cut -c1-8)
CLOUD_PREFIX=thermik_cloud_${CLOUD_TAG}_
CLOUD_VHOST=thermik_cloud_$CLOUD_TAG

cloud_db_url() {
    echo "mysql+pymysql://root@127.0.0.1:3306/$CLOUD_PREFIX"
}

cloud_rabbit_url() {
    echo "rabbit://guest:guest@127.0.0.1:5672/$CLOUD_VHOST"
}

cloud_sql() {
    mysql -uroot -h127.0.0.1 -P3306 -N -B -e "$1"
}

# cloud_mark NAME: what the command line of process NAME contains (its config file, or its
# uWSGI socket), so that a recycled pid is never taken for it.
cloud_mark() {
    cat "$run/$1.mark" 2> /dev/null || echo "no mark for $1"
}

cloud_alive() {
    rp_alive "$run/$1.pid" "$(cloud_mark "$1")"
}

# cloud_stop_all: stop every process group we started: SIGINT to uWSGI masters (their SIGTERM
# is a graceful stop that can take half a minute), SIGTERM to the others, SIGKILL to what is
# left after 30 s.
cloud_stop_all() {
    local entry name pid signal i left
    for entry in "${CLOUD_PROCESSES[@]}"; do
        name=${entry%%:*}
        cloud_alive "$name" || { rm -f "$run/$name.pid"; continue; }
        pid=$(cat "$run/$name.pid")
        signal=TERM
        grep -q -- '--http-socket' "/proc/$pid/cmdline" 2> /dev/null && signal=INT
        kill -"$signal" -- "-$pid" 2> /dev/null || true
    done
    for i in $(seq 300); do
        left=0
        for entry in "${CLOUD_PROCESSES[@]}"; do
            [ -f "$run/${entry%%:*}.pid" ] && kill -0 -- "-$(cat "$run/${entry%%:*}.pid")" \
                2> /dev/null && left=1
        done
        [ "$left" = 0 ] && break
        sleep 0.1
    done
    for entry in "${CLOUD_PROCESSES[@]}"; do
        name=${entry%%:*}
        [ -f "$run/$name.pid" ] || continue
        kill -KILL -- "-$(cat "$run/$name.pid")" 2> /dev/null && rp_log "killed $name"
        rm -f "$run/$name.pid"
    done
}

# cloud_drop_data: the databases, the vhost and the state dir (a fresh start makes them again).
cloud_drop_data() {
    local db
    for db in "${CLOUD_DATABASES[@]}"; do
        cloud_sql "DROP DATABASE IF EXISTS $CLOUD_PREFIX$db"
    done
    rabbitmqctl -q delete_vhost "$CLOUD_VHOST" > /dev/null 2>&1 || true
    rm -rf "$state"
}
