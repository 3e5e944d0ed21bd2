#!/usr/bin/env bash
# Create (or refresh) the project virtualenv in .venv with Thermik installed editable.
# Usage: tools/bootstrap.sh [EXTRAS]   e.g. tools/bootstrap.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras=${1:-}
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
    .venv/bin/pip install -q --upgrade pip
fi
spec="."
[ -n "$extras" ] && spec=".[${extras}]"
# Re-install only when the packaging metadata changed, so repeated runs stay fast.
stamp=".venv/.thermik-${extras:-base}.stamp"
if [ ! -f "$stamp" ] || [ setup.cfg -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    # Build-backend chatter goes to a log; it is shown only when the install fails.
    if ! .venv/bin/pip install -q -e "$spec" > .venv/install.log 2>&1; then
        cat .venv/install.log >&2
        exit 1
    fi
    touch "$stamp"
fi
