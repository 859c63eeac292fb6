# shellcheck shell=bash disable=SC2034 # (sourced: its variables are its users')
# Sourced by the build scripts: platform names (the jar's native/<platform>/ folders, the same as
# NativeLibrary.platform in Java), library file names, and the environment of the cross builds
# from linux-x86_64 (scripts/build-native.sh --platform=...; their toolchains:
# scripts/install-cross-deps.sh).

# Every platform the loader has a name for; the release jar carries those built so far.
all_platforms=(linux-x86_64 linux-aarch64 darwin-x86_64 darwin-aarch64 windows-x86_64)

# This machine's platform, or exit 1 naming what is unsupported.
host_platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW*|MSYS*|CYGWIN*) os=windows ;;
    *) echo "no build for operating system $(uname -s) (supported: Linux, macOS, Windows)" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) echo "no build for architecture $(uname -m) (supported: x86_64, aarch64)" >&2; return 1 ;;
  esac
  if [[ $os == linux ]] && ldd --version 2>&1 | grep -qi musl; then
    echo "musl libc (e.g. Alpine) is not supported: the library is built and loaded for glibc" >&2
    return 1
  fi
  echo "$os-$arch"
}

# The library's file name on a platform (System.mapLibraryName in Java).
library_file() {
  case "$1" in
    linux-*) echo libtxn_rocksdb_jni.so ;;
    darwin-*) echo libtxn_rocksdb_jni.dylib ;;
    windows-*) echo txn_rocksdb_jni.dll ;;
    *) echo "unknown platform $1" >&2; return 1 ;;
  esac
}

# The Rust target triple of a platform.
rust_triple() {
  case "$1" in
    linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    linux-aarch64) echo aarch64-unknown-linux-gnu ;;
    darwin-x86_64) echo x86_64-apple-darwin ;;
    darwin-aarch64) echo aarch64-apple-darwin ;;
    # MinGW's ABI: what the cross build here produces (scripts/build-native.sh); a build on Windows
    # itself uses the host's own toolchain, whatever its triple.
    windows-x86_64) echo x86_64-pc-windows-gnu ;;
    *) echo "unknown platform $1" >&2; return 1 ;;
  esac
}

# The aarch64 cross build: Debian's rustc (its aarch64 standard library is a Debian package;
# rustup's toolchain, first on the PATH, has none here), gcc's cross compilers for RocksDB's C++
# and lz4 (cc crate) and for linking, clang told the target's sysroot for bindgen. The test runner
# is not set: aarch64 executables run through binfmt_misc and qemu (scripts/test-aarch64.sh
# registers it), so that tests which start themselves again (the crash tests' kill -9 children) work too.
cross_aarch64_sysroot=/usr/aarch64-linux-gnu
cross_aarch64_env=(
  RUSTC=/usr/bin/rustc
  RUSTDOC=/usr/bin/rustdoc
  CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
  CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
  CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
  AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
  BINDGEN_EXTRA_CLANG_ARGS_aarch64_unknown_linux_gnu="--sysroot=$cross_aarch64_sysroot"
)

# The Windows cross build (x86_64-pc-windows-gnu): Debian's rustc 1.96 with its standard library
# built from Debian's rust-web-src by cargo (-Z build-std, allowed on a stable toolchain by
# RUSTC_BOOTSTRAP=1: Debian ships no Windows standard library and rustup cannot download one here),
# MinGW-w64's gcc with POSIX threads (RocksDB uses std::thread) for the C++ and the link. The DLL
# links its C++ and gcc runtimes statically (scripts/cross/windows-link.sh), so it needs only
# Windows' own DLLs.
platform_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cross_windows_env=(
  RUSTC=/usr/bin/rustc
  RUSTDOC=/usr/bin/rustdoc
  RUSTC_BOOTSTRAP=1
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$platform_dir/cross/windows-link.sh"
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="-C target-feature=+crt-static"
  CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
  CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
  AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
  # RocksDB's per-thread PerfContext as one plain object: MinGW-w64 gcc's thread_local destructors
  # crashed in ~PerfContext when RocksDB's timer thread exited (its last store closed) under Wine,
  # 2026-12-05 (model.rs, segmented_model.rs, damaged_files.rs). The store never reads RocksDB's
  # perf context (its metrics come from RocksDB's statistics).
  CXXFLAGS_x86_64_pc_windows_gnu=-DNPERF_CONTEXT
)
# The macOS cross builds (aarch64-apple-darwin, x86_64-apple-darwin), without Apple's SDK: Debian's
# rustc with its standard library built from source as for Windows, and Zig's toolchain (PyPI's
# ziglang: macOS's libc and libc++ headers, libSystem's stubs, a Mach-O linker) for RocksDB's C++ and
# the link, which cargo-zigbuild (PyPI) wires into cargo and the cc crate. /usr/bin first on the
# PATH: cargo-zigbuild runs `cargo`, which must be Debian's (rustup's knows no std sources for
# Debian's rustc). macOS 11 (Big Sur, 2020) is the oldest system the library is built for.
cross_darwin_env=(
  RUSTC=/usr/bin/rustc
  RUSTDOC=/usr/bin/rustdoc
  RUSTC_BOOTSTRAP=1
  PATH="/usr/bin:$PATH"
  MACOSX_DEPLOYMENT_TARGET=11.0
  # CoreFoundation's link stub (scripts/cross/darwin-frameworks/): Zig has no framework stubs.
  CARGO_TARGET_AARCH64_APPLE_DARWIN_RUSTFLAGS="-C link-arg=-F$platform_dir/cross/darwin-frameworks"
  CARGO_TARGET_X86_64_APPLE_DARWIN_RUSTFLAGS="-C link-arg=-F$platform_dir/cross/darwin-frameworks"
)

# Exit 1 naming what to install when the macOS cross toolchain is incomplete.
check_cross_darwin_toolchain() {
  local missing=()
  [[ -x /usr/bin/rustc && -x /usr/bin/cargo ]] || missing+=("Debian's rustc-web and cargo-web")
  [[ -f /usr/lib/rustlib/src/rust/library/std/Cargo.toml ]] || missing+=("rust-web-src")
  command -v cargo-zigbuild >/dev/null 2>&1 || missing+=("cargo-zigbuild (pip)")
  python3 -m ziglang version >/dev/null 2>&1 || missing+=("ziglang (pip)")
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "the darwin cross builds need ${missing[*]}: run scripts/install-cross-deps.sh --darwin (as root)" >&2
    return 1
  fi
}

# What cargo builds the standard library from, for the targets Debian has no std package of.
# shellcheck disable=SC2054 # one argument, with commas
cross_build_std=(-Z build-std=std,panic_unwind)

# Exit 1 naming what to install when the Windows cross toolchain is incomplete.
check_cross_windows_toolchain() {
  local missing=()
  [[ -x /usr/bin/rustc && -x /usr/bin/cargo ]] || missing+=("Debian's rustc-web and cargo-web")
  [[ -f /usr/lib/rustlib/src/rust/library/std/Cargo.toml ]] || missing+=("rust-web-src")
  command -v x86_64-w64-mingw32-g++-posix >/dev/null 2>&1 || missing+=("g++-mingw-w64-x86-64-posix")
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "the windows-x86_64 cross build needs ${missing[*]}: run scripts/install-cross-deps.sh --windows (as root)" >&2
    return 1
  fi
}

# Exit 1 naming what to install when the aarch64 cross toolchain is incomplete.
check_cross_aarch64_toolchain() {
  local missing=()
  [[ -x /usr/bin/rustc && -x /usr/bin/cargo ]] || missing+=("Debian's rustc-web and cargo-web")
  [[ -d /usr/lib/rustlib/aarch64-unknown-linux-gnu/lib ]] || missing+=("libstd-rust-web-dev:arm64")
  command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 || missing+=("g++-aarch64-linux-gnu")
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "the linux-aarch64 cross build needs ${missing[*]}: run scripts/install-cross-deps.sh (as root)" >&2
    return 1
  fi
}

# The SHA-256 of a file, in hex (sha256sum on Linux and Git Bash, shasum on macOS).
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# Registers qemu-aarch64-static with the kernel's binfmt_misc (as Debian's qemu-user-binfmt and
# Docker's binfmt image do), so that aarch64 executables run on this machine, including those a
# test starts itself. Flags OPF: the interpreter is opened now, so it also works in other mount
# namespaces. Kernel-wide; a no-op once registered.
enable_aarch64_emulation() {
  local conf=/usr/lib/binfmt.d/qemu-aarch64.conf
  if [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
    return 0
  fi
  [[ -f $conf ]] || { echo "no $conf: install qemu-user-static (scripts/install-cross-deps.sh)" >&2; return 1; }
  if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || {
      echo "cannot mount binfmt_misc (needs root): aarch64 programs cannot run here" >&2
      return 1
    }
  fi
  grep -v '^#' "$conf" >/proc/sys/fs/binfmt_misc/register || {
    echo "cannot register qemu-aarch64 with binfmt_misc (needs root)" >&2
    return 1
  }
}
