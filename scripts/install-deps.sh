#!/usr/bin/env bash
# Installs the system packages the build needs when they are missing (Debian/Ubuntu; as root, or
# through sudo): libclang and clang for bindgen (rust-librocksdb-sys generates RocksDB's C
# bindings with it), a C++ compiler and make for RocksDB's C++, a JDK 17 and Maven for the Java
# library and the demo, Gradle (Debian's 4.4) for the Gradle builds the tests run, file(1), with
# which scripts/release.sh checks each library's architecture, and what the release checks use. Rust itself
# comes from rustup: this script only checks that cargo is there and recent enough.
#
# --node: Node.js and npm too (scripts/install-azurite.sh installs the Azure emulator with them).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
need=()
if [[ "${1:-}" == --node ]]; then
  command -v node >/dev/null 2>&1 || need+=(nodejs)
  command -v npm >/dev/null 2>&1 || need+=(npm)
fi
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v gradle >/dev/null 2>&1 || need+=(gradle)
command -v file >/dev/null 2>&1 || need+=(file)
# The release bundle (scripts/release.sh --bundle, scripts/check-release.sh): signatures, zip; and
# and, for actionlint to check every run: block of the workflows, ShellCheck.
command -v gpg >/dev/null 2>&1 || need+=(gnupg)
command -v zip >/dev/null 2>&1 || need+=(zip)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
command -v shellcheck >/dev/null 2>&1 || need+=(shellcheck)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "install-deps.sh: missing ${need[*]}; run as root (or install them with your package manager)" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps.sh: missing ${need[*]}; this script knows apt-get only: install them with your package manager" >&2
    exit 1
  fi
  echo "installing with apt-get: ${need[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "install-deps.sh: cargo not found: install Rust with rustup (https://rustup.rs) first" >&2
  exit 1
fi
# The minimum Rust version is Cargo.toml's rust-version; cargo would refuse later with less clear words.
min="$(sed -nE 's/^rust-version *= *"([0-9.]+)".*/\1/p' "$root/Cargo.toml")"
have="$(rustc --version | awk '{print $2}')"
if [ -n "$min" ] && [ "$(printf '%s\n%s\n' "$min" "$have" | sort -V | head -n1)" != "$min" ]; then
  echo "install-deps.sh: Rust $have is older than the $min this repository needs (Cargo.toml's rust-version): run 'rustup update'" >&2
  exit 1
fi
java_major="$(javac -version 2>&1 | sed -nE 's/^javac ([0-9]+).*/\1/p')"
if [ -n "$java_major" ] && [ "$java_major" -lt 17 ]; then
  echo "install-deps.sh: javac $java_major found; the build needs a JDK 17 or newer (apt-get install openjdk-17-jdk-headless and select it with update-alternatives)" >&2
  exit 1
fi
