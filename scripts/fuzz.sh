#!/usr/bin/env bash
# Fuzzes every decoder of bytes that come from disk, a changelog or Java (the format crate,
# rust/format; its targets are in rust/format/fuzz/fuzz_targets) with cargo fuzz (libFuzzer and
# AddressSanitizer, Rust nightly). Each target runs for a bounded time; the last line per target
# says how many inputs it executed. Nothing here links RocksDB, so a cold build takes about a
# minute, not RocksDB's 40.
#
#   scripts/fuzz.sh [--seconds N] [target...]     (default: 60 seconds, every target)
#
# Inputs that found a bug are kept in rust/format/fuzz/regressions/<target>/ (with the seeds), so
# `cargo test` checks them on stable forever; the corpus a run grows stays in
# $CARGO_TARGET_DIR/fuzz (else target/fuzz). A failure prints the crashing input's file: copy it
# into the regressions directory with the fix. Installs nightly and cargo-fuzz when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
fuzz_dir=rust/format/fuzz
if [[ ${#targets[@]} -eq 0 ]]; then
  for file in "$fuzz_dir"/fuzz_targets/*.rs; do targets+=("$(basename "$file" .rs)"); done
fi
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi
work="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
mkdir -p "$work"
summary=()
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target"
  artifacts="$work/artifacts/$target/"
  mkdir -p "$corpus" "$artifacts"
  echo "==> fuzzing $target for ${seconds}s"
  log="$work/$target.log"
  # The kept inputs seed the run (read-only: new inputs go to the first corpus directory).
  # -malloc_limit_mb: a decoder reserving memory its input cannot describe is a finding.
  set +e
  cargo +nightly fuzz run --fuzz-dir "$fuzz_dir" --target-dir "$work/target" "$target" \
      "$corpus" "$fuzz_dir/regressions/$target" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=256 \
      -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
  status=$?
  set -e
  grep -E '^(#[0-9]+ +DONE|Done [0-9]+ runs|stat::number_of_executed_units)' "$log" || true
  if [[ $status -ne 0 ]]; then
    tail -40 "$log" >&2
    echo "fuzz.sh: $target failed (exit $status); the crashing input, if any, is under $artifacts (log: $log)" >&2
    exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$target: ${runs:-?} executions in ${seconds}s, no failure")
done
printf '%s\n' "${summary[@]}"
