package dev.txnrocksdb.tool;

import static dev.txnrocksdb.tool.ToolTesting.NEVER;
import static dev.txnrocksdb.tool.ToolTesting.fakeApp;
import static dev.txnrocksdb.tool.ToolTesting.fakeStore;
import static dev.txnrocksdb.tool.ToolTesting.listing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.tool.ToolTesting.FakeReader;
import dev.txnrocksdb.tool.ToolTesting.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool never reads what an application has open: with another process holding the
 * application directory's {@code .lock} (as a running Kafka Streams does) or a store's
 * {@code LOCK} (as RocksDB does while the store is open), every command refuses with exit code 3
 * and a message naming the directory, reads nothing and changes no file. The application is a
 * child JVM ({@link LockHolder}): POSIX locks belong to the process, so this JVM's own lock would
 * not keep this JVM's tool out. And while the tool reads, it holds its shared locks, so that an
 * application cannot start under it; when it is done, it holds none.
 */
class LockRefusalTest {
    @TempDir
    Path tmp;

    private Path app;
    private Path counts;
    private Path totals;

    @BeforeEach
    void fabricate() throws IOException {
        app = fakeApp(tmp.toRealPath().resolve("state/app"));
        counts = fakeStore(app.resolve("0_0/counts"));
        totals = fakeStore(app.resolve("0_1/totals"));
        fakeStore(app.resolve("0_1/rocksdb/kafka-kv"));
    }

    @Test
    void aRunningApplicationsDirectoryIsRefusedUntouched() throws Exception {
        Map<String, String> before = listing(app);
        try (LockHolder application = LockHolder.holding(app.resolve(".lock"))) {
            Result inspect = ToolTesting.runWithNatives("inspect", app.toString());
            assertEquals(TxnRocksDbTool.EXIT_REFUSED, inspect.exit(), inspect.out() + inspect.err());
            assertTrue(
                    inspect.out()
                            .contains("app/0_0/counts\n  directory: " + counts + "\n  REFUSED: the application"
                                    + " directory " + app
                                    + " is in use: a running Kafka Streams application holds its .lock."),
                    inspect.out());
            assertTrue(inspect.out().contains(StoreLocks.WHAT_TO_DO), inspect.out());
            assertTrue(inspect.out().contains("2 txn-rocksdb stores (2 in use, not read)"), inspect.out());

            Result json = ToolTesting.run(
                    NEVER, "--json", "inspect", app.resolve("0_1").toString());
            assertEquals(TxnRocksDbTool.EXIT_REFUSED, json.exit(), json.err());
            assertTrue(json.out().contains("\"status\": \"refused\""), json.out());

            for (String command : List.of("verify", "dump")) {
                Result result = ToolTesting.run(NEVER, command, counts.toString());
                assertEquals(TxnRocksDbTool.EXIT_REFUSED, result.exit(), command + ": " + result.err());
                assertEquals("", result.out());
                assertTrue(
                        result.err()
                                .startsWith("txn-rocksdb: refused: the application directory " + app + " is in use"),
                        result.err());
            }
        }
        assertEquals(before, listing(app), "no file changed");
    }

    @Test
    void anOpenStoreIsRefusedAndTheOthersAreRead() throws Exception {
        Map<String, String> before = listing(app);
        FakeReader reader = new FakeReader();
        try (LockHolder rocksdb = LockHolder.holding(counts.resolve("LOCK"))) {
            Result inspect = ToolTesting.run(reader, "inspect", app.toString());
            assertEquals(TxnRocksDbTool.EXIT_REFUSED, inspect.exit(), inspect.err());
            assertEquals(List.of(totals), reader.asked, "the store not in use was read");
            assertTrue(
                    inspect.out()
                            .contains("  REFUSED: the store " + counts + " is in use: an application has it open"
                                    + " (RocksDB holds its LOCK)."),
                    inspect.out());
            for (String command : List.of("verify", "dump")) {
                Result result = ToolTesting.run(NEVER, command, counts.toString());
                assertEquals(TxnRocksDbTool.EXIT_REFUSED, result.exit(), command + ": " + result.err());
                assertTrue(
                        result.err().startsWith("txn-rocksdb: refused: the store " + counts + " is in use"),
                        result.err());
            }
        }
        assertEquals(before, listing(app), "no file changed");
    }

    @Test
    void theToolHoldsItsLocksWhileItReadsAndReleasesThemAfter() throws Exception {
        Path appLock = app.resolve(".lock");
        Path storeLock = counts.resolve("LOCK");
        FakeReader reader = new FakeReader() {
            @Override
            public Facts facts(Path storeDir) {
                if (storeDir.equals(counts)) {
                    for (Path lock : List.of(appLock, storeLock)) {
                        try (LockHolder application = LockHolder.start(lock)) {
                            assertFalse(application.locked(), "an application locked " + lock + " under the tool");
                            assertEquals("NOT LOCKED", application.answer());
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                }
                return super.facts(storeDir);
            }
        };
        Result result = ToolTesting.run(reader, "inspect", app.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.err());
        assertEquals(List.of(counts, totals), reader.asked);
        for (Path lock : List.of(appLock, storeLock, totals.resolve("LOCK"))) {
            try (LockHolder application = LockHolder.start(lock)) {
                assertTrue(application.locked(), "the tool still holds " + lock + ": " + application.answer());
            }
        }
    }

    @Test
    void lockFilesAreNeverCreated() throws Exception {
        Path bare = tmp.toRealPath().resolve("bare/0_0/counts");
        Files.createDirectories(bare);
        Files.writeString(bare.resolve("CURRENT"), "MANIFEST-000005\n");
        Map<String, String> before = listing(tmp.resolve("bare"));
        FakeReader reader = new FakeReader();
        Result result = ToolTesting.run(reader, "verify", bare.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.err());
        assertEquals(List.of(bare), reader.asked);
        assertEquals(before, listing(tmp.resolve("bare")), "no LOCK or .lock created");
    }
}
