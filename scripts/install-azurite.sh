#!/usr/bin/env bash
# Installs Azurite, Microsoft's Azure Storage emulator, for the tests of snapshots in Azure Blob
# Storage (rust/core/tests/snapshot_azure.rs): the npm package azurite, pinned, into
# ~/.cache/txn-rocksdb/azurite, once. It needs Node.js and npm
# (Debian's nodejs and npm packages: scripts/install-deps.sh --node installs them when missing).
# The test finds the server at <dir>/node_modules/.bin/azurite-blob, or wherever
# TXN_ROCKSDB_AZURITE says.
#
# 3.35.0: the newest Azurite that runs on Node.js 20 and older (3.36 needs Node.js 21, 3.37 22).
set -euo pipefail
version=3.35.0
dir="$HOME/.cache/txn-rocksdb/azurite"
program="$dir/node_modules/.bin/azurite-blob"
if [[ -x $program ]] && grep -q "\"version\": \"$version\"" "$dir/node_modules/azurite/package.json" 2>/dev/null; then
  exit 0
fi
"$(dirname "$0")/install-deps.sh" --node
mkdir -p "$dir"
echo "installing Azurite $version (npm) into $dir"
npm install --no-audit --no-fund --loglevel=error --prefix "$dir" "azurite@$version" >/dev/null
[[ -x $program ]] || { echo "install-azurite.sh: $program missing after npm install" >&2; exit 1; }
