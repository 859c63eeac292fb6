#!/usr/bin/env bash
# Tests the linux-aarch64 build on a linux-x86_64 Debian machine, under emulation (qemu-user through
# binfmt_misc, so that tests which start themselves again, the crash tests' kill -9 children, run
# under qemu too). As root: it installs the cross toolchain (scripts/install-cross-deps.sh) and
# registers qemu for aarch64 executables with the kernel's binfmt_misc when it is not yet.
#
#   scripts/test-aarch64.sh           the release check: every Rust test of the workspace (engine,
#                                     formats, JNI crate) built for aarch64 and run under qemu, then
#                                     the release jar (scripts/release.sh: both Linux libraries) and
#                                     the Java smoke test (PlatformSmokeTest: key-value, window and
#                                     session stores, both strategies, open / put / commit / kill -9 /
#                                     reopen / range scan) in the aarch64 JDK under qemu, on that jar.
#                                     A cold first run cross-builds RocksDB (as long as the native build).
#   scripts/test-aarch64.sh --java    the release jar and the Java smoke test only (the Rust tests
#                                     take about half an hour under qemu).
#   scripts/test-aarch64.sh --smoke   what ./test.sh runs so that this path cannot rot: the toolchain,
#                                     binfmt, and the format crate's tests (no RocksDB) built for
#                                     aarch64 and run under qemu; a few minutes cold.
#   --jar=FILE                        (with --java) the jar to test instead of building one (e.g. the
#                                     five-library jar of scripts/release.sh --from=DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
smoke=false
rust=true
jar=""
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=true ;;
    --jar=*) jar="$(realpath -- "${arg#*=}")" ;;  # absolute: the tests run from java/
    --java) rust=false ;;
    *) echo "test-aarch64.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
if [[ "$(host_platform)" != linux-x86_64 ]]; then
  echo "test-aarch64.sh: runs on linux-x86_64 (on an aarch64 machine, ./test.sh tests natively)" >&2
  exit 1
fi
if [[ $smoke == true ]]; then
  "$root/scripts/install-cross-deps.sh" --no-jdk
else
  "$root/scripts/install-cross-deps.sh"
fi
enable_aarch64_emulation
check_cross_aarch64_toolchain
target="${CARGO_TARGET_DIR:-$root/target}"
triple="$(rust_triple linux-aarch64)"
cargo_aarch64=(env "${cross_aarch64_env[@]}" CARGO_TARGET_DIR="$target/cross"
  # The power-loss test builds its LD_PRELOAD shim with this compiler: it must match the tests.
  TXN_ROCKSDB_TEST_CC=aarch64-linux-gnu-gcc
  /usr/bin/cargo)
cd "$root"
start=$(date +%s)

if [[ $smoke == true ]]; then
  "${cargo_aarch64[@]}" test --release --locked --target "$triple" -p txn-rocksdb-format
  echo "test-aarch64.sh --smoke: the format crate's tests passed on aarch64 under qemu in $(( $(date +%s) - start )) s"
  exit 0
fi

if [[ $rust == true ]]; then
  # snapshot_azure.rs starts Azurite (a Node.js program of this machine; qemu runs only the tests)
  "$root/scripts/install-azurite.sh"
  "${cargo_aarch64[@]}" test --release --locked --target "$triple" --workspace
  echo "test-aarch64.sh: every Rust test passed on aarch64 under qemu ($(( $(date +%s) - start )) s with the build)"
fi
rust_done=$(date +%s)

version="$(scripts/version.sh)"
if [[ -z $jar ]]; then
  scripts/release.sh --platforms=linux-x86_64,linux-aarch64
  jar="$root/dist/txn-rocksdb-streams-$version.jar"
fi
[[ -f $jar ]] || { echo "test-aarch64.sh: no jar at $jar" >&2; exit 1; }
deps="$(mktemp)"
trap 'rm -f "$deps"' EXIT
mvn -B -q --no-transfer-progress -pl java dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$deps"
aarch64_java=/usr/lib/jvm/java-17-openjdk-arm64/bin/java
# The test runs in this machine's JVM; its children (writer, killed with SIGKILL, and verifier) run
# the aarch64 JDK under qemu on the release jar, which must hand them its linux-aarch64 library.
mvn -B --no-transfer-progress -pl java surefire:test -Dtest=PlatformSmokeTest \
  -Dtxn.rocksdb.smoke.java="$aarch64_java" \
  -Dtxn.rocksdb.smoke.classpath="$jar:$root/java/target/test-classes:$(cat "$deps")" \
  -Dtxn.rocksdb.smoke.platform=linux-aarch64
grep -h '^VERIFIED' java/target/surefire-reports/dev.txnrocksdb.streams.loader.PlatformSmokeTest-output.txt || true
echo "test-aarch64.sh: passed in $(( $(date +%s) - start )) s (Rust tests and their build: $(( rust_done - start )) s)"
