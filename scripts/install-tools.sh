#!/usr/bin/env bash
# Installs the tools the release checks use, at pinned versions, into
# $HOME/.cache/txn-rocksdb/tools (bin/ there; their build in tools/target, outside the project's
# target directory), unless that exact version is already there. Idempotent: a second run only
# checks versions.
#
# - cargo-deny, the licence check (`cargo deny --frozen check licenses`, deny.toml): `cargo install`;
#   a cold install compiles about 190 crates, 3.5 minutes on two cores.
# - actionlint, the linter of .github/workflows (with shellcheck, from install-deps.sh, on every
#   run: block): `go install` of its Go module (needs go), about 30 s cold.
# THIRD-PARTY-NOTICES.txt and the native SBOM need no tool (scripts/third-party-notices.sh: python3).
#
# Prints the bin directory on stdout, its last line, and everything else on stderr, so that a
# caller can do:
#   PATH="$(scripts/install-tools.sh):$PATH"
#   cargo deny --frozen check licenses
# TXN_ROCKSDB_TOOLS_DIR overrides the install directory.
set -euo pipefail

cargo_deny_version=0.20.2
actionlint_version=1.7.12

tools="${TXN_ROCKSDB_TOOLS_DIR:-$HOME/.cache/txn-rocksdb/tools}"
bin="$tools/bin"

if ! command -v cargo >/dev/null 2>&1; then
  echo "install-tools.sh: cargo not found: install Rust with rustup (https://rustup.rs) first" >&2
  exit 1
fi

# install CRATE VERSION BINARY: `cargo install --locked` unless $bin/BINARY reports that version.
install() {
  local crate="$1" version="$2" binary="$3" have=""
  if [[ -x "$bin/$binary" ]]; then
    have="$("$bin/$binary" --version 2>/dev/null | awk '{print $2}')" || have=""
  fi
  if [[ "$have" == "$version" ]]; then
    echo "install-tools.sh: $crate $version already in $bin" >&2
    return 0
  fi
  echo "install-tools.sh: installing $crate $version into $tools${have:+ (found $have)} (a few minutes)" >&2
  # --locked: the tool's own Cargo.lock, so the same sources build every time. --force replaces
  # another version installed there before.
  cargo install "$crate" --version "=$version" --locked --force \
    --root "$tools" --target-dir "$tools/target" >&2
  have="$("$bin/$binary" --version 2>/dev/null | awk '{print $2}')" || have=""
  if [[ "$have" != "$version" ]]; then
    echo "install-tools.sh: $bin/$binary reports '$have' after installing $version" >&2
    exit 1
  fi
}

install cargo-deny "$cargo_deny_version" cargo-deny

if [[ "$("$bin/actionlint" -version 2>/dev/null | head -n1)" != "v$actionlint_version" ]]; then
  command -v go >/dev/null 2>&1 || { echo "install-tools.sh: actionlint needs go to install (https://go.dev/dl)" >&2; exit 1; }
  echo "install-tools.sh: installing actionlint $actionlint_version into $bin" >&2
  GOBIN="$bin" GOFLAGS=-buildvcs=false go install "github.com/rhysd/actionlint/cmd/actionlint@v$actionlint_version" >&2
  [[ "$("$bin/actionlint" -version 2>/dev/null | head -n1)" == "v$actionlint_version" ]] || {
    echo "install-tools.sh: $bin/actionlint does not report v$actionlint_version after installing it" >&2
    exit 1
  }
fi

echo "$bin"
