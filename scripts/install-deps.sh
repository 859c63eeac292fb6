#!/usr/bin/env bash
# Installs the system packages the build needs when they are missing (Debian/Ubuntu, as root):
# libclang for bindgen (rust-librocksdb-sys), a C++ compiler for RocksDB, a JDK 17, Maven, and
# Gradle (for the Gradle example).
set -euo pipefail
need=()
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v gradle >/dev/null 2>&1 || need+=(gradle)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: install Rust with rustup (https://rustup.rs) first" >&2
  exit 1
fi
