package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operators' tool's {@code snapshots} commands on a real application's snapshots in a {@code
 * file://} location: {@code list} shows every store's snapshots; {@code verify} downloads and checks
 * them; {@code fetch} prepares a new host's state directory before its application starts, and the
 * application then opens every store on the fetched snapshot and restores only the changelog's tail
 * after it (its restores start at the snapshot's offset + 1), exactly-once. Then a damaged object
 * and a missing one: {@code verify} names the stores (exit 1), and {@code fetch} falls back to an
 * older intact snapshot.
 */
class ToolSnapshotsTest {
    static final int PARTITIONS = 2;
    static final int RECORDS = 8_000;
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void snapshotsAreListedVerifiedAndFetchedForANewHost() throws Exception {
        long t0 = System.nanoTime();
        String jar = System.getProperty("it.tool.jar");
        assertTrue(jar != null, "it.tool.jar: the tool's jar (tests/pom.xml sets it)");
        Path tool = Path.of(jar);
        String appId = "tool-snapshots";
        try (BrokerFixture kafka = BrokerFixture.start("tool-snapshots")) {
            String inputTopic = appId + "-input";
            kafka.createTopicsWithLeaders(
                    PARTITIONS,
                    List.of(
                            inputTopic,
                            EosCrashApp.kvOut(appId),
                            EosCrashApp.windowOut(appId),
                            EosCrashApp.sessionOut(appId)));
            WordInput input = new WordInput(RECORDS, 11L).topic(inputTopic);
            Path snapshots = Files.createDirectories(kafka.tmp.resolve("snapshots"));
            String location = snapshots.toUri().toString();

            // the first host: half the input, snapshots every 300 ms, then stopped
            input.produceUpTo(kafka, RECORDS / 2);
            Path firstHost = kafka.tmp.resolve("host1");
            AppProcess app = AppProcess.start(
                    "tool-snapshots#0",
                    kafka,
                    appId,
                    firstHost.toString(),
                    true,
                    EosCrashApp.INPUT_ARG + "=" + inputTopic,
                    "txn.rocksdb.snapshot.interval.ms=300",
                    "txn.rocksdb.snapshot.location=" + location);
            try {
                kafka.awaitGroupCaughtUp(appId, inputTopic, PARTITIONS, Duration.ofSeconds(120));
                Thread.sleep(2_000); // a snapshot after the last commit
            } finally {
                app.stop();
            }

            // list: every store of every partition, each with its newest usable snapshot
            ToolTest.Run list = ToolTest.run(tool, List.of("--json", "snapshots", "list", location));
            assertEquals(0, list.exit(), list.toString());
            Map<String, JsonNode> stores = new TreeMap<>();
            JSON.readTree(list.out())
                    .path("stores")
                    .forEach(s -> stores.put(s.path("storeId").asText(), s));
            assertEquals(3 * PARTITIONS, stores.size(), list.out());
            for (JsonNode store : stores.values()) {
                assertTrue(store.path("newestUsable").asLong() > 0, store.toString());
            }
            ToolTest.Run text = ToolTest.run(tool, List.of("snapshots", "list", location));
            Path examples = Files.createDirectories(Path.of("target", "tool-examples"));
            Files.writeString(examples.resolve("snapshots-list.txt"), text.out());
            ToolTest.Run verify = ToolTest.run(tool, List.of("snapshots", "verify", location));
            assertEquals(0, verify.exit(), verify.toString());
            Files.writeString(examples.resolve("snapshots-verify.txt"), verify.out());
            say("  list and verify: " + stores.size() + " stores, every newest snapshot intact");

            // a new host prepared with fetch before its application starts
            input.produceUpTo(kafka, RECORDS);
            Path secondHost = kafka.tmp.resolve("host2");
            Map<String, Long> fetchedOffsets = new TreeMap<>();
            for (String storeId : stores.keySet()) {
                // <application.id>/<store>/<partition>-<changelog topic id>; the store's task is 0_<partition>
                String[] parts = storeId.split("/");
                String partition = parts[2].substring(0, parts[2].indexOf('-'));
                Path dir = secondHost.resolve(appId).resolve("0_" + partition).resolve(parts[1]);
                ToolTest.Run fetch =
                        ToolTest.run(tool, List.of("--json", "snapshots", "fetch", location, storeId, dir.toString()));
                assertEquals(0, fetch.exit(), fetch.toString());
                JsonNode offset = JSON.readTree(fetch.out()).path("offsets").get(0);
                fetchedOffsets.put(
                        offset.path("topic").asText() + "-"
                                + offset.path("partition").asInt() + " " + parts[1],
                        offset.path("offset").asLong());
            }
            AppProcess second = AppProcess.start(
                    "tool-snapshots#1",
                    kafka,
                    appId,
                    secondHost.toString(),
                    true,
                    EosCrashApp.INPUT_ARG + "=" + inputTopic);
            try {
                second.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
                List<String> starts = second.linesFrom(0).stream()
                        .filter(l -> l.startsWith("RESTORE-START "))
                        .toList();
                // every restore starts right after the fetched snapshot's offset: nothing before it
                for (String line : starts) {
                    String[] f = line.split(" ");
                    Long fetched = fetchedOffsets.get(f[1] + " " + f[2]);
                    assertTrue(fetched != null, "a restore of a store nothing was fetched for: " + line);
                    assertEquals(fetched + 1, Long.parseLong(f[3]), "restored from the fetched snapshot: " + line);
                }
                long restored = second.restoredTotal();
                long changelogTotal = BrokerFixture.sum(kafka.endOffsets(EosCrashApp.changelogs(appId), PARTITIONS));
                say("  fetch then start: " + starts.size() + " stores restored the tail after the fetched snapshot, "
                        + restored + " of " + changelogTotal + " changelog records");
                assertTrue(restored * 2 < changelogTotal, "restored " + restored + " of " + changelogTotal);
                SnapshotRestoreTest.assertExactlyOnce(
                        kafka, appId, input, PARTITIONS, RECORDS, "after a start on fetched snapshots");
            } finally {
                second.stop();
            }

            // a damaged object and a missing one: verify names both stores, fetch takes an older snapshot
            List<String> damagedStores = new ArrayList<>(stores.keySet()).subList(0, 2);
            List<Path> newestObjects = new ArrayList<>();
            for (String storeId : damagedStores) {
                Path files = snapshots.resolve(storeId).resolve("files");
                try (Stream<Path> objects = Files.list(files)) {
                    // the newest object: only the newest snapshots reference it
                    newestObjects.add(objects.max(java.util.Comparator.comparingLong(
                                    p -> p.toFile().lastModified()))
                            .orElseThrow());
                }
            }
            byte[] bytes = Files.readAllBytes(newestObjects.get(0));
            bytes[bytes.length / 2] ^= 0x5A;
            Files.write(newestObjects.get(0), bytes);
            Files.delete(newestObjects.get(1));
            ToolTest.Run damaged = ToolTest.run(tool, List.of("--json", "snapshots", "verify", location));
            assertEquals(1, damaged.exit(), damaged.toString());
            List<String> named = new ArrayList<>();
            JSON.readTree(damaged.out()).path("stores").forEach(s -> {
                if (s.path("damage").asBoolean()) named.add(s.path("storeId").asText());
            });
            assertEquals(damagedStores, named, damaged.toString());
            Path third = kafka.tmp.resolve("host3").resolve("store");
            ToolTest.Run fallback = ToolTest.run(
                    tool, List.of("--json", "snapshots", "fetch", location, damagedStores.get(0), third.toString()));
            JsonNode fetched = JSON.readTree(fallback.out());
            assertEquals(1, fallback.exit(), "newer snapshots skipped: " + fallback);
            assertTrue(fetched.path("skipped").asLong() > 0, fallback.toString());
            assertTrue(
                    fetched.path("seq").asLong()
                            < stores.get(damagedStores.get(0))
                                    .path("newestUsable")
                                    .asLong(),
                    fallback.toString());
            assertTrue(Files.exists(third.resolve("CURRENT")), "the older snapshot is in place");
            assertFalse(fallback.err().contains("Exception"), "warnings name the damage, no stack trace: " + fallback);
            say("  damaged and missing objects: verify names both stores; fetch took snapshot "
                    + fetched.path("seq").asLong());
        }
        say("  ToolSnapshotsTest took " + BrokerFixture.ms(t0) + " ms");
    }
}
