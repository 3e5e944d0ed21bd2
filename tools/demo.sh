#!/usr/bin/env bash
# Set up .venv and run the demo on the embedded default (SQLite, in-process engine).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
exec .venv/bin/thermik demo "$@"
