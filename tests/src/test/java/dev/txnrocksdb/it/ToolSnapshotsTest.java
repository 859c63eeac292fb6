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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operators' tool's {@code snapshots} commands on a real application's snapshots in a {@code
 * file://} location and in the S3 test server ({@link S3Server}, the location's options given as
 * {@code --option}): {@code list} shows every store's snapshots; {@code verify} downloads and checks
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

    @ParameterizedTest
    @ValueSource(strings = {"file", "s3"})
    void snapshotsAreListedVerifiedAndFetchedForANewHost(String locationKind) throws Exception {
        long t0 = System.nanoTime();
        String jar = System.getProperty("it.tool.jar");
        assertTrue(jar != null, "it.tool.jar: the tool's jar (tests/pom.xml sets it)");
        Path tool = Path.of(jar);
        String appId = "tool-snapshots-" + locationKind;
        try (BrokerFixture kafka = BrokerFixture.start(appId);
                S3Server s3 = locationKind.equals("s3") ? S3Server.start(kafka.tmp.resolve("s3")) : null) {
            String inputTopic = appId + "-input";
            kafka.createTopicsWithLeaders(
                    PARTITIONS,
                    List.of(
                            inputTopic,
                            EosCrashApp.kvOut(appId),
                            EosCrashApp.windowOut(appId),
                            EosCrashApp.sessionOut(appId)));
            WordInput input = new WordInput(RECORDS, 11L).topic(inputTopic);
            // where the objects can be damaged: the location's directory, or the S3 server's files
            Path snapshots;
            String location;
            List<String> appSettings = new ArrayList<>(
                    List.of(EosCrashApp.INPUT_ARG + "=" + inputTopic, "txn.rocksdb.snapshot.interval.ms=300"));
            List<String> toolOptions = new ArrayList<>();
            if (s3 != null) {
                snapshots = s3.bucketDir().resolve(appId);
                location = s3.uri(appId);
                appSettings.addAll(s3.settings());
                for (String setting : s3.settings()) {
                    toolOptions.addAll(List.of("--option", setting.substring("txn.rocksdb.snapshot.option.".length())));
                }
            } else {
                snapshots = Files.createDirectories(kafka.tmp.resolve("snapshots"));
                location = snapshots.toUri().toString();
            }
            appSettings.add("txn.rocksdb.snapshot.location=" + location);

            // the first host: half the input, snapshots every 300 ms, then stopped
            input.produceUpTo(kafka, RECORDS / 2);
            Path firstHost = kafka.tmp.resolve("host1");
            AppProcess app = AppProcess.start(
                    appId + "#0", kafka, appId, firstHost.toString(), true, appSettings.toArray(String[]::new));
            try {
                kafka.awaitGroupCaughtUp(appId, inputTopic, PARTITIONS, Duration.ofSeconds(120));
                Thread.sleep(2_000); // a snapshot after the last commit
            } finally {
                app.stop();
            }

            // list: every store of every partition, each with its newest usable snapshot
            ToolTest.Run list = run(tool, toolOptions, "--json", "snapshots", "list", location);
            assertEquals(0, list.exit(), list.toString());
            Map<String, JsonNode> stores = new TreeMap<>();
            JSON.readTree(list.out())
                    .path("stores")
                    .forEach(s -> stores.put(s.path("storeId").asText(), s));
            assertEquals(3 * PARTITIONS, stores.size(), list.out());
            for (JsonNode store : stores.values()) {
                assertTrue(store.path("newestUsable").asLong() > 0, store.toString());
            }
            ToolTest.Run text = run(tool, toolOptions, "snapshots", "list", location);
            Path examples = Files.createDirectories(Path.of("target", "tool-examples"));
            Files.writeString(examples.resolve("snapshots-list-" + locationKind + ".txt"), text.out());
            ToolTest.Run verify = run(tool, toolOptions, "snapshots", "verify", location);
            assertEquals(0, verify.exit(), verify.toString());
            Files.writeString(examples.resolve("snapshots-verify-" + locationKind + ".txt"), verify.out());
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
                        run(tool, toolOptions, "--json", "snapshots", "fetch", location, storeId, dir.toString());
                assertEquals(0, fetch.exit(), fetch.toString());
                JsonNode offset = JSON.readTree(fetch.out()).path("offsets").get(0);
                fetchedOffsets.put(
                        offset.path("topic").asText() + "-"
                                + offset.path("partition").asInt() + " " + parts[1],
                        offset.path("offset").asLong());
            }
            Path exampleDir = kafka.tmp.resolve("host-example").resolve("store");
            ToolTest.Run fetchText = run(
                    tool,
                    toolOptions,
                    "snapshots",
                    "fetch",
                    location,
                    stores.keySet().iterator().next(),
                    exampleDir.toString());
            assertEquals(0, fetchText.exit(), fetchText.toString());
            Files.writeString(examples.resolve("snapshots-fetch-" + locationKind + ".txt"), fetchText.out());
            AppProcess second = AppProcess.start(
                    appId + "#1", kafka, appId, secondHost.toString(), true, EosCrashApp.INPUT_ARG + "=" + inputTopic);
            try {
                second.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
                // fetch is refused while an application runs on the application directory, and writes nothing
                String anyStore = stores.keySet().iterator().next();
                Path busy = secondHost.resolve(appId).resolve("0_99").resolve("extra");
                ToolTest.Run refusedWhileRunning =
                        run(tool, toolOptions, "snapshots", "fetch", location, anyStore, busy.toString());
                assertEquals(3, refusedWhileRunning.exit(), refusedWhileRunning.toString());
                assertTrue(refusedWhileRunning.err().contains("in use"), refusedWhileRunning.toString());
                assertFalse(Files.exists(busy.getParent()), "nothing written: " + refusedWhileRunning);
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

            // with the cluster: each store's changelog as it is now; every newest snapshot is one a new
            // host restores (the changelog still has its offset)
            List<String> cluster = List.of("--bootstrap-server", kafka.bootstrap());
            ToolTest.Run judged = run(tool, concat(toolOptions, cluster), "--json", "snapshots", "list", location);
            assertEquals(0, judged.exit(), judged.toString());
            JSON.readTree(judged.out()).path("stores").forEach(store -> {
                assertEquals(
                        store.path("newestUsable").asLong(),
                        store.path("newHostRestores").asLong(),
                        store.toString());
                JsonNode changelog = store.path("changelog");
                assertTrue(changelog.path("exists").asBoolean(), store.toString());
                assertTrue(changelog.path("end").asLong() > 0, store.toString());
            });
            Files.writeString(
                    examples.resolve("snapshots-list-cluster-" + locationKind + ".txt"),
                    run(tool, concat(toolOptions, cluster), "snapshots", "list", location)
                            .out());

            // a damaged object and a missing one: verify names both stores, fetch takes an older snapshot.
            // Damaged: every object sent for a store's newest snapshot (written after the snapshot
            // before it, whose objects are untouched); missing: every object of another store.
            String damagedStore = null;
            List<Path> sentForNewest = List.of();
            for (String storeId : stores.keySet()) {
                List<Path> manifests = listed(snapshots.resolve(storeId).resolve("snapshots"));
                if (manifests.size() < 2) continue;
                long previous = manifests.get(manifests.size() - 2).toFile().lastModified();
                sentForNewest = listed(snapshots.resolve(storeId).resolve("files")).stream()
                        .filter(p -> p.toFile().lastModified() > previous)
                        .toList();
                if (!sentForNewest.isEmpty()) {
                    damagedStore = storeId;
                    break;
                }
            }
            assertTrue(damagedStore != null, "no store's newest snapshot sent objects of its own: " + stores.keySet());
            for (Path object : sentForNewest) {
                byte[] bytes = Files.readAllBytes(object);
                bytes[bytes.length / 2] ^= 0x5A;
                Files.write(object, bytes);
            }
            String damagedStoreId = damagedStore;
            String missingStore = stores.keySet().stream()
                    .filter(id -> !id.equals(damagedStoreId))
                    .findFirst()
                    .orElseThrow();
            for (Path object : listed(snapshots.resolve(missingStore).resolve("files"))) {
                Files.delete(object);
            }
            List<String> damagedStores = new ArrayList<>(new java.util.TreeSet<>(List.of(damagedStore, missingStore)));
            ToolTest.Run damaged = run(tool, toolOptions, "--json", "snapshots", "verify", location);
            assertEquals(1, damaged.exit(), damaged.toString());
            List<String> named = new ArrayList<>();
            JSON.readTree(damaged.out()).path("stores").forEach(s -> {
                if (s.path("damage").asBoolean()) named.add(s.path("storeId").asText());
            });
            assertEquals(damagedStores, named, damaged.toString());
            Path third = kafka.tmp.resolve("host3").resolve("store");
            ToolTest.Run fallback =
                    run(tool, toolOptions, "--json", "snapshots", "fetch", location, damagedStore, third.toString());
            JsonNode fetched = JSON.readTree(fallback.out());
            assertEquals(1, fallback.exit(), "newer snapshots skipped: " + fallback);
            assertTrue(fetched.path("skipped").asLong() > 0, fallback.toString());
            assertTrue(
                    fetched.path("seq").asLong()
                            < stores.get(damagedStore).path("newestUsable").asLong(),
                    fallback.toString());
            assertTrue(Files.exists(third.resolve("CURRENT")), "the older snapshot is in place");
            assertFalse(fallback.err().contains("Exception"), "warnings name the damage, no stack trace: " + fallback);
            say("  damaged and missing objects: verify names both stores; fetch took snapshot "
                    + fetched.path("seq").asLong());

            // the damaged store's changelog topic deleted and created again (a new topic id): a new host
            // uses none of that store's snapshots (of any partition); the other stores' stay as they were
            String recreatedStore = damagedStore.split("/")[1];
            String recreated = appId + "-" + recreatedStore + "-changelog";
            try (org.apache.kafka.clients.admin.Admin admin = kafka.admin()) {
                admin.deleteTopics(List.of(recreated)).all().get();
                BrokerFixture.await("the changelog deleted", Duration.ofSeconds(60), () -> {
                    try {
                        return !admin.listTopics().names().get().contains(recreated);
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            kafka.createTopics(PARTITIONS, recreated);
            ToolTest.Run after = run(tool, concat(toolOptions, cluster), "--json", "snapshots", "list", location);
            int notUsed = 0;
            for (JsonNode store : JSON.readTree(after.out()).path("stores")) {
                String storeId = store.path("storeId").asText();
                if (storeId.split("/")[1].equals(recreatedStore)) {
                    notUsed++;
                    assertTrue(store.path("newHostRestores").isNull(), store.toString());
                    assertTrue(store.path("notUsed").asText().contains("deleted and recreated"), store.toString());
                } else if (!storeId.equals(missingStore)) {
                    assertEquals(
                            stores.get(storeId).path("newestUsable").asLong(),
                            store.path("newHostRestores").asLong(),
                            store.toString());
                }
            }
            assertEquals(PARTITIONS, notUsed, "every partition of " + recreatedStore + ": " + after);
            String otherPartition = stores.keySet().stream()
                    .filter(id -> id.split("/")[1].equals(recreatedStore) && !id.equals(damagedStoreId))
                    .findFirst()
                    .orElseThrow();
            Path fourth = kafka.tmp.resolve("host4").resolve("store");
            ToolTest.Run refused = run(
                    tool,
                    concat(toolOptions, cluster),
                    "snapshots",
                    "fetch",
                    location,
                    otherPartition,
                    fourth.toString());
            assertEquals(1, refused.exit(), refused.toString());
            assertTrue(refused.out().contains("deleted and recreated"), refused.toString());
            assertFalse(Files.exists(fourth.resolve("CURRENT")), "nothing fetched: " + refused);
            Files.writeString(
                    examples.resolve("snapshots-list-recreated-" + locationKind + ".txt"),
                    run(tool, concat(toolOptions, cluster), "snapshots", "list", location, "--store", otherPartition)
                            .out());
            say("  changelog " + recreated + " recreated: a new host uses none of its " + notUsed
                    + " stores' snapshots; fetch refuses them");
        }
        say("  ToolSnapshotsTest (" + locationKind + ") took " + BrokerFixture.ms(t0) + " ms");
    }

    /** The files in {@code dir}, by name. */
    static List<Path> listed(Path dir) throws java.io.IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.sorted().toList();
        }
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** The tool with {@code args}, the location's options after them. */
    static ToolTest.Run run(Path tool, List<String> options, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(options);
        return ToolTest.run(tool, all);
    }
}
