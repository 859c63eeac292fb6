#!/usr/bin/env bash
# Runs every test: the Rust engine's (unit, property, crash) and then the Java library's (store,
# topology and crash tests, with -Xcheck:jni), building the native library once in release mode.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
# Release profile for tests too: RocksDB's C++ then compiles once for tests and the jar.
cargo test --release --workspace
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --release --workspace --all-targets -- -D warnings
fi
mvn -B --no-transfer-progress install -Dcargo.target.dir="${CARGO_TARGET_DIR:-$PWD/target}"
