#!/usr/bin/env bash
# Installs the msport server from this repository, with its pure-Python dependencies, into
# bundled/libs, so that msport.importStrategy=useBundled needs nothing in the user's Python.
# `npm run package` runs it before packaging.
#
# usage: scripts/bundle-server.sh [PYTHON]
#   PYTHON: any Python 3.9+ with pip; default $MSPORT_BUNDLE_PYTHON, else the repository's .venv
#   (tools/test.sh makes it), else python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(cd .. && pwd)
if [ -n "${1:-}" ]; then PY=$1
elif [ -n "${MSPORT_BUNDLE_PYTHON:-}" ]; then PY=$MSPORT_BUNDLE_PYTHON
elif [ -x "$REPO/.venv/bin/python" ]; then PY=$REPO/.venv/bin/python
else PY=python3
fi
fail() { echo "msport: cannot bundle the server: $1" >&2; exit 1; }
command -v "$PY" >/dev/null 2>&1 || fail "no Python at '$PY'. Pass one: bash scripts/bundle-server.sh /path/to/python3 (3.9 or newer, with pip)."
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || fail "$PY is older than Python 3.9. Pass a newer one: bash scripts/bundle-server.sh /path/to/python3."
"$PY" -m pip --version >/dev/null 2>&1 || fail "$PY has no pip. Install it (python3 -m ensurepip, or Debian's python3-pip), or pass a Python that has it: bash scripts/bundle-server.sh /path/to/python3."
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
echo "bundled: $(ls bundled/libs | grep -c dist-info) packages in bundled/libs (with $PY)"
