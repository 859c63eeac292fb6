package dev.txnrocksdb.tool;

import static dev.txnrocksdb.tool.ToolTesting.facts;
import static dev.txnrocksdb.tool.ToolTesting.fakeApp;
import static dev.txnrocksdb.tool.ToolTesting.fakeStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.internals.nativeapi.CorruptionPolicy;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpChunk;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpEntry;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Finding;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.NextOpen;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Outcome;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Severity;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.StoreKind;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Verification;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import dev.txnrocksdb.tool.ToolTesting.FakeReader;
import dev.txnrocksdb.tool.ToolTesting.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each command prints and the exit code it returns, for what the natives answer (a stand-in
 * here: {@code ToolOnRealStoresTest} runs the real ones): damage is exit code 1, a store that could
 * not be read 4 (the other stores still read), a dump pages through chunks up to its limit.
 */
class CommandsTest {
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
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void inspectShowsEveryFactAndFindsDamage() {
        FakeReader reader = new FakeReader();
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        offsets.put(new TopicPartition("app-counts-changelog", 0), 41L);
        offsets.put(new TopicPartition("caf\u00e9", 7), -4L);
        reader.facts = new Facts(
                StoreKind.WINDOW,
                ValueFormat.TIMESTAMPED_WITH_HEADERS,
                true,
                true,
                1_700_000_000_000L,
                true,
                true,
                1_234,
                5L << 30,
                4_096,
                offsets,
                List.of(
                        new Finding(Severity.NOTE, "a torn tail"),
                        new Finding(Severity.DAMAGE, "000012.sst: checksum")));
        Result text = ToolTesting.run(reader, "inspect", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_DAMAGE, text.exit(), text.err());
        assertEquals(
                String.join(
                        "\n",
                        "app/0_0/counts",
                        "  directory: " + counts,
                        "  kind: window",
                        "  value format: timestamped-with-headers",
                        "  time-to-live: yes, store time 1700000000000 (2023-11-14T22:13:20Z)",
                        "  committed changelog offsets:",
                        "    app-counts-changelog partition 0: 41",
                        "    caf\u00e9 partition 7: -4 (unknown: nothing processed or restored yet)",
                        "  approximate keys: 1234",
                        "  size on disk: 5.0 GiB of live data, 4.0 KiB of write-ahead log; 19 bytes in the directory",
                        "  pending: " + InspectCommand.COMMIT_PENDING,
                        "  pending: " + InspectCommand.UNCOMMITTED_PENDING,
                        "  pending: " + InspectCommand.UPGRADE_PENDING,
                        "  NOTE: a torn tail",
                        "  DAMAGE: 000012.sst: checksum",
                        "",
                        "1 txn-rocksdb store (1 with damage), 0 stores of Kafka Streams' own, 0 snapshot restore"
                                + " directories, 0 unknown directories.",
                        ""),
                text.out());

        Result json = ToolTesting.run(reader, "inspect", "--json", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_DAMAGE, json.exit(), json.err());
        assertEquals(
                String.join(
                        "\n",
                        "{",
                        "  \"path\": " + JsonWriter.quote(counts.toString()) + ",",
                        "  \"stores\": [",
                        "    {",
                        "      \"name\": \"app/0_0/counts\",",
                        "      \"path\": " + JsonWriter.quote(counts.toString()) + ",",
                        "      \"application\": \"app\",",
                        "      \"task\": \"0_0\",",
                        "      \"store\": \"counts\",",
                        "      \"status\": \"inspected\",",
                        "      \"kind\": \"window\",",
                        "      \"valueFormat\": \"timestamped-with-headers\",",
                        "      \"upgradePending\": true,",
                        "      \"timeToLive\": true,",
                        "      \"storeTime\": 1700000000000,",
                        "      \"commitPending\": true,",
                        "      \"uncommittedPending\": true,",
                        "      \"approximateKeys\": 1234,",
                        "      \"liveDataBytes\": 5368709120,",
                        "      \"walBytes\": 4096,",
                        "      \"directoryBytes\": 19,",
                        "      \"offsets\": [",
                        "        {",
                        "          \"topic\": \"app-counts-changelog\",",
                        "          \"partition\": 0,",
                        "          \"offset\": 41,",
                        "          \"known\": true",
                        "        },",
                        "        {",
                        "          \"topic\": \"caf\\u00e9\",",
                        "          \"partition\": 7,",
                        "          \"offset\": -4,",
                        "          \"known\": false",
                        "        }",
                        "      ],",
                        "      \"findings\": [",
                        "        {",
                        "          \"severity\": \"note\",",
                        "          \"what\": \"a torn tail\"",
                        "        },",
                        "        {",
                        "          \"severity\": \"damage\",",
                        "          \"what\": \"000012.sst: checksum\"",
                        "        }",
                        "      ],",
                        "      \"damage\": true",
                        "    }",
                        "  ],",
                        "  \"kafkaStores\": [],",
                        "  \"otherDirectories\": []",
                        "}",
                        ""),
                json.out());
    }

    @Test
    void aStoreOfAnOlderVersionShowsWhatItDoesNotRecord() {
        FakeReader reader = new FakeReader();
        reader.facts = new Facts(
                null, null, false, false, StoreInspection.NO_TIME, false, false, 0, 0, 0, Map.of(), List.of());
        Result text = ToolTesting.run(reader, "inspect", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, text.exit(), text.err());
        assertTrue(text.out().contains("  kind: not recorded (a store written by an older version)\n"), text.out());
        assertTrue(text.out().contains("  value format: none recorded (an empty store)\n"), text.out());
        assertTrue(text.out().contains("  time-to-live: no\n"), text.out());
        assertTrue(text.out().contains("  committed changelog offsets: none\n"), text.out());
        Result json = ToolTesting.run(reader, "--json", "inspect", counts.toString());
        assertTrue(json.out().contains("\"kind\": null,"), json.out());
        assertTrue(json.out().contains("\"storeTime\": null,"), json.out());
    }

    @Test
    void aStoreThatCannotBeReadFailsTheCommandAfterTheOthers() {
        FakeReader reader = new FakeReader() {
            @Override
            public Facts facts(Path storeDir) {
                if (storeDir.equals(counts)) {
                    asked.add(storeDir);
                    throw new ProcessorStateException("store " + storeDir + ": MANIFEST-000005 is missing");
                }
                return super.facts(storeDir);
            }
        };
        reader.facts = facts(new Finding(Severity.DAMAGE, "damaged"));
        Result result = ToolTesting.run(reader, "inspect", app.toString());
        assertEquals(TxnRocksDbTool.EXIT_FAILED, result.exit(), "failed outranks damage");
        assertEquals(List.of(counts, totals), reader.asked);
        assertTrue(result.out().contains("  FAILED: store " + counts + ": MANIFEST-000005 is missing\n"), result.out());
        assertTrue(result.out().contains("  DAMAGE: damaged\n"), result.out());
    }

    @Test
    void aFailureIsAMessageWithoutAStackTrace() {
        FakeReader reader = new FakeReader() {
            @Override
            public Verification verify(Path storeDir) {
                throw new IllegalStateException("store verification: version 9, expected 1");
            }
        };
        Result result = ToolTesting.run(reader, "verify", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_FAILED, result.exit());
        assertEquals(
                "txn-rocksdb: failed: store verification: version 9, expected 1\n"
                        + "(TXN_ROCKSDB_TOOL_DEBUG=1 prints the stack trace)\n",
                result.err());
    }

    @Test
    void verifySaysWhatEachPolicyWouldDo() {
        FakeReader reader = new FakeReader();
        reader.verification = new Verification(
                List.of(new Finding(Severity.DAMAGE, "000012.sst: checksum mismatch")),
                List.of(
                        new NextOpen(CorruptionPolicy.REFUSE, Outcome.REFUSES, "damaged"),
                        new NextOpen(CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT, Outcome.REFUSES, "damaged"),
                        new NextOpen(CorruptionPolicy.RESTORE_FROM_CHANGELOG, Outcome.WIPES, "")));
        Result text = ToolTesting.run(reader, "verify", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_DAMAGE, text.exit(), text.err());
        assertEquals(List.of(counts), reader.asked);
        assertEquals(
                String.join(
                        "\n",
                        "app/0_0/counts",
                        "  directory: " + counts,
                        "  findings:",
                        "    DAMAGE: 000012.sst: checksum mismatch",
                        "  the next open, by damage policy:",
                        "    refuse (" + Words.whenChosen(CorruptionPolicy.REFUSE) + "): refuses to open: damaged",
                        "    open-at-last-consistent-commit ("
                                + Words.whenChosen(CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT)
                                + "): refuses to open: damaged",
                        "    restore-from-changelog (" + Words.whenChosen(CorruptionPolicy.RESTORE_FROM_CHANGELOG)
                                + "): deletes the store's files and opens empty (the changelog restores all of it)",
                        "Damage found.",
                        ""),
                text.out());
        Result json = ToolTesting.run(reader, "--json", "verify", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_DAMAGE, json.exit());
        assertTrue(
                json.out()
                        .contains("      \"policy\": \"open-at-last-consistent-commit\",\n"
                                + "      \"outcome\": \"refuses\",\n      \"detail\": \"damaged\"\n"),
                json.out());
        assertTrue(json.out().endsWith("  \"damage\": true\n}\n"), json.out());

        Result fine = ToolTesting.run(new FakeReader(), "verify", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, fine.exit());
        assertTrue(fine.out().contains("  findings: none\n"), fine.out());
        assertTrue(fine.out().endsWith("No damage found.\n"), fine.out());
    }

    @Test
    void dumpPagesThroughChunksUpToItsLimit() {
        FakeReader reader = new FakeReader();
        reader.facts = new Facts(
                StoreKind.WINDOW,
                ValueFormat.TIMESTAMPED,
                false,
                false,
                StoreInspection.NO_TIME,
                false,
                false,
                3,
                0,
                0,
                Map.of(),
                List.of());
        reader.chunks = List.of(
                new DumpChunk(
                        new byte[] {1},
                        List.of(
                                new DumpEntry(utf8("alpha"), utf8("1"), 1_700_000_000_000L, 0),
                                new DumpEntry(new byte[] {0, 1}, new byte[] {(byte) 0xff}, 1_700_000_000_000L, 1))),
                new DumpChunk(
                        new byte[] {2}, List.of(new DumpEntry(utf8("beta"), utf8(""), 5, StoreInspection.NO_TIME))),
                new DumpChunk(null, List.of(new DumpEntry(utf8("gamma"), utf8("3"), 6, 0))));
        Result all = ToolTesting.run(reader, "dump", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, all.exit(), all.err());
        assertEquals(
                String.join(
                        "\n",
                        "alpha -> 1  [window start 1700000000000 (2023-11-14T22:13:20Z), sequence 0]",
                        "hex:0001 -> hex:ff  [window start 1700000000000 (2023-11-14T22:13:20Z), sequence 1]",
                        "beta -> hex:  [window start 5 (1970-01-01T00:00:00.005Z)]",
                        "gamma -> 3  [window start 6 (1970-01-01T00:00:00.006Z), sequence 0]",
                        ""),
                all.out());
        assertEquals("", all.err());
        assertEquals(List.of(100, 98, 97), reader.maxEntries, "min(the entries left to show, 10000) each time");

        reader.maxEntries.clear();
        Result limited = ToolTesting.run(reader, "dump", "--limit", "3", "--hex", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, limited.exit());
        assertEquals(List.of(3, 1), reader.maxEntries);
        assertEquals(3, limited.out().lines().count());
        assertTrue(limited.out().startsWith("hex:616c706861 -> hex:31  [window start"), limited.out());
        assertTrue(limited.err().startsWith("(3 entries shown, the limit; more may follow"), limited.err());

        reader.maxEntries.clear();
        Result json = ToolTesting.run(reader, "--json", "dump", "--limit=2", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, json.exit());
        assertEquals(List.of(2), reader.maxEntries);
        assertEquals(
                String.join(
                        "\n",
                        "{",
                        "  \"name\": \"app/0_0/counts\",",
                        "  \"path\": " + JsonWriter.quote(counts.toString()) + ",",
                        "  \"application\": \"app\",",
                        "  \"task\": \"0_0\",",
                        "  \"store\": \"counts\",",
                        "  \"kind\": \"window\",",
                        "  \"entries\": [",
                        "    {",
                        "      \"key\": {",
                        "        \"hex\": \"616c706861\",",
                        "        \"utf8\": \"alpha\"",
                        "      },",
                        "      \"value\": {",
                        "        \"hex\": \"31\",",
                        "        \"utf8\": \"1\"",
                        "      },",
                        "      \"windowStart\": 1700000000000,",
                        "      \"sequence\": 0",
                        "    },",
                        "    {",
                        "      \"key\": {",
                        "        \"hex\": \"0001\"",
                        "      },",
                        "      \"value\": {",
                        "        \"hex\": \"ff\"",
                        "      },",
                        "      \"windowStart\": 1700000000000,",
                        "      \"sequence\": 1",
                        "    }",
                        "  ],",
                        "  \"count\": 2,",
                        "  \"limitReached\": true",
                        "}",
                        ""),
                json.out());
    }

    @Test
    void dumpPassesItsRangeAndNamesEachKindsTimes() {
        List<byte[][]> ranges = new ArrayList<>();
        FakeReader reader = new FakeReader() {
            @Override
            public DumpChunk dump(Path storeDir, byte[] from, byte[] to, byte[] resume, int max) {
                ranges.add(new byte[][] {from, to});
                return super.dump(storeDir, from, to, resume, max);
            }
        };
        Result result = ToolTesting.run(reader, "dump", "--from", "hex:00ff", "--to", "k9", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.err());
        assertEquals("00ff", ByteText.hex(ranges.get(0)[0]));
        assertEquals("k9", new String(ranges.get(0)[1], StandardCharsets.UTF_8));

        DumpEntry both = new DumpEntry(utf8("k"), utf8("v"), 1_000, 2_000);
        assertEquals(
                "k -> v  [session start 1000 (1970-01-01T00:00:01Z), session end 2000 (1970-01-01T00:00:02Z)]",
                DumpCommand.text(both, DumpCommand.Labels.of(StoreKind.SESSION), false));
        DumpEntry first = new DumpEntry(utf8("k"), utf8("v"), 1_000, StoreInspection.NO_TIME);
        assertEquals(
                "k -> v  [write time 1000 (1970-01-01T00:00:01Z)]",
                DumpCommand.text(first, DumpCommand.Labels.of(StoreKind.KEY_VALUE), false));
        assertEquals(
                "k -> v  [valid from 1000 (1970-01-01T00:00:01Z)]",
                DumpCommand.text(first, DumpCommand.Labels.of(StoreKind.VERSIONED), false));
        assertEquals(
                "k -> v",
                DumpCommand.text(
                        new DumpEntry(utf8("k"), utf8("v"), StoreInspection.NO_TIME, StoreInspection.NO_TIME),
                        DumpCommand.Labels.of(StoreKind.KEY_VALUE),
                        false));
    }
}
