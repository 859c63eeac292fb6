#!/usr/bin/env bash
# Runs the Rust tests (the engine's unit, property, crash-point, power-loss and concurrency tests,
# the format crate's, the JNI crate's) under AddressSanitizer, which on Linux includes
# LeakSanitizer: heap and stack overflows, use after free, double free and leaks, in our Rust and
# in RocksDB's C++, which is compiled instrumented too (clang, -fsanitize=address).
#
#   scripts/sanitize.sh [cargo test arguments...]    e.g. scripts/sanitize.sh -p txn-rocksdb-format
#
# Cost: the instrumented build compiles RocksDB's C++ once more, with clang and ASan (about an hour
# on a cold 2-core machine; later runs reuse $CARGO_TARGET_DIR/sanitize, else target/sanitize),
# and the tests run 2-3x slower. Needs Rust nightly (-Zsanitizer) and clang (scripts/install-deps.sh
# installs it); installs nightly when missing. Not part of ./test.sh for that hour.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
command -v clang >/dev/null && command -v clang++ >/dev/null || scripts/install-deps.sh
triple=$(rustc -vV | sed -n 's/^host: //p')
triple_env=${triple//-/_}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/sanitize"
# Rust: instrumented, frame pointers for whole stacks, line tables for file:line in reports.
# --target keeps the flags off build scripts and proc macros (they run on the host, uninstrumented).
export RUSTFLAGS="-Zsanitizer=address -Cforce-frame-pointers=yes -Cdebuginfo=line-tables-only"
export RUSTDOCFLAGS="$RUSTFLAGS"
# C and C++ (RocksDB, lz4) through the cc crate: the same sanitizer, from clang.
export "CC_${triple_env}=clang" "CXX_${triple_env}=clang++"
export "CFLAGS_${triple_env}=-fsanitize=address -fno-omit-frame-pointer -gline-tables-only"
export "CXXFLAGS_${triple_env}=-fsanitize=address -fno-omit-frame-pointer -gline-tables-only"
# The power-loss test builds its LD_PRELOAD shim with $CC; a preloaded library is fine with the
# statically linked ASan runtime.
export CC=clang
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:verify_asan_link_order=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan.supp:print_suppressions=0}"
echo "==> cargo +nightly test under AddressSanitizer + LeakSanitizer (target dir: $CARGO_TARGET_DIR)"
if [[ $# -eq 0 ]]; then
  set -- --workspace
fi
# Skipped: the one test that measures peak RSS (ASan's shadow memory and its quarantine of freed
# blocks make RSS meaningless); its memory is still checked for errors and leaks by the others.
cargo +nightly test --release --no-fail-fast --target "$triple" "$@" -- \
  --skip secondary_store_commits_a_transaction_far_larger_than_memory_with_flat_rss
