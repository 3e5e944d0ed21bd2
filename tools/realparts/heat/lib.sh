# What tools/heat-up.sh and tools/heat-down.sh share about real Heat on the loopback cloud:
# where it lives and what its database, RabbitMQ vhost, Keystone users and processes are called.
# Source it after realparts/lib.sh.

heat_state=$RP_STATE/heat
heat_env_file=$RP_STATE/heat.env
heat_etc=$heat_state/etc
heat_data=$heat_state/data
heat_log=$heat_state/log
heat_run=$heat_state/run

# Named after the state dir, so that Heats of two work trees on one cloud keep apart.
HEAT_TAG=$(printf %s "$heat_state" | sha1sum | cut -c1-8)
HEAT_DB=thermik_heat_$HEAT_TAG
HEAT_VHOST=thermik_heat_$HEAT_TAG
HEAT_USER=heat-$HEAT_TAG
HEAT_DOMAIN=heat-$HEAT_TAG
HEAT_DOMAIN_ADMIN=heat-$HEAT_TAG-admin
# Every process, each in a process group of its own (pid = pgid).
HEAT_PROCESSES=(heat-api heat-engine)

heat_sql() {
    mysql -uroot -h127.0.0.1 -P3306 -N -B -e "$1"
}

heat_mark() {
    cat "$heat_run/$1.mark" 2> /dev/null || echo "no mark for $1"
}

heat_alive() {
    rp_alive "$heat_run/$1.pid" "$(heat_mark "$1")"
}

# heat_cloud: the cloud's variables (THERMIK_CLOUD_CONFIG ...), from the environment when set,
# else from the env file tools/cloud-up.sh wrote; fails when there is neither.
heat_cloud() {
    if [ -z "${THERMIK_CLOUD_CONFIG:-}" ]; then
        [ -f "$RP_STATE/cloud.env" ] || return 1
        . "$RP_STATE/cloud.env"
    fi
}

# heat_stop_all: SIGINT to uWSGI (its SIGTERM is a graceful stop that can take half a minute),
# SIGTERM to heat-engine (a master and its worker), SIGKILL to what is left after 30 s.
heat_stop_all() {
    local name pid i left
    for name in "${HEAT_PROCESSES[@]}"; do
        heat_alive "$name" || { rm -f "$heat_run/$name.pid"; continue; }
        pid=$(cat "$heat_run/$name.pid")
        if [ "$name" = heat-api ]; then
            kill -INT -- "-$pid" 2> /dev/null || true
        else
            kill -TERM -- "-$pid" 2> /dev/null || true
        fi
    done
    for i in $(seq 300); do
        left=0
        for name in "${HEAT_PROCESSES[@]}"; do
            [ -f "$heat_run/$name.pid" ] && kill -0 -- "-$(cat "$heat_run/$name.pid")" \
                2> /dev/null && left=1
        done
        [ "$left" = 0 ] && break
        sleep 0.1
    done
    for name in "${HEAT_PROCESSES[@]}"; do
        [ -f "$heat_run/$name.pid" ] || continue
        kill -KILL -- "-$(cat "$heat_run/$name.pid")" 2> /dev/null && rp_log "killed $name"
        rm -f "$heat_run/$name.pid"
    done
}
