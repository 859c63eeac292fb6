package dev.txnrocksdb.tool;

import static dev.txnrocksdb.tool.ToolTesting.fakeApp;
import static dev.txnrocksdb.tool.ToolTesting.fakeStore;
import static dev.txnrocksdb.tool.ToolTesting.listing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.tool.StateLayout.Entry;
import dev.txnrocksdb.tool.StateLayout.Type;
import dev.txnrocksdb.tool.ToolTesting.FakeReader;
import dev.txnrocksdb.tool.ToolTesting.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout Kafka Streams 4.4 leaves under a state directory, fabricated here: our stores found
 * from any level (state.dir, application, named topology, task, store), Kafka's own stores (under
 * {@code rocksdb/}, and segment directories) and unknown directories named and never read, files
 * such as {@code .checkpoint} and {@code .lock} no stores.
 */
class StateLayoutTest {
    @TempDir
    Path tmp;

    private Path state;
    private Path app;

    @BeforeEach
    void fabricate() throws IOException {
        state = tmp.toRealPath().resolve("state");
        app = fakeApp(state.resolve("app"));
        Path task = Files.createDirectories(app.resolve("0_0"));
        Files.writeString(task.resolve(".checkpoint"), "0\n0\n");
        Files.writeString(task.resolve(".lock"), "");
        fakeStore(task.resolve("counts"));
        fakeStore(task.resolve("rocksdb/kv-store")); // Kafka's key-value store
        Files.createDirectories(task.resolve("rocksdb/no-current-yet"));
        fakeStore(task.resolve("windowed/windowed.1700000000000")); // Kafka's window store's segments
        fakeStore(task.resolve("windowed/windowed.1700000060000"));
        Files.writeString(
                Files.createDirectories(task.resolve(".restored.restoring")).resolve("000009.sst"), "x");
        Files.writeString(Files.createDirectories(task.resolve("junk")).resolve("notes.txt"), "x");
        fakeStore(app.resolve("0_10/totals"));
        fakeStore(app.resolve("0_2/sessions"));
        fakeStore(app.resolve("global/globals"));
        fakeStore(app.resolve("__orders__/1_0/joined"));
        Files.createDirectories(app.resolve("stray"));
        Files.writeString(Files.createDirectories(state.resolve("other")).resolve("readme"), "x");
    }

    private static String describe(Entry entry) {
        return entry.type() + " " + entry.name();
    }

    private static List<String> describe(StateLayout layout) {
        return layout.entries().stream().map(StateLayoutTest::describe).toList();
    }

    @Test
    void aStateDirectoryListsEverythingInOrder() throws IOException {
        StateLayout layout = StateLayout.scan(state);
        assertEquals(
                List.of(
                        "RESTORING app/0_0/.restored.restoring",
                        "STORE app/0_0/counts",
                        "UNKNOWN app/0_0/junk",
                        "KAFKA_STORE app/0_0/rocksdb/kv-store",
                        "KAFKA_STORE app/0_0/rocksdb/no-current-yet",
                        "KAFKA_STORE app/0_0/windowed",
                        "STORE app/0_2/sessions",
                        "STORE app/0_10/totals",
                        "STORE app/__orders__/1_0/joined",
                        "STORE app/global/globals",
                        "UNKNOWN app/stray",
                        "UNKNOWN other"),
                describe(layout));
        Entry counts = layout.entries().get(1);
        assertEquals(app.resolve("0_0/counts"), counts.path());
        assertEquals(app, counts.appDir());
        assertEquals("app", counts.application());
        assertEquals("0_0", counts.task());
        assertEquals("counts", counts.store());
        Entry joined = layout.entries(Type.STORE).get(3);
        assertEquals("__orders__/1_0", joined.task());
        assertEquals(app, joined.appDir());
        assertEquals("restored", layout.entries(Type.RESTORING).get(0).store());
        assertEquals(StateLayout.RESTORE, layout.entries(Type.RESTORING).get(0).what());
        assertEquals(
                StateLayout.KAFKA_STORE, layout.entries(Type.KAFKA_STORE).get(0).what());
        assertEquals(StateLayout.UNKNOWN_EMPTY, layout.entries().get(10).what());
        assertEquals(StateLayout.UNKNOWN, layout.entries().get(11).what());
    }

    @Test
    void anyLevelBelowFindsWhatIsUnderIt() throws IOException {
        assertEquals(describe(StateLayout.scan(state)).subList(0, 11), describe(StateLayout.scan(app)));
        assertEquals(
                List.of(
                        "RESTORING app/0_0/.restored.restoring",
                        "STORE app/0_0/counts",
                        "UNKNOWN app/0_0/junk",
                        "KAFKA_STORE app/0_0/rocksdb/kv-store",
                        "KAFKA_STORE app/0_0/rocksdb/no-current-yet",
                        "KAFKA_STORE app/0_0/windowed"),
                describe(StateLayout.scan(app.resolve("0_0"))));
        assertEquals(List.of("STORE app/__orders__/1_0/joined"), describe(StateLayout.scan(app.resolve("__orders__"))));
        assertEquals(
                List.of("STORE app/__orders__/1_0/joined"), describe(StateLayout.scan(app.resolve("__orders__/1_0"))));
        assertEquals(
                List.of("KAFKA_STORE app/0_0/rocksdb/kv-store", "KAFKA_STORE app/0_0/rocksdb/no-current-yet"),
                describe(StateLayout.scan(app.resolve("0_0/rocksdb"))));
    }

    @Test
    void aStoreGivenDirectlyKeepsItsApplicationAndTask() throws IOException {
        StateLayout layout = StateLayout.scan(app.resolve("0_10/totals"));
        assertEquals(List.of("STORE app/0_10/totals"), describe(layout));
        assertEquals(app, layout.entries().get(0).appDir());
        assertEquals(
                List.of("KAFKA_STORE app/0_0/rocksdb/kv-store"),
                describe(StateLayout.scan(app.resolve("0_0/rocksdb/kv-store"))));
        assertEquals(
                List.of("KAFKA_STORE app/0_0/windowed"),
                describe(StateLayout.scan(app.resolve("0_0/windowed/windowed.1700000000000"))));
        assertEquals(List.of("KAFKA_STORE app/0_0/windowed"), describe(StateLayout.scan(app.resolve("0_0/windowed"))));

        Path copy = fakeStore(tmp.resolve("copies/counts"));
        StateLayout alone = StateLayout.scan(copy);
        assertEquals(List.of("STORE counts"), describe(alone));
        assertNull(alone.entries().get(0).appDir(), "a copy outside any application: no application lock to take");
        assertEquals(List.of("STORE counts"), describe(StateLayout.scan(copy.getParent())));
    }

    @Test
    void inspectReadsOurStoresOnlyAndChangesNothing() throws IOException {
        Map<String, String> before = listing(state);
        FakeReader reader = new FakeReader();
        Result result = ToolTesting.run(reader, "inspect", state.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.err());
        assertEquals(
                List.of(
                        app.resolve("0_0/counts"),
                        app.resolve("0_2/sessions"),
                        app.resolve("0_10/totals"),
                        app.resolve("__orders__/1_0/joined"),
                        app.resolve("global/globals")),
                reader.asked,
                "read our stores, and nothing else");
        assertEquals(before, listing(state), "nothing under the state directory changed");
        String out = result.out();
        assertTrue(
                out.contains("app/0_0/counts\n  directory: " + app.resolve("0_0/counts") + "\n  kind: key-value\n"),
                out);
        assertTrue(out.contains("  value format: timestamped\n"), out);
        assertTrue(out.contains("    app-counts-changelog partition 0: 41\n"), out);
        assertTrue(out.contains("  approximate keys: 3\n"), out);
        assertTrue(out.contains("  size on disk: 4.0 KiB of live data, 100 bytes of write-ahead log; "), out);
        assertTrue(out.contains("app/0_0/rocksdb/kv-store: Kafka Streams' own store (not inspected)\n"), out);
        assertTrue(out.contains("app/0_0/windowed: Kafka Streams' own store (not inspected)\n"), out);
        assertTrue(out.contains("app/0_0/.restored.restoring: a snapshot restore in progress (or cut short)\n"), out);
        assertTrue(out.contains("app/stray: unknown directory (empty)\n"), out);
        assertTrue(out.contains("other: unknown directory\n"), out);
        assertTrue(
                out.endsWith("5 txn-rocksdb stores, 3 stores of Kafka Streams' own, 1 snapshot restore directory,"
                        + " 3 unknown directories.\n"),
                out);
    }
}
