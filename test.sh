#!/usr/bin/env bash
# Runs every test: the Rust engine's (unit, property, crash, power loss), the decoders' fuzz targets
# (briefly), the Java library's (store, topology, DSL differential and crash tests, with
# -Xcheck:jni), the benchmarks' smoke runs, then the demo on a real broker; the native library is
# built once, in release mode.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
# Azurite, Microsoft's Azure Storage emulator (npm), for the tests of snapshots in Azure Blob Storage.
scripts/install-azurite.sh
# The release checks' tools, pinned, cached beside cargo's target directory: cargo-deny (3.5 minutes
# cold) and actionlint (30 s cold).
PATH="$(scripts/install-tools.sh):$PATH"
# Both formatters, before anything is built (seconds): rustfmt (rustfmt.toml) over the Rust
# workspace and the fuzz crate, palantir-java-format (the root pom's spotless) over every Java
# source. To format: cargo fmt --all; cargo fmt --manifest-path rust/format/fuzz/Cargo.toml;
# mvn -N spotless:apply.
cargo fmt --all --check
cargo fmt --manifest-path rust/format/fuzz/Cargo.toml --check
mvn -B -q --no-transfer-progress -N spotless:check
# The version in one place (the root POM's revision): every place derived from it agrees.
scripts/version.sh --check
# The workflows (actionlint, with ShellCheck on their run: blocks) and every script (ShellCheck).
actionlint -no-color
shellcheck -S warning -x scripts/*.sh test.sh demo.sh bench/*.sh .ci/run
# The licences of every crate the native library links, on all five platforms, against deny.toml's
# allow list (cargo-deny; every platform's crates fetched first), and the generator of the
# third-party notices and the native bill of materials (scripts/third-party-notices.sh) tested.
cargo fetch --locked
cargo deny --frozen check licenses
python3 scripts/test_third_party_notices.py
# The generator of the notices of the Java libraries inside the tool's shaded jar (scripts/shaded-notices.py).
python3 scripts/test_shaded_notices.py
# Release profile for tests too: RocksDB's C++ then compiles once for tests and the jar.
cargo test --release --workspace
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --release --workspace --all-targets -- -D warnings
fi
# Large secondary-store transactions, copy vs ingestion (bench/large_commit.sh), smoke mode: 32 MiB,
# one round, into a temp dir (the test binary is already built; ~20 s).
bench/large_commit.sh --smoke
# The decoders of bytes from disk, changelogs and Java, fuzzed for 20 s each (cargo fuzz, nightly; the
# format crate builds without RocksDB, so this adds about 4 minutes cold, 2 warm). scripts/fuzz.sh
# without arguments fuzzes longer.
scripts/fuzz.sh --seconds 20
# docs/architecture.md names every Rust module and every Java package and class, in its layer (grep).
scripts/check-architecture.sh
# The release, for this machine's library only (`scripts/release.sh` builds the jar with all five
# platforms' libraries): the jar's assembly and checks (each library against its library.properties
# checksum, file(1), its exports), then the bundle Maven Central takes, signed with a throwaway key,
# checked against Central's rules (scripts/check-bundle.py, which also refuses damaged copies), and
# unpacked into dist/repository/ for ReleaseConsumersTest (tests module, below); the script that
# uploads it from the release workflow, against a fake of Central's publisher portal (every outcome,
# no secret on a command line or in its output), and its request for this bundle, dry.
scripts/check-release.sh
python3 scripts/test_publish_central.py
scripts/publish-central.sh --dry-run "dist/txn-rocksdb-$(scripts/version.sh --release)-bundle.zip"
# The linux-aarch64 path in smoke mode, so that it cannot rot: the cross toolchain (Debian's packages),
# qemu through binfmt_misc, and the format crate's tests built for aarch64 and run under qemu (a few
# minutes cold). The full emulated run cross-builds RocksDB (as long as the native build):
# `scripts/test-aarch64.sh`, a release check of its own. Debian x86_64 only (Debian's aarch64 Rust packages).
# The same for the Windows and macOS cross builds (Debian's Rust with its standard library built from
# source; MinGW-w64 and Wine, Zig): the format crate's tests built for x86_64-pc-windows-gnu and run
# under Wine, and built and linked for both macOS targets and checked (Mach-O, CPU, libSystem only).
# The full builds and the Wine run: scripts/build-native.sh --platform=..., scripts/test-windows.sh.
if [[ "$(uname -m)" == x86_64 ]] && grep -qx 'ID=debian' /etc/os-release 2>/dev/null; then
  scripts/test-aarch64.sh --smoke
  scripts/test-windows.sh --smoke
  scripts/smoke-darwin.sh
else
  echo "test.sh: the cross-build smoke tests (aarch64 under qemu, Windows under Wine, macOS) run on Debian x86_64 machines only (Debian's Rust packages); not run here"
fi
# The native library comes from $CARGO_TARGET_DIR (else target/), where cargo test just built RocksDB.
mvn -B --no-transfer-progress install
# Two builds of the Java part, in two directories some seconds apart, give byte-identical jars.
scripts/check-reproducible.sh
# The benchmark harness, smoke mode: the transactional check, then every benchmark once on tiny
# data in-process (figures mean nothing; results go to a temp dir, never to docs/).
bench/run.sh --smoke --no-build
# The end-to-end benchmarks, smoke mode: recovery after kill -9, exactly-once throughput and peak RSS
# with many stores, on tiny sizes against a real broker (~1.5 min; results to a temp dir, never to
# docs/ or bench/results). It packages the tests and bench modules first (nothing recompiles).
bench/e2e.sh --smoke
# The Gradle build of the library (Debian's gradle 4.4), and a Gradle app consuming this checkout
# through a composite build (includeBuild); both reuse $CARGO_TARGET_DIR. No daemon: a daemon left
# from an earlier build keeps that build's environment (its CARGO_TARGET_DIR) for the cargo it runs.
gradle -q --console=plain --no-daemon build
(cd examples/gradle-app && gradle -q --console=plain --no-daemon run)
# The README's demo, end to end and exactly as the README runs it: a real KRaft broker,
# exactly-once word count, kill -9 and restart.
./demo.sh
