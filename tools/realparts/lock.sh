#!/usr/bin/env bash
# Regenerate the hash-pinned locks (requirements/*.txt) from the top-level pins (*.in). Run it
# after editing an .in file and commit both; the venvs rebuild themselves when a lock changes.
# Usage: lock.sh [NAME...] (default: every requirements/*.in; NAME is e.g. nova for nova.in).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
uv=$(rp_uv)
specs=("$RP_DIR"/requirements/*.in)
if [ $# -gt 0 ]; then
    specs=()
    for name in "$@"; do
        specs+=("$RP_DIR/requirements/$name.in")
    done
fi
for spec in "${specs[@]}"; do
    rp_log "locking $(basename "$spec")"
    (cd "$RP_DIR/requirements" && "$uv" pip compile -q --generate-hashes --python-version 3.11 \
        --custom-compile-command tools/realparts/lock.sh \
        -o "$(basename "$spec" .in).txt" "$(basename "$spec")")
done
