#!/usr/bin/env bash
# Installs what the cross builds and their emulated tests need on a linux-x86_64 Debian (bookworm)
# machine, when missing (as root, or through sudo), on top of scripts/install-deps.sh. Each flag
# adds one target; without any, linux-aarch64 (what scripts/release.sh builds by default):
# --aarch64 (linux-aarch64)
# - Debian's Rust toolchain (rustc-web, cargo-web: Rust 1.96 from bookworm's security updates) and
#   its aarch64 standard library (libstd-rust-web-dev:arm64), after `dpkg --add-architecture arm64`;
#   rustup's own aarch64 standard library would do as well where rustup can download it
# - gcc's aarch64 cross compilers (RocksDB's C++, lz4, linking) with the aarch64 glibc headers
# - qemu-user-static, which runs aarch64 programs here (scripts/test-aarch64.sh registers it with
#   binfmt_misc), and an aarch64 JDK 17 (openjdk-17-jdk-headless:arm64, beside the amd64 one) for
#   the Java smoke test (not with --no-jdk). Installing it moves the amd64 JDK 17 to the same Debian
#   version.
# --windows (windows-x86_64)
# - rustc-web, cargo-web and rust-web-src, the sources of Rust's standard library, which cargo builds
#   for x86_64-pc-windows-gnu (-Z build-std; Debian has no Windows standard library package)
# - MinGW-w64's gcc and g++ with POSIX threads (RocksDB's std::thread) and its Windows headers
# - wine64, which runs the Windows test executables and JVM here (scripts/test-windows.sh)
# --darwin (darwin-aarch64, darwin-x86_64)
# - rustc-web, cargo-web and rust-web-src, as for Windows
# - Zig's toolchain (PyPI's ziglang: macOS's libc and libc++ headers, libSystem's stub, a Mach-O
#   linker) and cargo-zigbuild (PyPI), which wires it into cargo, with pip
# --windows and --darwin also install llvm (llvm-objdump, llvm-nm: scripts/release.sh reads the
# DLL's and the dylibs' exports and linked libraries with them).
#
#   scripts/install-cross-deps.sh [--aarch64] [--windows] [--darwin] [--no-jdk]
set -euo pipefail
jdk=true
aarch64=false
windows=false
darwin=false
for arg in "$@"; do
  case "$arg" in
    --no-jdk) jdk=false ;;
    --aarch64) aarch64=true ;;
    --windows) windows=true ;;
    --darwin) darwin=true ;;
    *) echo "install-cross-deps.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
if [[ $aarch64 == false && $windows == false && $darwin == false ]]; then
  aarch64=true
fi
if [[ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-cross-deps.sh: the cross builds are set up for linux-x86_64 Debian machines (apt-get); elsewhere build natively" >&2
  exit 1
fi
need=()
dpkg -s rustc-web >/dev/null 2>&1 || need+=(rustc-web)
dpkg -s cargo-web >/dev/null 2>&1 || need+=(cargo-web)
if [[ $aarch64 == true ]]; then
  dpkg -s libstd-rust-web-dev:arm64 >/dev/null 2>&1 || need+=(libstd-rust-web-dev:arm64)
  dpkg -s g++-aarch64-linux-gnu >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)
  dpkg -s qemu-user-static >/dev/null 2>&1 || need+=(qemu-user-static)
  if [[ $jdk == true ]]; then
    dpkg -s openjdk-17-jdk-headless:arm64 >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless:arm64)
  fi
fi
if [[ $windows == true || $darwin == true ]]; then
  dpkg -s rust-web-src >/dev/null 2>&1 || need+=(rust-web-src)
  command -v llvm-objdump >/dev/null 2>&1 || need+=(llvm)
fi
if [[ $windows == true ]]; then
  dpkg -s g++-mingw-w64-x86-64-posix >/dev/null 2>&1 \
    || need+=(gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix mingw-w64-x86-64-dev binutils-mingw-w64-x86-64)
  dpkg -s wine64 >/dev/null 2>&1 || need+=(wine64)
fi
command -v file >/dev/null 2>&1 || need+=(file)
# Zig and cargo-zigbuild, from PyPI (versions tested: ziglang 0.17.1, cargo-zigbuild 0.24.1).
pip_need=()
if [[ $darwin == true ]]; then
  python3 -m ziglang version >/dev/null 2>&1 || pip_need+=("ziglang==0.17.1")
  command -v cargo-zigbuild >/dev/null 2>&1 || pip_need+=("cargo-zigbuild==0.24.1")
fi
if [[ ${#pip_need[@]} -gt 0 ]]; then
  echo "installing with pip: ${pip_need[*]}"
  # Debian's own python3 refuses installs outside apt (PEP 668, "externally managed"): both wheels
  # are self-contained binaries (zig, cargo-zigbuild) without Python dependencies, so they cannot
  # break Debian's Python packages.
  python3 -m pip install -q "${pip_need[@]}" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "${pip_need[@]}"
fi
if [[ ${#need[@]} -eq 0 ]]; then
  exit 0
fi
if [[ "$(id -u)" -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-cross-deps.sh: missing ${need[*]}; run as root" >&2
  exit 1
fi
echo "installing with apt-get: ${need[*]}"
if [[ $aarch64 == true ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo[@]}" dpkg --add-architecture arm64
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
