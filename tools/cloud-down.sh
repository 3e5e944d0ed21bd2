#!/usr/bin/env bash
# Stop the loopback cloud tools/cloud-up.sh started and remove .state/cloud.env. Its databases,
# images and logs stay for a warm start (seconds instead of a minute or two of schema
# migrations); --purge drops the databases and the RabbitMQ vhost and deletes .state/cloud.
set -euo pipefail
. "$(dirname "$0")/realparts/lib.sh"
. "$RP_DIR/cloud/lib.sh"
rm -f "$env_file"
cloud_stop_all
if [ "${1:-}" = --purge ]; then
    cloud_drop_data
fi
rp_log "stopped"
