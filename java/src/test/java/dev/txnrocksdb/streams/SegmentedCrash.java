package dev.txnrocksdb.streams;

import java.nio.file.Path;

/** Runs {@link SegmentedCrashWriterMain} in a child JVM and kills it with SIGKILL once it is ready. */
final class SegmentedCrash {
    private SegmentedCrash() {}

    static void runAndKill(String kind, Path stateDir, String storeName, long offset, TransactionStrategy strategy)
        throws Exception {
        ChildJvm.runUntilReadyThenKill(SegmentedCrashWriterMain.class, SegmentedCrashWriterMain.READY,
            kind, stateDir.toString(), storeName, Long.toString(offset), strategy.configName());
    }
}
