#!/usr/bin/env bash
# Benchmarks txn-rocksdb's transactional store against Kafka Streams' built-in RocksDB store and
# writes the comparison to bench/results/latest.md (and JMH's JSON to latest.json).
#
#   bench/run.sh                                   # everything, modest defaults (~2-3 min on 2 cores)
#   bench/run.sh -Dbench.include='ReadBenchmark.get' -Dbench.iterations=5 -Dbench.time=5s
#
# Arguments are passed to the JVM before the main class (see CompareStores for the properties).
# The native library is built by cargo only if $CARGO_TARGET_DIR (default target/)/release/libtxn_rocksdb_jni.so
# is missing; a library left by `cargo test` carries the test-only crash points (inert unless
# TXN_ROCKSDB_FAULT is set), so build with `cargo build --release --workspace` first for clean numbers.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
cargo_skip=true
if [[ ! -f "$target_dir/release/libtxn_rocksdb_jni.so" ]]; then
  cargo_skip=false
fi
mvn -B -q -Dcargo.skip="$cargo_skip" -Dcargo.target.dir="$target_dir" -pl java,bench -am install -DskipTests

# No -Xcheck:jni here: it checks every JNI call and would slow the txn store's numbers.
exec java -Dbench.out=bench/results/latest.md "$@" \
  -cp bench/target/benchmarks.jar dev.txnrocksdb.bench.CompareStores
