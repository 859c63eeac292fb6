#!/usr/bin/env bash
# Large secondary-store transactions (issue 20): one transaction of MIB MiB of incompressible 1 KiB
# values in a store with a 24 MiB memory budget, committed by a copy through the memtable and by SST
# ingestion (`rust/core/src/secondary/ingest.rs`), interleaved, ROUNDS rounds, each in a fresh child
# process (`rust/core/tests/large_transaction.rs`): time to write it, commit time, peak RSS growth.
# Writes bench/results/large-commit.json; bench/report.py puts it in docs/benchmarks.md.
#
#   bench/large_commit.sh                   # 1,024 MiB, 3 rounds (~5 min on 2 cores, ~7 GiB of disk at most)
#   bench/large_commit.sh --mib 4096 --rounds 1
#   bench/large_commit.sh --smoke           # 32 MiB, 1 round, into a temp dir (figures mean nothing)
set -euo pipefail
cd "$(dirname "$0")/.."

mib=1024
rounds=3
smoke=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mib) mib="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --smoke) smoke=true; mib=32; rounds=1; shift ;;
    *) echo "bench/large_commit.sh: unknown argument $1 (expected --mib N, --rounds N or --smoke)" >&2; exit 2 ;;
  esac
done

if $smoke; then
  out_dir="$(mktemp -d "${TMPDIR:-/tmp}/txn-rocksdb-large-commit-smoke.XXXXXX")"
else
  out_dir=bench/results
fi
out="$out_dir/large-commit.json"
commit="$(git rev-parse --short HEAD 2>/dev/null || true)"
if [[ -n $commit && -n "$(git status --porcelain --untracked-files=no -- rust 2>/dev/null)" ]]; then
  commit="$commit+uncommitted changes"
fi

results=()
started=$(date +%s)
for round in $(seq 1 "$rounds"); do
  # alternate which path goes first, so neither always runs on a cooler machine
  paths=(copy ingest)
  (( round % 2 == 0 )) && paths=(ingest copy)
  for path in "${paths[@]}"; do
    line=$(LARGE_TXN_MIB="$mib" LARGE_TXN_COMMIT="$path" LARGE_TXN_STRATEGY=secondary-store \
      cargo test --release --workspace --test large_transaction -q -- --nocapture --exact \
      secondary_store_commits_a_transaction_far_larger_than_memory_with_flat_rss 2>/dev/null | grep '^RESULT ' || true)
    [[ -n $line ]] || { echo "bench/large_commit.sh: round $round, $path: no RESULT line (run the cargo test command by hand to see why)" >&2; exit 1; }
    echo "round $round, $path: ${line#RESULT }"
    results+=("${line#RESULT }")
  done
done

{
  printf '{"command": "bench/large_commit.sh%s", "gitCommit": "%s", "generated": "%s", "smoke": %s, "mib": %s, "rounds": %s, "elapsedSeconds": %s,\n "machine": "%s cores, %s",\n "runs": [\n' \
    "${*:+ $*}" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$smoke" "$mib" "$rounds" "$(( $(date +%s) - started ))" \
    "$(nproc)" "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  for i in "${!results[@]}"; do
    printf '  %s%s\n' "${results[$i]}" "$([[ $i -lt $(( ${#results[@]} - 1 )) ]] && echo ,)"
  done
  printf ' ]}\n'
} > "$out"
echo "Wrote $out"
python3 bench/report_large.py "$out"
