package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import dev.txnrocksdb.streams.internals.nativeapi.OpenOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A store's snapshots on a {@code file://} location with the real native store: taken after a
 * commit off the committing thread, restored into an empty directory before the store opens (its
 * committed offsets then the snapshot's), and refused where the changelog as the cluster describes
 * it no longer has the snapshot's offset or is another topic (its id). The cluster is a fake
 * lookup here; the broker tests run the same with Kafka Streams and a real broker.
 */
class StoreSnapshotsTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("snap-app-counts-changelog", 1);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path tmp;

    private StoreSettings settings(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>();
        config.put(
                TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG,
                tmp.resolve("snapshots").toUri().toString());
        config.put(TxnRocksDBConfig.SNAPSHOT_INTERVAL_MS_CONFIG, 0L);
        config.putAll(extra);
        return StoreSettings.from(config);
    }

    private SegmentedStoreTestContext context() {
        return new SegmentedStoreTestContext(tmp.resolve("task").toFile());
    }

    private static StoreSnapshots.ChangelogLookup changelogAt(Uuid topicId, long start, long end, AtomicInteger calls) {
        return (partition, withOffsets) -> {
            calls.incrementAndGet();
            assertEquals(CHANGELOG, partition);
            return withOffsets
                    ? new StoreSnapshots.ChangelogState(topicId, start, end)
                    : new StoreSnapshots.ChangelogState(topicId, -1, -1);
        };
    }

    private static NativeKeyValueStore open(Path dir, TransactionStrategy strategy) {
        return NativeKeyValueStore.open(
                "counts",
                dir,
                OpenOptions.builder().strategy(strategy).spillBytes(1024).build());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void commit(NativeKeyValueStore store, int from, int to, long offset) {
        for (int i = from; i < to; i++) {
            store.put(bytes("key-" + i), bytes("value-" + i + "@" + offset), -1);
        }
        store.commit(Map.of(CHANGELOG, offset), null);
    }

    /** Takes a snapshot now (interval 0) and waits until it is written. */
    private static void snapshot(StoreSnapshots snapshots, NativeKeyValueStore store) throws InterruptedException {
        long before = snapshots.counts()[0];
        snapshots.afterCommit(store);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (snapshots.sending() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(
                before + 1,
                snapshots.counts()[0],
                "a snapshot was written (failures: " + snapshots.counts()[1] + ")");
    }

    private static boolean isEmpty(Path dir) throws Exception {
        if (!Files.exists(dir)) {
            return true;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void aStoreWithoutStateRestoresTheNewestSnapshotAndItsOffsets(TransactionStrategy strategy) throws Exception {
        Path host1 = tmp.resolve("host1/counts");
        Files.createDirectories(host1);
        AtomicInteger lookups = new AtomicInteger();
        StoreSnapshots first = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context(),
                CHANGELOG,
                host1,
                false,
                changelogAt(TOPIC_ID, 0, 1_000, lookups));
        assertNotNull(first);
        assertEquals(SegmentedStoreTestContext.APP_ID + "/counts/1-" + TOPIC_ID, first.storeId());
        try (NativeKeyValueStore store = open(host1, strategy)) {
            assertTrue(isEmpty(tmp.resolve("snapshots")), "nothing restored or written before a commit");
            commit(store, 0, 100, 99);
            snapshot(first, store);
            commit(store, 100, 200, 199);
            snapshot(first, store);
            assertEquals(2, first.counts()[0]);
            // uncommitted writes are in no snapshot
            store.put(bytes("key-uncommitted"), bytes("x"), -1);
            first.close();
        }

        // a new host: an empty directory
        Path host2 = tmp.resolve("host2/counts");
        Files.createDirectories(host2);
        StoreSnapshots second = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context(),
                CHANGELOG,
                host2,
                false,
                changelogAt(TOPIC_ID, 0, 250, lookups));
        assertNotNull(second);
        second.close();
        try (NativeKeyValueStore restored = open(host2, strategy)) {
            assertEquals(Map.of(CHANGELOG, 199L), restored.committedOffsets(), "Kafka restores from offset 200 on");
            assertArrayEquals(bytes("value-150@199"), restored.get(bytes("key-150"), true));
            assertArrayEquals(bytes("value-5@99"), restored.get(bytes("key-5"), true));
            assertNull(restored.get(bytes("key-uncommitted"), true));
        }
    }

    /**
     * A store whose time-to-live was turned off (or on) since its snapshots were taken is not
     * restored from them: their rows are in the other layout, which the store would refuse at open.
     * It starts empty for its changelog instead; a store opening as the snapshots' did restores them.
     */
    @Test
    void aSnapshotOfAStoreWithATimeToLiveRestoresOnlyAStoreWithOne() throws Exception {
        Path host1 = tmp.resolve("host1/counts");
        Files.createDirectories(host1);
        AtomicInteger lookups = new AtomicInteger();
        OpenOptions withTtl = OpenOptions.builder()
                .ttl(Duration.ofHours(1), TimeBasis.STREAM_TIME)
                .build();
        StoreSnapshots first = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context(),
                CHANGELOG,
                host1,
                true,
                changelogAt(TOPIC_ID, 0, 1_000, lookups));
        try (NativeKeyValueStore store = NativeKeyValueStore.open("counts", host1, withTtl)) {
            store.put(bytes("key-1"), bytes("value-1"), 1_000L);
            store.commit(Map.of(CHANGELOG, 9L), null);
            snapshot(first, store);
            first.close();
        }

        Path plain = tmp.resolve("host2/counts");
        StoreSnapshots without = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context(),
                CHANGELOG,
                plain,
                false,
                changelogAt(TOPIC_ID, 0, 10, lookups));
        without.close();
        assertTrue(isEmpty(plain), "no snapshot restored into a store without a time-to-live");
        try (NativeKeyValueStore store = open(plain, TransactionStrategy.INDEXED_BATCH)) {
            assertEquals(Map.of(), store.committedOffsets(), "its changelog restores it from the start");
        }

        Path again = tmp.resolve("host3/counts");
        StoreSnapshots with = StoreSnapshots.open(
                "counts", settings(Map.of()), context(), CHANGELOG, again, true, changelogAt(TOPIC_ID, 0, 10, lookups));
        with.close();
        try (NativeKeyValueStore store = NativeKeyValueStore.open("counts", again, withTtl)) {
            assertEquals(Map.of(CHANGELOG, 9L), store.committedOffsets());
            assertArrayEquals(bytes("value-1"), store.get(bytes("key-1"), true));
        }
    }

    @Test
    void theMetricsSayWhatWasWrittenAndRestored() throws Exception {
        Path host1 = tmp.resolve("host1/counts");
        Files.createDirectories(host1);
        AtomicInteger lookups = new AtomicInteger();
        SegmentedStoreTestContext context = context();
        StoreSnapshots first = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context,
                CHANGELOG,
                host1,
                false,
                changelogAt(TOPIC_ID, 0, 1_000, lookups));
        try (NativeKeyValueStore store = open(host1, TransactionStrategy.INDEXED_BATCH)) {
            StoreMetrics metrics = StoreMetrics.register(context, "counts", StoreMetrics.KEY_VALUE_SCOPE, store, false);
            metrics.addSnapshotMetrics(first);
            assertEquals(-1L, metric(context, "snapshot-last-offset"));
            assertEquals(-1L, metric(context, "snapshot-restored"));
            commit(store, 0, 50, 49);
            snapshot(first, store);
            commit(store, 50, 60, 59);
            snapshot(first, store);
            assertEquals(2L, metric(context, "snapshots-total"));
            assertEquals(0L, metric(context, "snapshot-failures-total"));
            assertEquals(59L, metric(context, "snapshot-last-offset"));
            assertTrue((Long) metric(context, "snapshot-bytes-sent-total") > 0);
            assertTrue((Long) metric(context, "snapshot-last-duration-ms") >= 0);
            assertTrue((Long) metric(context, "snapshot-last-age-ms") >= 0);
            metrics.close();
            first.close();
        }
        Path host2 = tmp.resolve("host2/counts");
        SegmentedStoreTestContext context2 =
                new SegmentedStoreTestContext(tmp.resolve("task2").toFile());
        StoreSnapshots second = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context2,
                CHANGELOG,
                host2,
                false,
                changelogAt(TOPIC_ID, 0, 1_000, lookups));
        try (NativeKeyValueStore store = open(host2, TransactionStrategy.INDEXED_BATCH)) {
            StoreMetrics metrics =
                    StoreMetrics.register(context2, "counts", StoreMetrics.KEY_VALUE_SCOPE, store, false);
            metrics.addSnapshotMetrics(second);
            assertEquals(2L, metric(context2, "snapshot-restored"));
            assertTrue((Long) metric(context2, "snapshot-restore-bytes") > 0);
            assertTrue((Long) metric(context2, "snapshot-restore-ms") >= 0);
            metrics.close();
            second.close();
        }
    }

    private static Object metric(SegmentedStoreTestContext context, String name) {
        return context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name)
                        && "counts".equals(e.getKey().tags().get("txn-rocksdb-state-id")))
                .map(e -> e.getValue().metricValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name));
    }

    @Test
    void aSnapshotTheChangelogNoLongerHasOrOfAnotherTopicIsNeverUsed() throws Exception {
        Path host1 = tmp.resolve("host1/counts");
        Files.createDirectories(host1);
        AtomicInteger lookups = new AtomicInteger();
        StoreSnapshots first = StoreSnapshots.open(
                "counts",
                settings(Map.of()),
                context(),
                CHANGELOG,
                host1,
                false,
                changelogAt(TOPIC_ID, 0, 1_000, lookups));
        try (NativeKeyValueStore store = open(host1, TransactionStrategy.INDEXED_BATCH)) {
            commit(store, 0, 10, 500);
            snapshot(first, store);
        }
        first.close();

        Map<String, StoreSnapshots.ChangelogLookup> refused = Map.of(
                "the changelog truncated past it", changelogAt(TOPIC_ID, 600, 1_000, lookups),
                "the changelog recreated shorter, or the application reset", changelogAt(TOPIC_ID, 0, 10, lookups),
                "another topic of the same name", changelogAt(Uuid.randomUuid(), 0, 1_000, lookups));
        int n = 0;
        for (Map.Entry<String, StoreSnapshots.ChangelogLookup> c : refused.entrySet()) {
            Path dir = tmp.resolve("refused-" + n++ + "/counts");
            StoreSnapshots snapshots =
                    StoreSnapshots.open("counts", settings(Map.of()), context(), CHANGELOG, dir, false, c.getValue());
            assertNotNull(snapshots, c.getKey());
            snapshots.close();
            try (NativeKeyValueStore store = open(dir, TransactionStrategy.INDEXED_BATCH)) {
                assertEquals(Map.of(), store.committedOffsets(), c.getKey() + ": the changelog restores everything");
                assertNull(store.get(bytes("key-1"), true), c.getKey());
            }
        }

        // and where it still fits, it is used
        Path dir = tmp.resolve("fits/counts");
        StoreSnapshots.open(
                        "counts",
                        settings(Map.of()),
                        context(),
                        CHANGELOG,
                        dir,
                        false,
                        changelogAt(TOPIC_ID, 501, 501, lookups))
                .close();
        try (NativeKeyValueStore store = open(dir, TransactionStrategy.INDEXED_BATCH)) {
            assertEquals(Map.of(CHANGELOG, 500L), store.committedOffsets());
        }
    }

    @Test
    void aStoreWithStateRestoresNothingAndTheClusterIsAskedOnlyForTheTopicId() throws Exception {
        Path dir = tmp.resolve("host/counts");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("CURRENT"), "MANIFEST-000001\n");
        StoreSnapshots.ChangelogLookup lookup = (partition, withOffsets) -> {
            assertFalse(withOffsets, "a store with local state needs no offsets");
            return new StoreSnapshots.ChangelogState(TOPIC_ID, -1, -1);
        };
        StoreSnapshots snapshots =
                StoreSnapshots.open("counts", settings(Map.of()), context(), CHANGELOG, dir, false, lookup);
        assertNotNull(snapshots);
        snapshots.close();
        try (Stream<Path> entries = Files.list(dir)) {
            assertEquals(1, entries.count(), "the directory is left as it was");
        }
    }

    @Test
    void snapshotsAreOffWithoutALocationAChangelogOrAReachableCluster() throws Exception {
        Path dir = tmp.resolve("host/counts");
        AtomicInteger lookups = new AtomicInteger();
        StoreSnapshots.ChangelogLookup lookup = changelogAt(TOPIC_ID, 0, 10, lookups);
        assertNull(
                StoreSnapshots.open("counts", StoreSettings.from(Map.of()), context(), CHANGELOG, dir, false, lookup));
        assertNull(
                StoreSnapshots.open(
                        "counts",
                        settings(Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX + "counts", "")),
                        context(),
                        CHANGELOG,
                        dir,
                        false,
                        lookup),
                "the per-store form turns it off for one store");
        assertNotNull(StoreSnapshots.open(
                "other",
                settings(Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX + "counts", "")),
                context(),
                CHANGELOG,
                dir,
                false,
                lookup));
        assertNull(
                StoreSnapshots.open("counts", settings(Map.of()), context(), null, dir, false, lookup), "no changelog");
        assertEquals(1, lookups.get(), "looked up only where snapshots are on");
        assertNull(
                StoreSnapshots.open(
                        "counts", settings(Map.of()), context(), CHANGELOG, dir, false, (partition, withOffsets) -> {
                            throw new org.apache.kafka.common.errors.TimeoutException("the cluster is down");
                        }),
                "a cluster that cannot be reached turns snapshots off, it does not fail the store");
    }

    @Test
    void aMalformedLocationIsAConfigExceptionNamingTheKey() {
        for (String uri : new String[] {
            "gs://bucket/prefix",
            "s3:///prefix-without-bucket",
            "file:relative/path",
            "not a uri",
            "s3://AKIAEXAMPLE:sup3r-secret@bucket/prefix",
            "az:///prefix-without-container",
            "az://account:sup3r-secret@container/prefix",
            "abfss://container:sup3r-secret@account.dfs.core.windows.net/p"
        }) {
            ConfigException e = assertThrows(
                    ConfigException.class, () -> settings(Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG, uri)));
            assertTrue(e.getMessage().contains(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG), e.getMessage());
            assertFalse(e.getMessage().contains("sup3r-secret"), e.getMessage());
        }
        for (String uri : new String[] {
            "s3://bucket/prefix",
            "az://container/prefix",
            "abfss://container/prefix",
            "abfss://container@account.dfs.core.windows.net/prefix",
            "file:///shared/snapshots"
        }) {
            assertEquals(
                    uri,
                    settings(Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG, uri))
                            .snapshotLocation("counts"),
                    uri);
        }
        ConfigException perStore = assertThrows(
                ConfigException.class,
                () -> settings(Map.of(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX + "counts", "gs://b/p")));
        assertTrue(
                perStore.getMessage().contains(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX + "counts"),
                perStore.getMessage());
        ConfigException option = assertThrows(
                ConfigException.class,
                () -> settings(
                        Map.of(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_secret_access_key", "sup3r\nsecret")));
        assertFalse(option.getMessage().contains("sup3r"), option.getMessage());
        assertEquals(
                Map.of("aws_region", "eu-west-1"),
                settings(Map.of(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_region", "eu-west-1"))
                        .snapshotOptions());
        assertThrows(ConfigException.class, () -> settings(Map.of(TxnRocksDBConfig.SNAPSHOT_RETAINED_CONFIG, 0)));
        assertThrows(ConfigException.class, () -> settings(Map.of(TxnRocksDBConfig.SNAPSHOT_INTERVAL_MS_CONFIG, -1L)));
        assertThrows(
                ConfigException.class,
                () -> settings(Map.of(TxnRocksDBConfig.SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG, -1L)));
        assertEquals(0L, settings(Map.of()).snapshotUploadBytesPerSecond(), "no limit by default");
        assertEquals(
                5_000_000L,
                settings(Map.of(TxnRocksDBConfig.SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG, "5000000"))
                        .snapshotUploadBytesPerSecond());
        assertThrows(
                IllegalArgumentException.class,
                () -> dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation.open(
                        dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls.LocationOptions.builder(
                                        "file:///tmp/x")
                                .uploadBytesPerSecond(-1)
                                .build()));
    }

    /**
     * Every store of the process on a location that accepts connections and never answers: the
     * first to open waits the thread's patience (txn.rocksdb.snapshot.restore.wait.ms, 1 s here) and
     * the next skip it at once, all opening empty for the changelog; they share one native location,
     * closed with the last of them; closing takes no time.
     */
    @Test
    void aSilentLocationCostsTheFirstStoreItsPatienceAndTheOthersNothing() throws Exception {
        try (java.net.ServerSocket silent =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                java.util.List<java.net.Socket> held = new java.util.ArrayList<>();
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept()); // never read from, never answered
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Map<String, Object> config = new HashMap<>();
            config.put(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG, "s3://snapshots/silent-" + System.nanoTime());
            config.put(
                    TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_endpoint",
                    "http://127.0.0.1:" + silent.getLocalPort());
            config.put(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_allow_http", "true");
            config.put(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_region", "us-east-1");
            config.put(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_access_key_id", "key");
            config.put(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX + "aws_secret_access_key", "secret");
            config.put(TxnRocksDBConfig.SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG, 500L);
            config.put(TxnRocksDBConfig.SNAPSHOT_RESTORE_WAIT_MS_CONFIG, 1_000L);
            StoreSettings settings = StoreSettings.from(config);
            int before = SnapshotLocations.openCount();
            AtomicInteger lookups = new AtomicInteger();
            java.util.List<StoreSnapshots> opened = new java.util.ArrayList<>();
            java.util.List<Long> tookMs = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Path dir = tmp.resolve("silent/store-" + i);
                long started = System.nanoTime();
                opened.add(StoreSnapshots.open(
                        "store-" + i,
                        settings,
                        context(),
                        CHANGELOG,
                        dir,
                        false,
                        changelogAt(TOPIC_ID, 0, 10, lookups)));
                tookMs.add((System.nanoTime() - started) / 1_000_000);
                assertNotNull(opened.get(i), "snapshots stay on: the next are taken once it answers");
                assertTrue(isEmpty(dir), "opens empty: the changelog restores it");
                assertEquals(-1L, opened.get(i).restored()[0]);
            }
            assertTrue(tookMs.get(0) >= 900 && tookMs.get(0) < 3_000, "the first waits its patience: " + tookMs);
            for (long took : tookMs.subList(1, tookMs.size())) {
                assertTrue(took < 500, "the others skip it at once: " + tookMs);
            }
            assertEquals(before + 1, SnapshotLocations.openCount(), "one location for every store");
            long closing = System.nanoTime();
            for (StoreSnapshots snapshots : opened) {
                snapshots.close();
            }
            assertTrue(System.nanoTime() - closing < 1_000_000_000L, "closing waits for nothing");
            assertEquals(before, SnapshotLocations.openCount(), "closed with the last store");
        }
    }

    /** A stream thread's snapshot restores: half of max.poll.interval.ms in time, restore.wait.ms of waiting. */
    @Test
    void aThreadsRestoresHaveABudgetUnderMaxPollInterval() throws Exception {
        ThreadRestoreBudget budget =
                ThreadRestoreBudget.of(Map.of("main.consumer.max.poll.interval.ms", "60000"), 10_000);
        Thread thread = new Thread(() -> {
            assertEquals(30_000, budget.timeMs());
            assertEquals(30_000, budget.timeLeftMs());
            assertEquals(10_000, budget.waitLeftMs());
            budget.spend(4_000_000_000L, 1_000_000_000L);
            assertEquals(26_000, budget.timeLeftMs());
            assertEquals(9_000, budget.waitLeftMs());
            budget.spend(30_000_000_000L, 30_000_000_000L);
            assertEquals(0, budget.timeLeftMs());
            assertEquals(0, budget.waitLeftMs());
        });
        thread.start();
        thread.join();
        assertEquals(300_000 / 2, ThreadRestoreBudget.of(Map.of(), 10_000).timeMs(), "Kafka's default poll interval");
        java.util.concurrent.atomic.AtomicLong other = new java.util.concurrent.atomic.AtomicLong();
        Thread another = new Thread(() -> other.set(budget.waitLeftMs()));
        another.start();
        another.join();
        assertEquals(10_000, other.get(), "each thread its own");
    }
}
