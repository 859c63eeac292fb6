package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operators' tool ({@code tool/}: {@code java -jar txn-rocksdb-tool-<version>.jar}) run as its own
 * process, as an operator runs it, on the state directory of real applications on the broker
 * fixture: {@link EosCrashApp} (key-value, window and session stores) with our stores under both
 * strategies and with Kafka's own stores, side by side in one {@code state.dir}.
 *
 * <ul>
 *   <li>while an application runs, every command on its stores is refused (exit 3) and its store
 *       directories are byte for byte and time for time what they were;
 *   <li>once stopped, {@code inspect} finds every store of ours with its kind, value format and
 *       committed changelog offsets, and names Kafka's stores without opening them (their files
 *       untouched); {@code dump} shows exactly the counts the application wrote to its output;
 *   <li>a secondary-store application killed with {@code kill -9} in the middle of a transaction
 *       that spilled to the temporary store: {@code inspect} reports the uncommitted writes, {@code
 *       dump} shows none of them, and after the application ran again they are gone;
 *   <li>{@code verify} passes a clean store and finds a data file damaged in the middle (exit 1).
 * </ul>
 */
class ToolTest {
    static final int RECORDS = 20_000;
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theToolInspectsVerifiesAndDumpsRealStateAndNeverTouchesAStoreInUse() throws Exception {
        long t0 = System.nanoTime();
        String jar = System.getProperty("it.tool.jar");
        assertTrue(jar != null, "it.tool.jar: the tool's jar (tests/pom.xml sets it)");
        Path tool = Path.of(jar);
        assertTrue(Files.isRegularFile(tool), "the tool's jar (the tool module's build): " + tool);
        try (BrokerFixture kafka = BrokerFixture.start("tool")) {
            List<String> topics = new ArrayList<>(List.of(EosCrashApp.INPUT));
            for (String appId : List.of("tool-ib", "tool-kafka", "tool-ss")) {
                topics.addAll(
                        List.of(EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId), EosCrashApp.sessionOut(appId)));
            }
            kafka.createTopicsWithLeaders(2, topics);
            Path state = kafka.tmp.resolve("state");
            WordInput input = new WordInput(RECORDS, 17);
            input.produceUpTo(kafka, RECORDS);

            AppProcess ours = AppProcess.start("tool-ib", kafka, "tool-ib", state.toString(), true);
            AppProcess theirs = AppProcess.start("tool-kafka", kafka, "tool-kafka", state.toString(), false);
            try {
                kafka.awaitGroupCaughtUp("tool-ib", EosCrashApp.INPUT, 2, Duration.ofSeconds(120));
                kafka.awaitGroupCaughtUp("tool-kafka", EosCrashApp.INPUT, 2, Duration.ofSeconds(120));

                // in use: refused, nothing touched
                Path app = state.resolve("tool-ib");
                Path store = app.resolve("0_0").resolve(EosCrashApp.KV_STORE);
                Map<Path, String> before = fingerprint(app);
                for (List<String> command : List.of(
                        List.of("inspect", state.toString()),
                        List.of("inspect", app.toString()),
                        List.of("verify", store.toString()),
                        List.of("dump", store.toString()))) {
                    Run run = run(tool, command);
                    assertEquals(3, run.exit, command + " on a store in use: " + run);
                    assertTrue(
                            run.err.contains(app.toString()) || run.out.contains(app.toString()),
                            "the refusal names the directory: " + run);
                }
                assertEquals(before, fingerprint(app), "the tool changed a store in use");
                say("  in use: inspect, verify and dump refused (exit 3), the directory untouched");

                ours.stop();
                theirs.stop();

                // inspect: every store of ours, Kafka's named and left alone
                Map<Path, String> kafkas = fingerprint(state.resolve("tool-kafka"));
                Run inspect = run(tool, List.of("--json", "inspect", state.toString()));
                assertEquals(0, inspect.exit, inspect.toString());
                JsonNode report = JSON.readTree(inspect.out);
                Map<String, JsonNode> stores = new TreeMap<>();
                report.path("stores")
                        .forEach(s -> stores.put(
                                s.path("application").asText() + "/"
                                        + s.path("task").asText() + "/"
                                        + s.path("store").asText(),
                                s));
                List<String> expected = new ArrayList<>();
                for (String task : List.of("0_0", "0_1")) {
                    for (String name :
                            List.of(EosCrashApp.KV_STORE, EosCrashApp.WINDOW_STORE, EosCrashApp.SESSION_STORE)) {
                        expected.add("tool-ib/" + task + "/" + name);
                    }
                }
                assertEquals(new java.util.TreeSet<>(expected), stores.keySet(), inspect.out);
                for (Map.Entry<String, JsonNode> e : stores.entrySet()) {
                    JsonNode s = e.getValue();
                    String name = s.path("store").asText();
                    String kind = name.equals(EosCrashApp.KV_STORE)
                            ? "key-value"
                            : name.equals(EosCrashApp.WINDOW_STORE) ? "window" : "session";
                    assertEquals(kind, s.path("kind").asText(), e.getKey());
                    assertEquals("inspected", s.path("status").asText(), e.getKey() + ": " + s);
                    int partition = Integer.parseInt(s.path("task").asText().split("_")[1]);
                    JsonNode offsets = s.path("offsets");
                    assertEquals(1, offsets.size(), e.getKey() + ": " + s);
                    assertEquals(
                            "tool-ib-" + name + "-changelog",
                            offsets.get(0).path("topic").asText());
                    assertEquals(partition, offsets.get(0).path("partition").asInt());
                    assertTrue(offsets.get(0).path("offset").asLong() > 0, e.getKey() + ": " + s);
                    assertFalse(s.path("uncommittedPending").asBoolean()
                            || s.path("commitPending").asBoolean());
                    assertTrue(s.path("approximateKeys").asLong() > 0, e.getKey() + ": " + s);
                }
                List<String> kafkaStores = new ArrayList<>();
                report.path("kafkaStores")
                        .forEach(s -> kafkaStores.add(s.path("path").asText()));
                assertTrue(
                        kafkaStores.stream().anyMatch(p -> p.contains("tool-kafka") && p.contains("rocksdb")),
                        "Kafka's key-value stores named: " + kafkaStores);
                assertTrue(
                        kafkaStores.stream().anyMatch(p -> p.contains(EosCrashApp.WINDOW_STORE)),
                        "Kafka's window stores named: " + kafkaStores);
                assertEquals(kafkas, fingerprint(state.resolve("tool-kafka")), "the tool touched Kafka's stores");
                say("  inspect: " + stores.size() + " stores of ours, " + kafkaStores.size()
                        + " of Kafka's named and untouched");

                // dump: the counts the application wrote
                Map<String, Long> dumped = new TreeMap<>();
                for (String task : List.of("0_0", "0_1")) {
                    Path kv = app.resolve(task).resolve(EosCrashApp.KV_STORE);
                    Run dump = run(tool, List.of("--json", "dump", kv.toString(), "--limit", "100000"));
                    assertEquals(0, dump.exit, dump.toString());
                    for (JsonNode entry : JSON.readTree(dump.out).path("entries")) {
                        byte[] value = HexFormat.of()
                                .parseHex(entry.path("value").path("hex").asText());
                        // Kafka's timestamped value: 8 bytes of timestamp, then the count
                        long count = java.nio.ByteBuffer.wrap(value, 8, 8).getLong();
                        dumped.put(entry.path("key").path("utf8").asText(), count);
                    }
                }
                assertEquals(input.expKv, dumped, "dump shows the committed counts");
                say("  dump: " + dumped.size() + " words, every count as committed");
                // the text outputs, kept for a look (target/ of the tests module; the README's examples)
                Path examples = Files.createDirectories(Path.of("target", "tool-examples"));
                Files.writeString(
                        examples.resolve("inspect.txt"),
                        run(tool, List.of("inspect", app.resolve("0_0").toString())).out);
                Files.writeString(
                        examples.resolve("dump.txt"),
                        run(
                                        tool,
                                        List.of(
                                                "dump",
                                                app.resolve("0_1")
                                                        .resolve(EosCrashApp.WINDOW_STORE)
                                                        .toString(),
                                                "--limit",
                                                "3"))
                                .out);

                // verify: clean, then a data file damaged in the middle
                Run clean = run(tool, List.of("verify", store.toString()));
                assertEquals(0, clean.exit, clean.toString());
                Files.writeString(examples.resolve("verify.txt"), clean.out);
                // a data file garbled: the store's data is in its write-ahead log (the
                // stopped store's memtables were never flushed) or in an SST file
                Path file;
                try (Stream<Path> files = Files.list(store)) {
                    file = files.filter(p -> p.toString().endsWith(".log")
                                    || p.toString().endsWith(".sst"))
                            .max(java.util.Comparator.comparingLong(
                                    p -> p.toFile().length()))
                            .orElseThrow();
                }
                // in the first of RocksDB's 32 KiB log blocks, so that intact records follow the damage
                // (damage in a log's last block cannot be told from a write cut short by a power loss)
                assertTrue(Files.size(file) > 33 * 1024, file + " spans two blocks: " + Files.size(file));
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.seek(1_000);
                    byte[] garbage = new byte[64];
                    java.util.Arrays.fill(garbage, (byte) 0x5A);
                    f.write(garbage);
                }
                Run damaged = run(tool, List.of("verify", store.toString()));
                assertEquals(1, damaged.exit, damaged.toString());
                assertTrue(damaged.out.contains("DAMAGE"), damaged.toString());
                Files.writeString(examples.resolve("verify-damaged.txt"), damaged.out);
                say("  verify: clean exit 0; " + file.getFileName() + " garbled in its first block: exit 1");

                // a secondary-store transaction that spilled, cut short by kill -9
                AppProcess spilling = AppProcess.start(
                        "tool-ss",
                        kafka,
                        "tool-ss",
                        state.toString(),
                        true,
                        TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG + "=secondary-store",
                        TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG + "=0",
                        "commit.interval.ms=60000",
                        "producer.transaction.timeout.ms=120000");
                spilling.awaitLine(l -> l.equals("PROCESSED " + RECORDS), Duration.ofSeconds(120));
                spilling.process.destroyForcibly();
                spilling.process.waitFor(30, TimeUnit.SECONDS);
                Run pending = run(
                        tool,
                        List.of("--json", "inspect", state.resolve("tool-ss").toString()));
                assertEquals(0, pending.exit, pending.toString());
                boolean anyPending = false;
                for (JsonNode s : JSON.readTree(pending.out).path("stores")) {
                    anyPending |= s.path("uncommittedPending").asBoolean();
                    // Kafka Streams commits OFFSET_UNKNOWN (-4) for a store as it starts; with a 60 s commit
                    // interval nothing else was committed before the kill
                    for (JsonNode offset : s.path("offsets")) {
                        assertFalse(offset.path("known").asBoolean(), "a commit before the kill? " + s);
                    }
                    Path dir = Path.of(s.path("path").asText());
                    Run dump = run(tool, List.of("--json", "dump", dir.toString()));
                    assertEquals(0, dump.exit, dump.toString());
                    JsonNode committed = JSON.readTree(dump.out).path("entries");
                    assertEquals(
                            0,
                            committed.size(),
                            dir + ": nothing was committed, yet dump shows " + committed.size() + " entries");
                }
                assertTrue(anyPending, "no store reports the transaction cut short: " + pending.out);
                say("  kill -9 mid-transaction: uncommitted writes reported, none dumped");

                // run again: the uncommitted writes are thrown away, everything committed
                AppProcess again = AppProcess.start(
                        "tool-ss#2",
                        kafka,
                        "tool-ss",
                        state.toString(),
                        true,
                        TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG + "=secondary-store",
                        TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG + "=0");
                kafka.awaitGroupCaughtUp("tool-ss", EosCrashApp.INPUT, 2, Duration.ofSeconds(120));
                again.stop();
                Run after = run(
                        tool,
                        List.of("--json", "inspect", state.resolve("tool-ss").toString()));
                assertEquals(0, after.exit, after.toString());
                Map<String, Long> counts = new TreeMap<>();
                for (JsonNode s : JSON.readTree(after.out).path("stores")) {
                    assertFalse(s.path("uncommittedPending").asBoolean(), s.toString());
                    assertEquals(1, s.path("offsets").size(), s.toString());
                    if (!s.path("store").asText().equals(EosCrashApp.KV_STORE)) continue;
                    Run dump =
                            run(tool, List.of("--json", "dump", s.path("path").asText(), "--limit", "100000"));
                    for (JsonNode entry : JSON.readTree(dump.out).path("entries")) {
                        byte[] value = HexFormat.of()
                                .parseHex(entry.path("value").path("hex").asText());
                        counts.put(
                                entry.path("key").path("utf8").asText(),
                                java.nio.ByteBuffer.wrap(value, 8, 8).getLong());
                    }
                }
                assertEquals(input.expKv, counts, "the secondary-store application's counts, committed");
                say("  run again: nothing uncommitted left, every count committed");
            } catch (Throwable e) {
                kafka.showLogs("tool");
                throw e;
            } finally {
                for (AppProcess p : List.of(ours, theirs)) {
                    if (p.process.isAlive()) p.process.destroyForcibly();
                }
            }
        }
        say("  ToolTest took " + BrokerFixture.ms(t0) + " ms");
    }

    /** One run of the tool in a JVM of its own (POSIX locks belong to a process). */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    static Run run(Path tool, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-jar",
                tool.toAbsolutePath().toString()));
        command.addAll(args);
        Path out = Files.createTempFile("tool-out", ".txt");
        Path err = Files.createTempFile("tool-err", ".txt");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the tool took more than 2 minutes: " + args);
            return new Run(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Every file under {@code dir}: its size, modification time and bytes' hash. */
    static Map<Path, String> fingerprint(Path dir) throws IOException {
        Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                if (a.isDirectory()) continue;
                out.put(
                        dir.relativize(p),
                        a.size() + " " + a.lastModifiedTime() + " " + java.util.Arrays.hashCode(Files.readAllBytes(p)));
            }
        }
        return out;
    }
}
