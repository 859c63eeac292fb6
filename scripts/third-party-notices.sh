#!/usr/bin/env bash
# Writes OUTDIR/THIRD-PARTY-NOTICES.txt and OUTDIR/txn-rocksdb-native.cdx.json (CycloneDX 1.5) for
# the native library txn_rocksdb_jni on every platform of scripts/platform.sh, from Cargo.lock and
# the crates' sources: the Rust crates it links (licence, the one we use of an "A OR B", copyright
# lines, licence texts, NOTICE files), RocksDB and lz4 and the C that ring compiles in. Fails naming
# the crate when a licence is not on deny.toml's allow list or has no text. Details:
# scripts/third_party_notices.py. No tool to install: python3 (3.11+) and cargo.
#
#   scripts/third-party-notices.sh [--check] OUTDIR
#
# --check: also validates the outputs (the SBOM's shape, every crate in both files).
# `cargo fetch --locked` first: a no-op once the crates are there (works offline then); on a fresh
# machine it fetches the other platforms' crates (macOS's, Windows') that a Linux build never does.
# The generator itself runs cargo offline.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo fetch --locked --quiet
exec python3 "$root/scripts/third_party_notices.py" "$@"
