#!/usr/bin/env bash
# One command demo: the tutorial's word count on a transactional txn-rocksdb store, on a real
# single-node KRaft broker that the demo starts (own JVM, loopback ports, temp dir) and stops itself.
# Then the app's JVM is killed with SIGKILL mid-stream and restarted: state comes back from the store.
#
# Needs Rust (rustup) and, on Debian/Ubuntu as root, nothing else: scripts/install-deps.sh installs
# what is missing (libclang, a C++ compiler, JDK 17, Maven). Maven downloads its dependencies from
# Maven Central the first time. Cargo's output goes to $CARGO_TARGET_DIR (else target/), which
# every build of this repository shares.
set -euo pipefail
cd "$(dirname "$0")"

echo "==> checking the build's system packages (scripts/install-deps.sh)"
scripts/install-deps.sh
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

# 1. The native library, with cargo's own progress.
if ! compgen -G "$CARGO_TARGET_DIR/release/build/rust-librocksdb-sys-*/out/librocksdb.a" >/dev/null; then
  cat <<MSG
==> first build: cargo compiles RocksDB's C++ (the storage engine our Rust core links statically)
    together with the Rust crates. This takes 15 to 35 minutes on 2 cores (less with more cores:
    cargo builds in parallel), once: later runs reuse $CARGO_TARGET_DIR
    and start the demo in under a minute. Cargo's progress follows; the RocksDB step
    (rust-librocksdb-sys build script) prints nothing while it compiles.
MSG
fi
echo "==> cargo build --release --workspace (target dir: $CARGO_TARGET_DIR)"
cargo build --release --workspace

# 2. The library jar, with that native library inside, into ~/.m2 (where the example finds it).
echo "==> mvn install txn-rocksdb-streams into ~/.m2 (tests skipped)"
mvn -B -q -Dstyle.color=never -Dcargo.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
  -pl java -am install -DskipTests

# 3. The example, a standalone Maven project depending on the installed artifact.
echo "==> building examples/wordcount"
cd examples/wordcount
mvn -B -q -Dstyle.color=never package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -DskipTests

# 4. Run it (it starts and stops its own broker; finishes by itself).
echo "==> running the demo"
exec timeout 600 java -cp "target/classes:$(cat target/classpath.txt)" dev.txnrocksdb.examples.wordcount.WordCountDemo
