#!/usr/bin/env bash
# Benchmarks txn-rocksdb's transactional stores (both strategies) against Kafka 4.4's RocksDB
# stores with enable.transactional.statestores=true (the reference), the same with the flag off,
# and Kafka's in-memory stores; then the engine alone (rust/core/benches/engine.rs) on the same
# operations and data; then regenerates docs/benchmarks.md and its plots.
#
#   bench/run.sh                      # build, check, 3 rounds of everything (~55 min on 2 cores), engine, report
#   bench/run.sh --smoke              # every benchmark once on tiny data (~30 s), into a temp dir
#   bench/run.sh -Dbench.rounds=1 -Dbench.include='ReadBenchmark.range' -Dbench.stores=txn,kafka-txn --out /tmp/range
#
# Options: --smoke (as above; never touches bench/results or docs), --no-build (use the jars
# already built), --no-report (leave docs/ alone), --no-engine (skip the engine bench), --out DIR
# (results, and the report unless --no-report, in DIR instead of bench/results and docs/: for
# partial runs). Other arguments are JVM system properties for CompareStores (see its Javadoc:
# bench.rounds, bench.include, bench.stores, bench.iterations, bench.fullScanKeys=1000000, ...).
# Results: bench/results/latest.{md,json} plus JMH's JSON.
#
# The engine bench runs the operations the JMH run measured, on its sizes and parameters
# (`report.py --engine-env`), for the indexed-batch strategy (TXN_ROCKSDB_BENCH_STRATEGIES=
# indexed-batch,secondary-store for both), with criterion's output in <target>/criterion-bench-run
# (in the temp dir for a smoke run, in criterion's quick mode); `report.py --add-engine` adds its
# results to latest.json. `cargo bench` builds only the bench itself when `cargo test --release
# --workspace` ran before (the same RocksDB build), also with --no-build.
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
engine=true
out_dir=
props=()
args=("$@")
while (($#)); do
  case "$1" in
    --smoke) smoke=true ;;
    --no-build) build=false ;;
    --no-report) report=false ;;
    --no-engine) engine=false ;;
    --out) [[ $# -ge 2 ]] || { echo "bench/run.sh: --out needs a directory" >&2; exit 2; }; out_dir="$2"; shift ;;
    --out=*) out_dir="${1#--out=}" ;;
    -D*) props+=("$1") ;;
    *) echo "bench/run.sh: unknown argument $1 (expected --smoke, --no-build, --no-report, --no-engine, --out DIR or -Dname=value)" >&2
       exit 2 ;;
  esac
  shift
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

docs_dir=docs
if $smoke; then
  out_dir="$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-bench-smoke.XXXXXX")"
  props=(-Dbench.smoke=true "${props[@]}")
fi
if [[ -n $out_dir ]]; then
  mkdir -p "$out_dir"
  docs_dir="$out_dir"
else
  out_dir=bench/results
fi
has_python=false
command -v python3 >/dev/null 2>&1 && has_python=true

# No -Xcheck:jni here: it checks every JNI call and would slow our stores' numbers.
java -Dbench.out="$out_dir/latest.md" -Dbench.command="bench/run.sh${args[*]:+ ${args[*]}}" -Dbench.gitCommit="$commit" \
  "${props[@]}" -cp "$jar" dev.txnrocksdb.bench.CompareStores

if $engine && ! $has_python && $smoke; then
  echo "bench/run.sh: no python3, so no engine bench (smoke run)" >&2
elif $engine; then
  engine_env_lines="$(python3 bench/report.py --results "$out_dir/latest.json" --engine-env)"
  if [[ -z $engine_env_lines ]]; then
    echo "bench/run.sh: the JMH run measured none of the engine bench's operations, so no engine bench"
  else
    mapfile -t engine_env <<<"$engine_env_lines"
    if $smoke; then
      criterion_home="$(cd "$out_dir" && pwd)/criterion"
      criterion_args=(--quick --measurement-time 0.1 --nresamples 1000)
    else
      # JMH's default times (2 x 1 s warmup, 5 x 1 s measured), so the stores put and restore into
      # grow as far as JMH's do.
      criterion_home="$target_dir/criterion-bench-run"
      criterion_args=(--warm-up-time 2 --measurement-time 5)
    fi
    rm -rf "$criterion_home"
    engine_command="cargo bench --workspace --bench engine -- ${criterion_args[*]}"
    echo "Engine alone: $engine_command (${engine_env[*]})"
    env "${engine_env[@]}" TXN_ROCKSDB_BENCH_STRATEGIES="${TXN_ROCKSDB_BENCH_STRATEGIES:-indexed-batch}" \
      CRITERION_HOME="$criterion_home" CARGO_TARGET_DIR="$target_dir" \
      cargo bench --workspace --bench engine -- "${criterion_args[@]}"
    python3 bench/report.py --results "$out_dir/latest.json" --add-engine "$criterion_home" \
      --engine-command "$engine_command"
  fi
fi

if $report; then
  if $smoke; then
    if $has_python; then
      python3 bench/report.py --results "$out_dir/latest.json" --docs "$docs_dir"
    else
      echo "bench/run.sh: no python3, so no report (smoke run)" >&2
    fi
    echo "Smoke run: results and report in $out_dir"
  else
    python3 bench/report.py --results "$out_dir/latest.json" --docs "$docs_dir"
  fi
fi
