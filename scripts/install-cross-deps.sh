#!/usr/bin/env bash
# Installs what the linux-aarch64 cross build and its emulated tests need on a linux-x86_64 Debian
# (bookworm) machine, when missing (as root, or through sudo), on top of scripts/install-deps.sh:
# - Debian's Rust toolchain (rustc-web, cargo-web: Rust 1.96 from bookworm's security updates) and
#   its aarch64 standard library (libstd-rust-web-dev:arm64), after `dpkg --add-architecture arm64`;
#   rustup's own aarch64 standard library would do as well where rustup can download it
# - gcc's aarch64 cross compilers (RocksDB's C++, lz4, linking) with the aarch64 glibc headers
# - qemu-user-static, which runs aarch64 programs here (scripts/test-aarch64.sh registers it with
#   binfmt_misc), and an aarch64 JDK 17 (openjdk-17-jdk-headless:arm64, beside the amd64 one) for
#   the Java smoke test (not with --no-jdk). Installing it moves the amd64 JDK 17 to the same Debian
#   version.
#
#   scripts/install-cross-deps.sh [--no-jdk]
set -euo pipefail
jdk=true
for arg in "$@"; do
  case "$arg" in
    --no-jdk) jdk=false ;;
    *) echo "install-cross-deps.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
if [[ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-cross-deps.sh: the aarch64 cross build is set up for linux-x86_64 Debian machines (apt-get); on an aarch64 machine build natively" >&2
  exit 1
fi
need=()
dpkg -s rustc-web >/dev/null 2>&1 || need+=(rustc-web)
dpkg -s cargo-web >/dev/null 2>&1 || need+=(cargo-web)
dpkg -s libstd-rust-web-dev:arm64 >/dev/null 2>&1 || need+=(libstd-rust-web-dev:arm64)
dpkg -s g++-aarch64-linux-gnu >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)
dpkg -s qemu-user-static >/dev/null 2>&1 || need+=(qemu-user-static)
if [[ $jdk == true ]]; then
  dpkg -s openjdk-17-jdk-headless:arm64 >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless:arm64)
fi
command -v file >/dev/null 2>&1 || need+=(file)
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
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${sudo[@]}" dpkg --add-architecture arm64
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
