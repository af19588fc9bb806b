#!/usr/bin/env bash
# Installs the msport server from this repository, with its pure-Python dependencies, into
# bundled/libs, so that msport.importStrategy=useBundled needs nothing in the user's Python.
# usage: scripts/bundle-server.sh [PYTHON]   (default python3; any Python 3.9+ with pip)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
REPO=$(cd .. && pwd)
WHEELS=$(mktemp -d)
trap 'rm -rf "$WHEELS"' EXIT
rm -rf bundled/libs
"$PY" -m pip wheel --disable-pip-version-check -q --no-deps -w "$WHEELS" "$REPO"
# Pure-Python wheels only, so one .vsix serves every platform. Markers are evaluated for the
# Python running pip, so the backports msport needs on Python 3.9/3.10 are named explicitly.
"$PY" -m pip install --disable-pip-version-check -q --no-compile --target bundled/libs \
  --only-binary=:all: --implementation py --python-version 3.9 \
  "$WHEELS"/msport-*.whl "tomli>=1.1" "exceptiongroup>=1.1.1"
rm -rf bundled/libs/bin
find bundled/libs -name __pycache__ -type d -prune -exec rm -rf {} +
echo "bundled: $(ls bundled/libs | grep -c dist-info) packages in bundled/libs"
