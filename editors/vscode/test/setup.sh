#!/usr/bin/env bash
# Installs what the VS Code end-to-end test (test/e2e.mjs) needs, idempotently:
#   * Debian's chromium (driven headless by playwright-core) and libkrb5-dev
#     (code-server's kerberos module builds against it);
#   * the extension's npm dependencies (`npm ci` in editors/vscode);
#   * code-server (VS Code served on localhost) from npm, into
#     target/editor-tools/code-server.
# code-server's VS Code installs @vscode/ripgrep, whose postinstall downloads
# rg from outside the registries; we serve that download from its cache,
# filled with the rg of the npm package @vscode/ripgrep-linux-<arch>.
# Needs root for apt-get (CI and the dev machines run as root).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXT="$(cd "$HERE/.." && pwd)"
ROOT="$(cd "$EXT/../.." && pwd)"
TOOLS="${SLANG_EDITOR_TOOLS:-$ROOT/target/editor-tools}"
CS_DIR="$TOOLS/code-server"
# code-server 4.100.x is VS Code 1.100 and needs node 20.
CODE_SERVER_VERSION=4.100.3
# What that VS Code's npm-shrinkwrap.json pins, and the rg release that
# @vscode/ripgrep 1.15.11's postinstall asks for.
RIPGREP_PKG_VERSION=1.15.11
RIPGREP_RELEASE=v13.0.0-10
RIPGREP_BIN_PKG_VERSION=1.18.0

step_start=$(date +%s)
step() {
  local now
  now=$(date +%s)
  echo "setup.sh: [$((now - step_start))s] $*"
}

# 1. Debian packages.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v node >/dev/null || missing+=(nodejs npm)
command -v make >/dev/null && command -v g++ >/dev/null || missing+=(build-essential)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  echo "setup.sh: code-server $CODE_SERVER_VERSION needs node 20; this is node $(node --version)" >&2
  exit 1
fi

# 2. The extension's dependencies (typescript, esbuild, vsce, playwright-core …).
if [ ! -f "$EXT/node_modules/.package-lock.json" ] || [ "$EXT/package-lock.json" -nt "$EXT/node_modules/.package-lock.json" ]; then
  step "npm ci in $EXT"
  (cd "$EXT" && npm ci --no-audit --no-fund --loglevel=error)
fi

# 3. code-server.
cs_bin="$CS_DIR/node_modules/.bin/code-server"
if [ -x "$cs_bin" ] && [ -f "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]; then
  step "code-server $CODE_SERVER_VERSION already in $CS_DIR"
else
  step "installing code-server $CODE_SERVER_VERSION into $CS_DIR"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR/tmp"
  case "$(uname -m)" in
    x86_64) rg_arch=x64 rg_target=x86_64-unknown-linux-musl ;;
    aarch64) rg_arch=arm64 rg_target=aarch64-unknown-linux-musl ;;
    *) echo "setup.sh: no rg for $(uname -m)" >&2; exit 1 ;;
  esac
  # The pre-filled ripgrep download cache (a private TMPDIR for the install).
  export TMPDIR="$CS_DIR/tmp"
  cache="$TMPDIR/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION"
  mkdir -p "$cache" "$CS_DIR/tmp/rg"
  (cd "$CS_DIR/tmp/rg" &&
    npm pack --silent "@vscode/ripgrep-linux-$rg_arch@$RIPGREP_BIN_PKG_VERSION" >/dev/null &&
    tar xzf ./*.tgz &&
    cp package/bin/rg ./rg && chmod 755 rg &&
    tar czf "$cache/ripgrep-$RIPGREP_RELEASE-$rg_target.tar.gz" rg)
  echo '{"name": "slang-analyzer-editor-tools", "private": true}' >"$CS_DIR/package.json"
  # code-server's postinstall runs `npm install` in its VS Code, whose native
  # modules (node-pty, spdlog, kerberos, watcher …) build or fetch with
  # install scripts: allow them for this install only (npm 11 blocks
  # dependency scripts by default), and let node-pty's `npx node-gyp` run.
  (cd "$CS_DIR" &&
    npm_config_yes=true npm_config_dangerously_allow_all_scripts=true \
      npm install --unsafe-perm --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION")
  "$cs_bin" --version >/dev/null
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
  rm -rf "$CS_DIR/tmp"
fi
step "done: $("$cs_bin" --version | head -1), $(/usr/bin/chromium --version 2>/dev/null)"
