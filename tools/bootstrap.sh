#!/usr/bin/env bash
# Create (or refresh) the project virtualenv in .venv with Thermik installed editable.
# Usage: tools/bootstrap.sh [EXTRAS]   e.g. tools/bootstrap.sh test
# It says what it installs before it starts, a line per package while pip collects them, and
# that it reuses .venv when nothing changed; pip's own output goes to .venv/install.log, shown
# when the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/realparts/lib.sh
extras=${1:-}
python=${PYTHON:-python3}
spec="."
[ -n "$extras" ] && spec=".[${extras}]"
# Re-install only when the packaging metadata changed, so repeated runs stay fast.
stamp=".venv/.thermik-${extras:-base}.stamp"
if [ -f "$stamp" ] && [ ! setup.cfg -nt "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ]; then
    rp_log "reusing .venv (Thermik${extras:+ with [$extras]}, installed by an earlier run)"
    exit 0
fi
# Sizes measured from a fresh install (pip download of the dependencies, du of the venv).
if [ -x .venv/bin/python ]; then
    rp_log "updating .venv: Thermik${extras:+ with [$extras]}"
else
    rp_log "creating .venv: Thermik and 76 packages it needs${extras:+, plus the [$extras] extras}" \
        "(about 25 MB to download, 190 MB on disk${extras:+ without the extras})"
    "$python" -m venv .venv
    rp_log "upgrading pip in .venv"
    rp_install .venv/install.log .venv/bin/pip install --progress-bar off --upgrade pip
fi
rp_install .venv/install.log .venv/bin/pip install --progress-bar off -e "$spec"
touch "$stamp"
rp_log ".venv ready"
