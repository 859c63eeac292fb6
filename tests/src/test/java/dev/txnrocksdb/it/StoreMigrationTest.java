package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Switching a running exactly-once application between Kafka's built-in RocksDB stores and ours,
 * on a real broker: the app ({@link EosCrashApp}: word count, windowed and session counts)
 * processes the first half of the input on one kind of store and stops cleanly; it restarts on
 * the same state directory with the other kind ({@code dsl.store.suppliers.class} and
 * {@code enable.transactional.statestores} switched together) and processes the second half. The
 * counts it emits must be exactly those of one uninterrupted run: the new stores must restore the
 * state from the changelogs, not start empty. Both directions run side by side (two app ids on
 * one input). Built-in to ours needs nothing else; ours to built-in needs the app's local state
 * wiped first (README, "Migrating"), which the test does.
 */
class StoreMigrationTest {
    static final int PARTITIONS = 2;
    static final int RECORDS = 6_000;
    static final Duration CATCH_UP = Duration.ofSeconds(180);

    static BrokerFixture kafka;
    static WordInput input;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("migration");
        kafka.createTopics(PARTITIONS, EosCrashApp.INPUT);
        input = new WordInput(RECORDS, 7L);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Runs app {@code appId} on {@code txn} stores until it has processed the input so far, then stops it. */
    private static long runUntilCaughtUp(String appId, String stateDir, boolean txn) throws Exception {
        AppProcess app = AppProcess.start(appId + (txn ? "#ours" : "#built-in"), kafka, appId, stateDir, txn);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            kafka.awaitGroupCaughtUp(appId, EosCrashApp.INPUT, PARTITIONS, CATCH_UP);
            long restored = app.restoredTotal();
            say("[" + appId + "] on " + (txn ? "txn-rocksdb" : "built-in RocksDB") + " stores: restored " + restored
                    + " changelog records at start" + app.restoredDetail());
            return restored;
        } catch (Exception | AssertionError e) {
            kafka.showLogs(appId);
            throw e;
        } finally {
            app.stop();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void switchingStoresEitherWayRestoresTheStateAndKeepsExactlyOnce() throws Exception {
        String up = "migrate-to-ours";
        String down = "migrate-to-built-in";
        for (String appId : List.of(up, down)) {
            kafka.createTopics(
                    PARTITIONS, EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId), EosCrashApp.sessionOut(appId));
        }
        String upState =
                Files.createDirectories(kafka.tmp.resolve(up + "-state")).toString();
        String downState =
                Files.createDirectories(kafka.tmp.resolve(down + "-state")).toString();

        input.produceUpTo(kafka, RECORDS / 2);
        runUntilCaughtUp(up, upState, false);
        runUntilCaughtUp(down, downState, true);

        input.produceUpTo(kafka, RECORDS);
        long upRestored = runUntilCaughtUp(up, upState, true);
        // Back to the built-in stores takes the documented step: wipe the app's local state first
        // (what KafkaStreams#cleanUp() does). Kafka's segmented window and session stores keep
        // their segments in <task>/<store name>/, where ours keeps its RocksDB files, and refuse
        // to start on them.
        deleteRecursively(Path.of(downState, down));
        long downRestored = runUntilCaughtUp(down, downState, false);

        for (String appId : List.of(up, down)) {
            Map<String, List<Long>> kv =
                    kafka.readCommitted(EosCrashApp.kvOut(appId), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> win =
                    kafka.readCommitted(EosCrashApp.windowOut(appId), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> ses =
                    kafka.readCommitted(EosCrashApp.sessionOut(appId), PARTITIONS, 0, Duration.ofSeconds(60));
            List<String> problems = input.checkExactlyOnce(kv, win, ses);
            if (!problems.isEmpty()) {
                kafka.showLogs(appId);
            }
            assertTrue(
                    problems.isEmpty(),
                    appId + ": the counts after switching stores are not those of one run:\n  "
                            + String.join("\n  ", problems));
        }
        // The new stores held nothing: the state can only have come back through a restore.
        assertTrue(upRestored > 0, "built-in -> ours restored nothing");
        assertTrue(downRestored > 0, "ours -> built-in restored nothing");
    }
}
