#!/usr/bin/env bash
# Benchmarks txn-rocksdb's transactional stores (both strategies) against Kafka 4.4's RocksDB
# stores with enable.transactional.statestores=true (the reference), the same with the flag off,
# and Kafka's in-memory stores; then regenerates docs/benchmarks.md and its plots.
#
#   bench/run.sh                      # build, check, 3 rounds of everything (~45 min on 2 cores), report
#   bench/run.sh --smoke              # every benchmark once on tiny data (~15 s), into a temp dir
#   bench/run.sh -Dbench.rounds=1 -Dbench.include='ReadBenchmark.range' -Dbench.stores=txn,kafka-txn
#
# Options: --smoke (as above; never touches bench/results or docs), --no-build (use the jars
# already built), --no-report (leave docs/ alone). Other arguments are JVM system properties for
# CompareStores (see its Javadoc: bench.rounds, bench.include, bench.stores, bench.iterations,
# bench.fullScanKeys=1000000, ...). Results: bench/results/latest.{md,json} plus JMH's JSON.
#
# The build runs `cargo build --release --workspace` (cargo rebuilds only what changed) with
# CARGO_TARGET_DIR (default target/), then `mvn install` of java and bench. A library left by
# `cargo test` carries the test-only crash points (inert unless TXN_ROCKSDB_FAULT is set); the
# cargo build here replaces it.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
build=true
report=true
props=()
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=true ;;
    --no-build) build=false ;;
    --no-report) report=false ;;
    -D*) props+=("$arg") ;;
    *) echo "bench/run.sh: unknown argument $arg (expected --smoke, --no-build, --no-report or -Dname=value)" >&2; exit 2 ;;
  esac
done

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
if $build; then
  mvn -B -q -Dcargo.target.dir="$target_dir" -pl java,bench -am install -DskipTests
fi
jar=bench/target/benchmarks.jar
[[ -f $jar ]] || { echo "bench/run.sh: $jar missing; run without --no-build" >&2; exit 1; }

commit="$(git rev-parse --short HEAD 2>/dev/null || true)"
if [[ -n $commit && -n "$(git status --porcelain --untracked-files=no -- rust java bench 2>/dev/null)" ]]; then
  commit="$commit+uncommitted changes"
fi

if $smoke; then
  out_dir="$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-bench-smoke.XXXXXX")"
  props=(-Dbench.smoke=true "${props[@]}")
else
  out_dir=bench/results
fi

# No -Xcheck:jni here: it checks every JNI call and would slow our stores' numbers.
java -Dbench.out="$out_dir/latest.md" -Dbench.command="bench/run.sh${*:+ $*}" -Dbench.gitCommit="$commit" \
  "${props[@]}" -cp "$jar" dev.txnrocksdb.bench.CompareStores

if $report; then
  if $smoke; then
    if command -v python3 >/dev/null 2>&1; then
      python3 bench/report.py --results "$out_dir/latest.json" --docs "$out_dir"
    else
      echo "bench/run.sh: no python3, so no report (smoke run)" >&2
    fi
    echo "Smoke run: results and report in $out_dir"
  else
    python3 bench/report.py --results "$out_dir/latest.json"
  fi
fi
