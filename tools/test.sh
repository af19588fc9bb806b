#!/usr/bin/env bash
# The whole test suite, on a fresh machine: creates .venv/, installs msport and everything the
# tests need (real torch 2.13 CPU and mindspore 2.10, which needs numpy<2), then runs pytest.
#
# usage: tools/test.sh [PYTEST ARGS...]                    everything a clone of the repository holds
#        tools/test.sh --upstream-tables [PYTEST ARGS...]  only the tests that read the official
#            mapping tables beside the repository (../shared/data/api_mapping, or the folder named
#            in MSPORT_API_TABLES); .ci/run runs both steps
set -euo pipefail
cd "$(dirname "$0")/.."
UPSTREAM=0
if [ "${1:-}" = --upstream-tables ]; then UPSTREAM=1; shift; fi
PY=${PYTHON:-python3}
VENV=$(realpath -m "${MSPORT_VENV:-.venv}")  # absolute: helper scripts run from other directories
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
pip() { "$VENV/bin/python" -m pip --disable-pip-version-check -q "$@"; }
# torch==2.13.0 resolves to the CPU build; a plain `torch` would pull several GB of CUDA.
pip install "torch==2.13.0" "mindspore==2.10.0" "numpy<2"
pip install -e ".[test,mcp]"
if [ "$UPSTREAM" = 1 ]; then
  TABLES=$(realpath -m "${MSPORT_API_TABLES:-../shared/data/api_mapping}")
  if ! ls "$TABLES"/pytorch_api_mapping_*.csv >/dev/null 2>&1; then
    echo "msport: the upstream-tables step reads the official mapping tables at $TABLES, and they are not there." >&2
    echo "        Put them beside the repository (../shared/data/api_mapping) or name their folder in MSPORT_API_TABLES." >&2
    exit 2
  fi
  export MSPORT_API_TABLES=$TABLES
  exec "$VENV/bin/python" -m pytest -m upstream_tables "$@"
fi
# The SARIF 2.1.0 JSON schema ships in this npm package; the SARIF test validates against it.
SCHEMA=.cache/sarif-2.1.0.json
if [ ! -s "$SCHEMA" ]; then
  mkdir -p .cache/npm && (cd .cache/npm && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null \
    && tar xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json) \
    && cp .cache/npm/package/lib/schemas/sarif-2.1.0-rtm.5.json "$SCHEMA"
fi
export MSPORT_SARIF_SCHEMA=$PWD/$SCHEMA
# Real model code for the coverage test (tests/knowledge/test_coverage.py): timm (an image-model
# zoo) and torchvision (detection models), downloaded from PyPI as wheels and unpacked, never installed.
CORPUS=.cache/corpus
if [ ! -d "$CORPUS/timm/timm" ] || [ ! -d "$CORPUS/torchvision/torchvision" ]; then
  rm -rf "$CORPUS" && mkdir -p "$CORPUS/wheels"
  pip download --no-deps -d "$CORPUS/wheels" "timm==1.0.20" "torchvision==0.28.0"
  "$VENV/bin/python" -m zipfile -e "$CORPUS"/wheels/timm-1.0.20-*.whl "$CORPUS/timm"
  "$VENV/bin/python" -m zipfile -e "$CORPUS"/wheels/torchvision-0.28.0-*.whl "$CORPUS/torchvision"
fi
export MSPORT_CORPUS=$PWD/$CORPUS
# Headless Chromium (Debian's package) renders the HTML report in tests/report/, with a CJK
# font so the Chinese report is drawn in characters rather than empty boxes.
if ! command -v chromium >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null
fi
# Real editors for tests/e2e/ (Neovim, Emacs + eglot, code-server + Playwright driving Chromium)
# and the msport .vsix with the server bundled; idempotent, cached under .cache/e2e/.
bash tools/install-e2e.sh "$VENV/bin/python"
exec "$VENV/bin/python" -m pytest "$@"
