#!/usr/bin/env bash
# End-to-end benchmarks (issues 10 and 22): recovery after kill -9 vs state size (up to 10^7 keys,
# the state loaded through the changelog), exactly-once throughput on a real broker, and peak RSS with
# 50 stores; ours (both strategies) vs Kafka 4.4's transactional RocksDB store (the reference) vs
# Kafka's store with the flag off, and in the throughput part Kafka's in-memory stores and a no-state
# app as ceilings. See bench/README.md.
#
#   bench/e2e.sh                  # build, then everything at full size -> bench/results/e2e.json (see bench/README.md for times)
#   bench/e2e.sh --smoke          # everything on tiny sizes (~2 min), into a temp dir; figures mean nothing
#   bench/e2e.sh -De2e.parts=recovery,throughput -De2e.recovery.kills=2   # replaces those parts in
#                                 # bench/results/e2e.json, keeps the memory part (-De2e.merge=false: a new file)
#
# Options: --smoke (as above; never touches bench/results or docs), --no-build (use the classes and
# jars a previous build of this script left), --no-report (no Markdown/plots; the full run writes
# them to a temp dir, never to docs/), --out DIR (results in DIR/e2e.json instead of bench/results,
# e.g. for an A/B run: -De2e.rocksdb.options=compaction_style=kCompactionStyleLevel). Other arguments are system properties of
# dev.txnrocksdb.it.E2EBench (see its Javadoc).
#
# The build: `mvn package` of the tests and bench modules with the reactor (-pl tests,bench -am), which
# runs `cargo build --release --workspace` with CARGO_TARGET_DIR (default target/), and writes each
# module's classpath to target/classpath.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
build=true
report=true
props=()
out_dir=
expect_out=false
for arg in "$@"; do
  if $expect_out; then out_dir="$arg"; expect_out=false; continue; fi
  case "$arg" in
    --out) expect_out=true ;;
    --smoke) smoke=true ;;
    --no-build) build=false ;;
    --no-report) report=false ;;
    -D*) props+=("$arg") ;;
    *) echo "bench/e2e.sh: unknown argument $arg (expected --smoke, --no-build, --no-report, --out DIR or -Dname=value)" >&2; exit 2 ;;
  esac
done
$expect_out && { echo "bench/e2e.sh: --out needs a directory" >&2; exit 2; }

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
if $build; then
  mvn -B -q -Dcargo.target.dir="$target_dir" -pl tests,bench -am package -DskipTests \
    dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
fi
for f in tests/target/classpath.txt tests/target/test-classes/dev/txnrocksdb/it/E2EBench.class bench/target/benchmarks.jar; do
  [[ -f $f ]] || { echo "bench/e2e.sh: $f missing; run without --no-build" >&2; exit 1; }
done

commit="$(git rev-parse --short HEAD 2>/dev/null || true)"
if [[ -n $commit && -n "$(git status --porcelain --untracked-files=no -- rust java bench tests 2>/dev/null)" ]]; then
  commit="$commit+uncommitted changes"
fi

if $smoke; then
  [[ -n $out_dir ]] || out_dir="$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-e2e-smoke.XXXXXX")"
  props=(-De2e.smoke=true "${props[@]}")
else
  [[ -n $out_dir ]] || out_dir=bench/results
fi
mkdir -p "$out_dir"

java -De2e.out="$out_dir/e2e.json" -De2e.benchJar=bench/target/benchmarks.jar \
  -De2e.command="bench/e2e.sh${*:+ $*}" -De2e.gitCommit="$commit" "${props[@]}" \
  -cp "tests/target/test-classes:$(cat tests/target/classpath.txt)" dev.txnrocksdb.it.E2EBench

if $report; then
  if command -v python3 >/dev/null 2>&1; then
    plots="$out_dir"
    [[ $out_dir == bench/results ]] && plots="$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-e2e-report.XXXXXX")"
    python3 bench/report_e2e.py --results "$out_dir/e2e.json" --out "$plots"
    echo "e2e: results in $out_dir/e2e.json, report and plots in $plots"
  else
    echo "bench/e2e.sh: no python3, so no report" >&2
  fi
fi
