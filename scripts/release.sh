#!/usr/bin/env bash
# Builds the multi-platform jar: the native library of every platform asked for, under
# native/<platform>/ with its library.properties (version, SHA-256, size, commit, rustc), in one
# txn-rocksdb-streams jar (with its sources and javadoc jars), copied to dist/ with a table of the
# libraries (dist/platforms.txt). Each library's SHA-256 is checked against its entry in the jar and
# `file` must show the platform's architecture, or the release fails.
#
#   scripts/release.sh [--platforms=P,P,...] [--from=DIR]
#
# --platforms: default linux-x86_64,linux-aarch64, what a linux-x86_64 Debian machine builds (the
#   aarch64 library is cross-built: scripts/install-cross-deps.sh, then a cold build of RocksDB for
#   aarch64, as long as the native one). `all` means every platform the loader knows, `host` this
#   machine's only (what ./test.sh checks).
# --from=DIR: take the libraries from DIR/native/<platform>/ (as scripts/build-native.sh writes them
#   into a classes directory) instead of building them: how .github/workflows/release.yml assembles
#   the jar from the libraries its runners built on each OS. Without it, every platform asked for is
#   built here, which works for this machine's platform and the cross builds build-native.sh knows.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
platforms="linux-x86_64,linux-aarch64"
from=""
for arg in "$@"; do
  case "$arg" in
    --platforms=all) platforms="$(IFS=,; echo "${all_platforms[*]}")" ;;
    --platforms=host) platforms="$(host_platform)" ;;
    --platforms=*) platforms="${arg#*=}" ;;
    --from=*) from="$(cd "${arg#*=}" && pwd)" ;;
    *) echo "release.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
command -v file >/dev/null 2>&1 || { echo "release.sh: needs file(1) (apt-get install file)" >&2; exit 1; }
IFS=, read -r -a wanted <<<"$platforms"
target="${CARGO_TARGET_DIR:-$root/target}"
staging="$target/release-jar"
rm -rf "$staging"
mkdir -p "$staging"

for platform in "${wanted[@]}"; do
  library_file "$platform" >/dev/null
  if [[ -n $from ]]; then
    [[ -f $from/native/$platform/library.properties ]] || {
      echo "release.sh: $from/native/$platform/ has no library.properties (build it with scripts/build-native.sh --platform=$platform DIR)" >&2
      exit 1
    }
    mkdir -p "$staging/native"
    cp -rp "$from/native/$platform" "$staging/native/"
  else
    echo "release.sh: building $platform"
    CARGO_TARGET_DIR="$target" "$root/scripts/build-native.sh" --platform="$platform" "$staging"
  fi
done

# The jar, with every staged library and none built by Maven itself (exec.skip: the staging
# directory already holds this machine's library, if it was asked for).
(cd "$root" && mvn -B -q --no-transfer-progress -Dstyle.color=never -pl java -am package -DskipTests -Dexec.skip=true -Dnative.platforms.dir="$staging")
version="$(sed -nE 's:.*<version>([^<]+)</version>.*:\1:p' "$root/java/pom.xml" | head -n1)"
jar="$root/java/target/txn-rocksdb-streams-$version.jar"

# Check what the jar holds: each library's bytes against its library.properties, its architecture.
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
(cd "$check" && jar xf "$jar" native)
table="| platform | file | bytes | SHA-256 | version | commit | rustc | file(1) |
|---|---|--:|---|---|---|---|---|"
for platform in "${wanted[@]}"; do
  file="$(library_file "$platform")"
  lib="$check/native/$platform/$file"
  props="$check/native/$platform/library.properties"
  [[ -f $lib && -f $props ]] || { echo "release.sh: the jar lacks native/$platform/$file or its library.properties" >&2; exit 1; }
  prop() { sed -nE "s/^$1=(.*)/\\1/p" "$props"; }
  [[ "$(sha256_of "$lib")" == "$(prop sha256)" ]] || { echo "release.sh: native/$platform/$file does not match its SHA-256 in library.properties" >&2; exit 1; }
  described="$(file -b "$lib")"
  case "$platform" in
    linux-x86_64) expect="ELF 64-bit LSB shared object, x86-64*" ;;
    linux-aarch64) expect="ELF 64-bit LSB shared object, ARM aarch64*" ;;
    darwin-x86_64) expect="Mach-O 64-bit*shared library*x86_64*" ;;
    darwin-aarch64) expect="Mach-O 64-bit*shared library*arm64*" ;;
    windows-x86_64) expect="PE32+*DLL*x86-64*" ;;
  esac
  # shellcheck disable=SC2053 # $expect is a pattern
  [[ $described == $expect ]] || { echo "release.sh: native/$platform/$file is '$described', not '$expect'" >&2; exit 1; }
  table+="
| $platform | $file | $(prop bytes) | \`$(prop sha256)\` | $(prop version) | $(prop commit) | $(prop rustc) | ${described%%, BuildID*} |"
done

mkdir -p "$root/dist"
rm -f "$root/dist/"txn-rocksdb-streams-*.jar
cp "$root/java/target/txn-rocksdb-streams-$version"*.jar "$root/dist/"
printf '%s\n' "$table" >"$root/dist/platforms.txt"
echo "release.sh: dist/txn-rocksdb-streams-$version.jar carries:"
printf '%s\n' "$table"
