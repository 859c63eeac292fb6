package dev.txnrocksdb.streams.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.CommitCrashWriterMain;
import dev.txnrocksdb.streams.children.ReopenLoggingMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.fixtures.CopyProbe;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the native code logs reaches SLF4J: a secondary-store commit killed with SIGKILL while it
 * copies (its commit record in the WAL file, {@link CopyProbe}) is rolled forward when the store
 * reopens, and the engine's message about it appears in the reopening JVM's SLF4J log
 * (slf4j-simple, on its stderr), under the logger named after the Rust module; records below the
 * logger's level do not.
 */
class NativeLoggingTest {
    private static final String STORE = "logged-store";
    private static final String ROLL_FORWARD_LOGGER = "dev.txnrocksdb.native.txn_rocksdb.secondary.roll_forward";
    private static final String OPEN_LOGGER = "dev.txnrocksdb.native.txn_rocksdb.store";

    @TempDir
    Path stateDir;

    @Test
    void theRollForwardAfterACrashIsInTheApplicationsLog() throws Exception {
        // 150 MB: the copy takes long enough (some 40 writes) to kill the writer in the middle of it
        ChildJvm writer = ChildJvm.start(
                CommitCrashWriterMain.class,
                stateDir.toString(),
                STORE,
                TransactionStrategy.SECONDARY_STORE.configName(),
                "150000",
                "1000");
        try {
            CopyProbe probe = new CopyProbe(stateDir.resolve(STORE));
            writer.awaitLine(CommitCrashWriterMain.COMMITTING);
            assertTrue(
                    writer.pollUntil(probe::commitRecordWritten),
                    "the commit's record never reached the WAL: " + writer.output());
        } finally {
            writer.killAndAssertSigkill();
        }
        assertFalse(writer.output().contains(CommitCrashWriterMain.COMMITTED), "killed before the commit finished");

        List<String> infoLog = reopen("info");
        String rolledForward = infoLog.stream()
                .filter(line -> line.contains("rolled forward a commit interrupted by a crash"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no roll-forward message in " + infoLog));
        assertTrue(rolledForward.contains("INFO " + ROLL_FORWARD_LOGGER + " - store "), rolledForward);
        assertTrue(rolledForward.contains(stateDir.resolve(STORE).toString()), rolledForward);
        assertTrue(
                infoLog.stream().noneMatch(line -> line.contains(OPEN_LOGGER)),
                "debug records are filtered at info: " + infoLog);

        List<String> debugLog = reopen("debug");
        assertTrue(
                debugLog.stream().anyMatch(line -> line.contains("DEBUG " + OPEN_LOGGER + " - opened store")),
                "debug records pass once the logger enables debug: " + debugLog);
        assertTrue(
                debugLog.stream().noneMatch(line -> line.contains("rolled forward")),
                "nothing left to roll forward: " + debugLog);
    }

    /** Reopens the store in a child JVM whose {@code dev.txnrocksdb.native} loggers are at {@code level}; its output. */
    private List<String> reopen(String level) throws Exception {
        ChildJvm child = ChildJvm.start(
                ReopenLoggingMain.class,
                stateDir.toString(),
                STORE,
                TransactionStrategy.SECONDARY_STORE.configName(),
                level);
        int exit = child.awaitExit();
        List<String> output = child.output();
        assertEquals(0, exit, "the child exits normally, native logging included: " + output);
        assertTrue(output.contains(ReopenLoggingMain.CLOSED), String.valueOf(output));
        return output.stream()
                .filter(line -> line.contains("dev.txnrocksdb.native"))
                .collect(Collectors.toList());
    }
}
