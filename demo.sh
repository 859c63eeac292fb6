#!/usr/bin/env bash
# One command demo: the tutorial's word count on a transactional txn-rocksdb store, on a real
# single-node KRaft broker that the demo starts (own JVM, loopback ports, temp dir) and stops itself.
# Then the app's JVM is killed with SIGKILL mid-stream and restarted: state comes back from the store.
# Needs: Java 17, Maven (and network access to Maven Central the first time); cargo only if the
# native library has not been built yet.
set -euo pipefail
cd "$(dirname "$0")"

# 1. The library, into ~/.m2 (cargo runs only when the native library is missing).
# test.sh passes TXN_ROCKSDB_LIB when cargo's output lives elsewhere (CARGO_TARGET_DIR).
lib="${TXN_ROCKSDB_LIB:-$PWD/target/release/libtxn_rocksdb_jni.so}"
if [[ -f "$lib" ]]; then
  CARGO_SKIP=true
else
  echo "native library missing: building it with cargo (first time only, takes a while)"
  CARGO_SKIP=false
fi
echo "==> mvn install txn-rocksdb-streams (tests skipped)"
mvn -B -q -Dstyle.color=never -Dcargo.skip="$CARGO_SKIP" -Dcargo.target.dir="$(dirname "$(dirname "$lib")")" \
  -pl java -am install -DskipTests

# 2. The example, a standalone Maven project depending on the installed artifact.
echo "==> building examples/wordcount"
cd examples/wordcount
mvn -B -q -Dstyle.color=never package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -DskipTests

# 3. Run it (it starts and stops its own broker; finishes by itself).
echo "==> running the demo"
exec timeout 600 java -cp "target/classes:$(cat target/classpath.txt)" dev.txnrocksdb.examples.wordcount.WordCountDemo
