#!/usr/bin/env bash
# The linker of the x86_64-pc-windows-gnu cross build (scripts/platform.sh): MinGW-w64's gcc with
# POSIX threads, told to link every library it can statically, so that txn_rocksdb_jni.dll and the
# test executables load with Windows' own DLLs only (KERNEL32, msvcrt, ...), not MinGW's
# libstdc++-6.dll, libgcc_s_seh-1.dll or libwinpthread-1.dll, which a Windows JVM has no reason to
# find. -static covers libgcc and winpthreads; the C++ library comes as `-lstdc++` from the cc crate
# (RocksDB's build), which rustc brackets with -Bdynamic, so it is named by its archive here.
args=()
for arg in "$@"; do
  case "$arg" in
    -lstdc++) args+=(-l:libstdc++.a) ;;
    *) args+=("$arg") ;;
  esac
done
exec x86_64-w64-mingw32-gcc-posix "${args[@]}" -static
