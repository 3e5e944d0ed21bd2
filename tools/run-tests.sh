#!/usr/bin/env bash
# Set up .venv and run every check: lint, format, types, config sample, and the whole test suite.
# In CI (CI=true) tests that need real services fail instead of skipping when one is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh test
if [ -n "${CI:-}" ]; then
    export THERMIK_REQUIRE_SERVICES=1
fi
echo "== ruff"; .venv/bin/ruff check thermik tests bench tools
echo "== ruff format"; .venv/bin/ruff format --check thermik tests bench tools
echo "== mypy"; .venv/bin/mypy
echo "== pytest"; .venv/bin/pytest -q -p no:cacheprovider "$@"
