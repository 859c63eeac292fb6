#!/usr/bin/env bash
# Builds the JNI library (`cargo build --release --workspace`) and copies it into
# <classes dir>/native/<platform>/, the jar directory NativeLibrary looks up on the machine it runs
# on (the same names as NativeLibrary.platform: linux-x86_64, linux-aarch64, darwin-x86_64,
# darwin-aarch64, windows-x86_64). Maven (java/pom.xml), Gradle (build.gradle), demo.sh and
# scripts/release.sh share it, so every build tool uses one cargo target directory: $CARGO_TARGET_DIR,
# else target/ in the checkout.
#
#   scripts/build-native.sh [--platform=P] [--skip-cargo=true|false] [--target-dir=DIR] [CLASSES_DIR]
#
# --platform builds for another platform than this machine's: from a linux-x86_64 Debian machine,
# linux-aarch64 (Debian's Rust toolchain and gcc cross compilers), windows-x86_64 (MinGW-w64) and
# darwin-aarch64/darwin-x86_64 (Zig), installed by scripts/install-cross-deps.sh (rustup cannot
# download other targets' standard libraries here). Each builds into a directory of its own under
# <target dir>/cross/ (linux-aarch64 there, the others in windows/ and darwin/), so it never waits
# for, or invalidates, the native build or another cross build.
# --skip-cargo=true copies an already built library; --target-dir overrides CARGO_TARGET_DIR (an
# empty value keeps it); without CLASSES_DIR it only builds. Always the whole workspace: `-p` with one
# crate unifies features differently and would rebuild RocksDB's C++ from scratch.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
skip_cargo=false
target=""
out=""
platform=""
for arg in "$@"; do
  case "$arg" in
    --platform=*) platform="${arg#*=}" ;;
    --skip-cargo=*) skip_cargo="${arg#*=}" ;;
    --target-dir=*) target="${arg#*=}" ;;
    -*) echo "build-native.sh: unknown option $arg" >&2; exit 2 ;;
    *) out="$arg" ;;
  esac
done
target="${target:-${CARGO_TARGET_DIR:-$root/target}}"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
host="$(host_platform)" || { echo "build-native.sh: see above" >&2; exit 1; }
platform="${platform:-$host}"
file="$(library_file "$platform")"

if [[ $platform == "$host" ]]; then
  lib="$target/release/$file"
  build=(cargo build --release --workspace)
  build_env=(CARGO_TARGET_DIR="$target")
elif [[ $host == linux-x86_64 && $platform == linux-aarch64 ]]; then
  triple="$(rust_triple "$platform")"
  lib="$target/cross/$triple/release/$file"
  build=(/usr/bin/cargo build --release --workspace --locked --target "$triple")
  build_env=("${cross_aarch64_env[@]}" CARGO_TARGET_DIR="$target/cross")
elif [[ $host == linux-x86_64 && $platform == windows-x86_64 ]]; then
  # A target directory of its own (as the macOS builds): its environment (RUSTC_BOOTSTRAP for
  # -Z build-std) differs from linux-aarch64's, and alternating the two in one directory made
  # each rebuild RocksDB's C++ from scratch (30 CPU-minutes).
  triple="$(rust_triple "$platform")"
  lib="$target/cross/windows/$triple/release/$file"
  build=(/usr/bin/cargo build --release --workspace --locked --target "$triple" "${cross_build_std[@]}")
  build_env=("${cross_windows_env[@]}" CARGO_TARGET_DIR="$target/cross/windows")
elif [[ $host == linux-x86_64 && $platform == darwin-* ]]; then
  # A target directory of their own: cargo locks its target directory for a whole build, and
  # Zig's wrappers change the host build scripts' environment.
  triple="$(rust_triple "$platform")"
  lib="$target/cross/darwin/$triple/release/$file"
  build=(cargo-zigbuild zigbuild --release --workspace --locked --target "$triple" "${cross_build_std[@]}")
  build_env=("${cross_darwin_env[@]}" CARGO_TARGET_DIR="$target/cross/darwin")
else
  echo "build-native.sh: no cross build from $host to $platform; build on a $platform machine (README, \"Platforms\")" >&2
  exit 1
fi

if [[ $skip_cargo != true ]]; then
  case "$platform" in
    "$host") ;;
    linux-aarch64) check_cross_aarch64_toolchain ;;
    windows-*) check_cross_windows_toolchain ;;
    darwin-*) check_cross_darwin_toolchain ;;
  esac
  (cd "$root" && env "${build_env[@]}" "${build[@]}")
fi
if [[ ! -f $lib ]]; then
  echo "build-native.sh: $lib is missing: run scripts/build-native.sh --platform=$platform (or cargo build --release --workspace) with CARGO_TARGET_DIR=$target" >&2
  exit 1
fi
if [[ -n $out ]]; then
  mkdir -p "$out/native/$platform"
  cp -p "$lib" "$out/native/$platform/$file"
  # What the jar says of its library (scripts/release.sh lists them): version, checksum, toolchain.
  if [[ $platform == "$host" ]]; then rustc=rustc; else rustc=/usr/bin/rustc; fi
  {
    echo "# written by scripts/build-native.sh"
    echo "platform=$platform"
    echo "file=$file"
    echo "version=$(sed -nE 's/^version *= *"([^"]+)".*/\1/p' "$root/Cargo.toml" | head -n1)"
    echo "sha256=$(sha256_of "$lib")"
    echo "bytes=$(wc -c <"$lib" | tr -d ' ')"
    echo "commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "rustc=$($rustc --version 2>/dev/null || echo unknown)"
    echo "built-on=$host"
  } >"$out/native/$platform/library.properties"
fi
