package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A task that lands on a host without its state restores a snapshot plus the changelog's tail, on
 * a real broker under exactly-once ({@link EosCrashApp}: key-value, window and session counts).
 * The app runs with {@code txn.rocksdb.snapshot.location} on a {@code file://} directory, takes
 * snapshots while it processes, and is killed with SIGKILL; its state directory is then deleted
 * (a new host) while more input arrives, and it restarts on an empty state directory. Every
 * changelog partition's restore must start past offset 0 (at a snapshot's offset + 1) and restore
 * less than half of the changelog, and the read_committed output must still be exactly-once.
 */
class SnapshotRestoreTest {
    static final int PARTITIONS = 2;
    static final int RECORDS = Integer.getInteger("it.snapshot.records", 20_000);
    static final List<String> STRATEGIES = List.of("indexed-batch", "secondary-store");

    static BrokerFixture kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("snapshots");
        // every topic up front, each partition with its leader before anything is produced (an
        // idempotent producer racing a topic's first leader election can retry forever)
        List<String> topics = new ArrayList<>();
        for (String strategy : STRATEGIES) {
            String appId = "snap-" + strategy;
            topics.addAll(List.of(appId + "-input", EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId),
                EosCrashApp.sessionOut(appId)));
        }
        kafka.createTopics(PARTITIONS, topics.toArray(String[]::new));
        try (Admin admin = kafka.admin()) {
            BrokerFixture.await("a leader for every partition", Duration.ofSeconds(60), () -> {
                try {
                    return admin.describeTopics(topics).allTopicNames().get().values().stream()
                        .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) kafka.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"indexed-batch", "secondary-store"})
    void aTaskOnANewHostRestoresTheSnapshotAndOnlyTheTail(String strategy) throws Exception {
        String appId = "snap-" + strategy;
        // each app its own input: WordInput's expectations cover exactly what it produced
        String inputTopic = appId + "-input";
        WordInput input = new WordInput(RECORDS, 7L);
        input.topic(inputTopic);
        Path snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
        String[] overrides = {
            EosCrashApp.INPUT_ARG + "=" + inputTopic,
            "txn.rocksdb.snapshot.location=" + snapshots.toUri(),
            "txn.rocksdb.snapshot.interval.ms=300",
            "txn.rocksdb.transaction.strategy=" + strategy,
            // secondary-store: transactions spill to the temporary store
            "txn.rocksdb.secondary.store.spill.bytes=4096",
        };
        List<String> changelogs = EosCrashApp.changelogs(appId);

        input.produceUpTo(kafka, RECORDS / 2);
        Path firstHost = kafka.tmp.resolve(appId + "-host1");
        AppProcess app = AppProcess.start(appId + "#0", kafka, appId, firstHost.toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
            long half = (RECORDS / 2) - (RECORDS / 2) % 500;
            app.awaitLine(l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= half, Duration.ofSeconds(120));
            // every store of every partition has a snapshot (3 stores x 2 partitions)
            BrokerFixture.await("a snapshot of each of the 6 stores", Duration.ofSeconds(60),
                () -> storesWithSnapshots(snapshots) >= 3 * PARTITIONS);
            say("[" + appId + "] snapshots: " + manifests(snapshots));
            app.kill();
        } catch (Throwable t) {
            app.kill();
            throw t;
        }
        // a new host: no state directory at all; the input goes on meanwhile
        deleteTree(firstHost);
        input.produceUpTo(kafka, RECORDS);
        long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));

        Path secondHost = kafka.tmp.resolve(appId + "-host2");
        app = AppProcess.start(appId + "#1", kafka, appId, secondHost.toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            List<String> starts = app.linesFrom(0).stream().filter(l -> l.startsWith("RESTORE-START ")).toList();
            long restored = app.restoredTotal();
            say(String.format("[%s] new host restored %d of %d changelog records (%.1f%%); %s", appId, restored,
                changelogTotal, 100.0 * restored / Math.max(1, changelogTotal), starts));
            Map<String, Long> startOffsets = new TreeMap<>();
            for (String line : starts) {
                String[] parts = line.split(" ");
                startOffsets.put(parts[1] + " " + parts[2], Long.parseLong(parts[3]));
            }
            assertEquals(3 * PARTITIONS, startOffsets.size(), "every store of every partition restored: " + starts);
            startOffsets.forEach((store, start) ->
                assertTrue(start > 0, store + " restored from offset " + start + ", not from a snapshot"));
            assertTrue(restored * 2 < changelogTotal, "restored " + restored + " of " + changelogTotal
                + " changelog records: more than the tail after the snapshots");

            kafka.awaitGroupCaughtUp(appId, inputTopic, PARTITIONS, Duration.ofSeconds(180));
            Map<String, List<Long>> kv = kafka.readCommitted(EosCrashApp.kvOut(appId), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> win = kafka.readCommitted(EosCrashApp.windowOut(appId), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> ses = kafka.readCommitted(EosCrashApp.sessionOut(appId), PARTITIONS, 0, Duration.ofSeconds(60));
            List<String> problems = input.checkExactlyOnce(kv, win, ses);
            if (!problems.isEmpty()) kafka.showLogs(appId);
            assertTrue(problems.isEmpty(), "output is not exactly-once after the restore from snapshots:\n  "
                + String.join("\n  ", problems));
        } finally {
            app.stop();
        }
    }

    /** Store directories at the location with at least one manifest. */
    static long storesWithSnapshots(Path location) {
        try (Stream<Path> files = Files.walk(location)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".manifest")).map(p -> p.getParent().getParent())
                .distinct().count();
        } catch (IOException e) {
            return 0;
        }
    }

    static List<String> manifests(Path location) throws IOException {
        try (Stream<Path> files = Files.walk(location)) {
            return new ArrayList<>(files.filter(p -> p.getFileName().toString().endsWith(".manifest"))
                .map(p -> location.relativize(p).toString()).sorted().toList());
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
