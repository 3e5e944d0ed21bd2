#!/usr/bin/env bash
# Build the documentation, warnings as errors: HTML in doc/build/html, the man pages of
# thermik, thermik-api, thermik-engine and thermik-manage in doc/build/man. The man build
# reuses the HTML build's doctrees, so it only writes. Needs the [docs] extra
# (tools/bootstrap.sh test,docs) and Graphviz's dot for the diagrams.
# Usage: tools/build-docs.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-.venv/bin/python}
if ! command -v dot > /dev/null; then
    echo "build-docs: the diagrams need Graphviz's dot (apt-get install graphviz)" >&2
    exit 1
fi
rm -rf doc/build
for builder in html man; do
    "$python" -m sphinx -W --keep-going -q -d doc/build/doctrees -b "$builder" \
        doc/source "doc/build/$builder"
done
