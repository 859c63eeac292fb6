#!/usr/bin/env bash
# Builds the JNI library (`cargo build --release --workspace`) and copies it into
# <classes dir>/native/<os>-<arch>/, the jar directory NativeLibrary looks up on the machine it runs
# on (the same names as NativeLibrary.platform: linux-x86_64, linux-aarch64, darwin-x86_64,
# darwin-aarch64). Maven (java/pom.xml), Gradle (build.gradle) and demo.sh share it, so every build
# tool uses one cargo target directory: $CARGO_TARGET_DIR, else target/ in the checkout.
#
#   scripts/build-native.sh [--skip-cargo=true|false] [--target-dir=DIR] [CLASSES_DIR]
#
# --skip-cargo=true copies an already built library; --target-dir overrides CARGO_TARGET_DIR (an
# empty value keeps it); without CLASSES_DIR it only builds. Always the whole workspace: `-p` with one
# crate unifies features differently and would rebuild RocksDB's C++ from scratch.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
skip_cargo=false
target=""
out=""
for arg in "$@"; do
  case "$arg" in
    --skip-cargo=*) skip_cargo="${arg#*=}" ;;
    --target-dir=*) target="${arg#*=}" ;;
    -*) echo "build-native.sh: unknown option $arg" >&2; exit 2 ;;
    *) out="$arg" ;;
  esac
done
target="${target:-${CARGO_TARGET_DIR:-$root/target}}"

case "$(uname -s)" in
  Linux)  os=linux;  file=libtxn_rocksdb_jni.so ;;
  Darwin) os=darwin; file=libtxn_rocksdb_jni.dylib ;;
  *) echo "build-native.sh: no build for operating system $(uname -s) (supported: Linux, macOS)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64|amd64)  arch=x86_64 ;;
  aarch64|arm64) arch=aarch64 ;;
  *) echo "build-native.sh: no build for architecture $(uname -m) (supported: x86_64, aarch64)" >&2; exit 1 ;;
esac
if [[ $os == linux ]] && ldd --version 2>&1 | grep -qi musl; then
  echo "build-native.sh: musl libc (e.g. Alpine) is not supported: the library is built and loaded for glibc" >&2
  exit 1
fi

if [[ $skip_cargo != true ]]; then
  (cd "$root" && CARGO_TARGET_DIR="$target" cargo build --release --workspace)
fi
lib="$target/release/$file"
if [[ ! -f $lib ]]; then
  echo "build-native.sh: $lib is missing: run 'cargo build --release --workspace' with CARGO_TARGET_DIR=$target" >&2
  exit 1
fi
if [[ -n $out ]]; then
  mkdir -p "$out/native/$os-$arch"
  cp -p "$lib" "$out/native/$os-$arch/$file"
fi
