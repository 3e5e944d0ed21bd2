#!/usr/bin/env bash
# Stop the real Heat that tools/heat-up.sh started and remove .state/heat.env. Its database and
# logs stay for a quick restart; --purge also drops the database and the RabbitMQ vhost, removes
# its users and domain from the cloud's Keystone (when the cloud is up) and deletes .state/heat.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
. "$RP_DIR/heat/lib.sh"
rm -f "$heat_env_file"
heat_stop_all
if [ "${1:-}" = --purge ]; then
    if heat_cloud 2> /dev/null && [ -x "$RP_ROOT/.venv-heat/bin/python" ]; then
        OS_CLIENT_CONFIG_FILE=$THERMIK_CLOUD_CONFIG HEAT_ADMIN_CLOUD=$THERMIK_CLOUD_ADMIN \
            HEAT_USER=$HEAT_USER HEAT_DOMAIN=$HEAT_DOMAIN HEAT_DOMAIN_ADMIN=$HEAT_DOMAIN_ADMIN \
            HEAT_PASSWORD=unused "$RP_ROOT/.venv-heat/bin/python" "$RP_DIR/heat/register.py" \
            --remove || rp_log "could not remove $HEAT_USER from the cloud's Keystone"
    fi
    heat_sql "DROP DATABASE IF EXISTS $HEAT_DB"
    rabbitmqctl -q delete_vhost "$HEAT_VHOST" > /dev/null 2>&1 || true
    rm -rf "$heat_state"
fi
rp_log "stopped"
