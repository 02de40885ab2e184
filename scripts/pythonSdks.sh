#!/usr/bin/env bash
# Makes (once) a Python venv in the tools cache and, on every run, upgrades the newest published
# Azure Storage SDKs for Python (and pytest) into it, so the python-sdks tier (test/python/) always
# tests what `pip install azure-storage-blob` gives a user today. Never pins a version: a newer SDK
# that breaks against the emulator is what the tier is there to show.
# Quiet on success; prints the venv folder on its last line. On failure prints pip's output and exits 1.
# Needs python3 (≥ 3.9) with the venv module; on Debian without ensurepip it apt-get installs python3-venv.
set -euo pipefail

CACHE="${AZURITE_VSCODE_TOOLS_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/storage-emulators-vscode}"
VENV="${AZURITE_VSCODE_PYTHON_VENV:-$CACHE/python-sdks-venv}"
PACKAGES=(azure-storage-blob azure-storage-queue azure-data-tables pytest)

log() { echo "[python-sdks] $*" >&2; }
fail() { log "$*"; exit 1; }

command -v python3 >/dev/null 2>&1 || fail "python3 not found on PATH"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
      if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
      log "apt-get install python3-venv (python3 has no ensurepip)"
      out=$( { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv; } 2>&1 ) \
        || { echo "$out" >&2; fail "apt-get install python3-venv failed"; }
    else
      fail "python3 has no venv/ensurepip module and there is no apt-get to install python3-venv"
    fi
  fi
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  out=$(python3 -m venv "$VENV" 2>&1) || { echo "$out" >&2; fail "python3 -m venv $VENV failed"; }
fi

# Every run: the newest release of each package (pip's own self-check off; quiet unless it fails).
out=$("$VENV/bin/python" -m pip install --upgrade --quiet --disable-pip-version-check --no-input "${PACKAGES[@]}" 2>&1) \
  || { echo "$out" >&2; fail "pip install --upgrade ${PACKAGES[*]} failed"; }
out=$("$VENV/bin/python" -c 'import azure.storage.blob, azure.storage.queue, azure.data.tables, pytest' 2>&1) \
  || { echo "$out" >&2; fail "the SDKs do not import in $VENV"; }
echo "$VENV"
