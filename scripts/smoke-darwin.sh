#!/usr/bin/env bash
# The macOS cross builds in smoke mode, what ./test.sh runs so that they cannot rot (macOS programs
# cannot run here): the toolchain (scripts/install-cross-deps.sh --darwin: Zig, cargo-zigbuild,
# Debian's Rust and its standard library's sources), the standard library built for
# aarch64-apple-darwin and x86_64-apple-darwin, and the format crate's test executable (no RocksDB)
# built and linked for each, then checked as far as a machine without macOS can: a Mach-O executable
# of the right CPU that links libSystem only. The libraries themselves: scripts/build-native.sh
# --platform=darwin-aarch64|darwin-x86_64 (a cold build of RocksDB each), checked by
# scripts/release.sh (architecture, exports, linked libraries); they are tested on macOS by
# .github/workflows/release.yml only.
#
#   scripts/smoke-darwin.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
if [[ "$(host_platform)" != linux-x86_64 ]]; then
  echo "smoke-darwin.sh: runs on linux-x86_64" >&2
  exit 1
fi
"$root/scripts/install-cross-deps.sh" --darwin
check_cross_darwin_toolchain
target="${CARGO_TARGET_DIR:-$root/target}"
cd "$root"
start=$(date +%s)
for platform in darwin-aarch64 darwin-x86_64; do
  triple="$(rust_triple "$platform")"
  env "${cross_darwin_env[@]}" CARGO_TARGET_DIR="$target/cross/darwin" nice -n 19 \
    cargo-zigbuild test --release --locked --target "$triple" "${cross_build_std[@]}" -p txn-rocksdb-format --no-run
  case "$platform" in
    darwin-aarch64) expect="Mach-O 64-bit arm64 executable*" ;;
    darwin-x86_64) expect="Mach-O 64-bit x86_64 executable*" ;;
  esac
  found=0
  for exe in "$target/cross/darwin/$triple/release/deps/"txn_rocksdb_format-*; do
    [[ $exe == *.d || $exe == *.rlib || $exe == *.rmeta ]] && continue
    described="$(file -b "$exe")"
    # shellcheck disable=SC2053 # $expect is a pattern
    [[ $described == $expect ]] || { echo "smoke-darwin.sh: $exe is '$described', not '$expect'" >&2; exit 1; }
    linked="$(llvm-objdump --macho --dylibs-used "$exe" | tail -n +2 | sed -E 's/^[[:space:]]+//; s/ \(compatibility.*//')"
    [[ $linked == /usr/lib/libSystem.B.dylib ]] || { echo "smoke-darwin.sh: $exe links $linked, not only libSystem" >&2; exit 1; }
    found=$((found + 1))
  done
  [[ $found -gt 0 ]] || { echo "smoke-darwin.sh: no test executable built for $triple" >&2; exit 1; }
  echo "smoke-darwin.sh: $platform: the format crate's tests built and linked ($described)"
done
echo "smoke-darwin.sh: passed in $(( $(date +%s) - start )) s"
