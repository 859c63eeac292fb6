package dev.txnrocksdb.streams.crash;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.internals.StoreSnapshots;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A store whose files are damaged so that it cannot prove a commit (its MANIFEST garbled) deletes
 * them ({@code txn.rocksdb.wal.corruption}'s default); with a snapshot location it then restores
 * its newest snapshot before it opens, so Kafka Streams restores only the changelog's tail after
 * it, where without one it restores everything ({@code WalCorruptionTest}). The cluster is a fixed
 * lookup ({@link StoreSnapshots#CHANGELOG_LOOKUP_CONFIG}).
 */
class SnapshotAfterWipeTest {
    private static final byte[] VALUE = new byte[1000];
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path dir;

    private Properties settings(boolean snapshots) {
        Properties props = new Properties();
        props.put(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "store", "write_buffer_size=65536");
        if (snapshots) {
            props.put(
                    TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG,
                    dir.resolve("snapshots").toUri().toString());
            props.put(TxnRocksDBConfig.SNAPSHOT_INTERVAL_MS_CONFIG, 0L);
            props.put(StoreSnapshots.CHANGELOG_LOOKUP_CONFIG, (StoreSnapshots.ChangelogLookup)
                    (partition, withOffsets) -> new StoreSnapshots.ChangelogState(
                            TOPIC_ID, withOffsets ? 0 : -1, withOffsets ? 1_000 : -1));
        }
        return props;
    }

    private TxnKeyValueStore open(SegmentedStoreTestContext context, TransactionStrategy strategy) {
        TxnKeyValueStore store = new TxnKeyValueStore("store", true, strategy);
        store.init(context, store);
        return store;
    }

    /** The newest snapshot's number (-1: none yet, or a file renamed while looking). */
    private long manifests() throws IOException {
        Path location = dir.resolve("snapshots");
        if (!Files.isDirectory(location.resolve(SegmentedStoreTestContext.APP_ID))) {
            return -1;
        }
        try (Stream<Path> files = Files.walk(location.resolve(SegmentedStoreTestContext.APP_ID))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".manifest"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, n.length() - ".manifest".length())))
                    .max()
                    .orElse(-1);
        } catch (IOException | java.io.UncheckedIOException e) {
            // a file renamed while walking (an upload's temporary file): look again
            return -1;
        }
    }

    /** Garbles the start of the store's MANIFEST, as {@code WalCorruptionTest} does: no commit can be proven. */
    private static void garbleManifest(Path storeDir) throws IOException {
        Path manifest;
        try (Stream<Path> files = Files.list(storeDir)) {
            manifest = files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(manifest);
        for (int i = 0; i < 64; i++) {
            bytes[i] ^= 0x5A;
        }
        Files.write(manifest, bytes);
    }

    private static Object metric(SegmentedStoreTestContext context, String name) {
        return context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().tags().containsValue("store"))
                .map(e -> e.getValue().metricValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void aStoreWhoseDamagedFilesWereDeletedRestoresItsSnapshotAndOnlyTheTail(TransactionStrategy strategy)
            throws Exception {
        TopicPartition changelog = new TopicPartition(SegmentedStoreTestContext.APP_ID + "-store-changelog", 0);
        SegmentedStoreTestContext first = new SegmentedStoreTestContext(dir.toFile(), 0, settings(true));
        TxnKeyValueStore store = open(first, strategy);
        for (int commit = 0; commit < 5; commit++) {
            for (int i = 0; i < 200; i++) {
                store.put(key(commit + "-" + i), VALUE);
            }
            long offset = commit * 100L;
            store.commit(Map.of(changelog, offset));
            // a snapshot at a commit (interval 0) unless one is still being sent: commit again (the
            // same offset, nothing staged) until a snapshot holding this commit is written
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (((Number) metric(first, "snapshot-last-offset")).longValue() != offset
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
                store.commit(Map.of(changelog, offset));
            }
            assertEquals(
                    offset,
                    ((Number) metric(first, "snapshot-last-offset")).longValue(),
                    "a snapshot of commit " + commit);
        }
        long newest = manifests();
        store.close();
        garbleManifest(dir.resolve("store"));

        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile(), 0, settings(true));
        TxnKeyValueStore reopened = open(context, strategy);
        try {
            assertEquals(
                    400L, reopened.committedOffset(changelog), "the newest snapshot's offset: Kafka restores after it");
            assertNotNull(reopened.get(key("4-199")));
            assertNotNull(reopened.get(key("0-0")));
            assertEquals(1L, ((Number) metric(context, "wipes-total")).longValue());
            assertEquals(newest, ((Number) metric(context, "snapshot-restored")).longValue());
        } finally {
            reopened.close();
        }

        // without a snapshot location the same damage leaves the whole changelog to restore
        TxnKeyValueStore again =
                open(new SegmentedStoreTestContext(dir.resolve("other").toFile(), 0, settings(false)), strategy);
        for (int i = 0; i < 200; i++) {
            again.put(key("x-" + i), VALUE);
        }
        again.commit(Map.of(changelog, 0L));
        again.close();
        garbleManifest(dir.resolve("other").resolve("store"));
        TxnKeyValueStore wiped =
                open(new SegmentedStoreTestContext(dir.resolve("other").toFile(), 0, settings(false)), strategy);
        try {
            assertNull(wiped.committedOffset(changelog));
        } finally {
            wiped.close();
        }
    }
}
