package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreStatistics;
import dev.txnrocksdb.streams.internals.nativeapi.StoreStatistic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

/**
 * One store's metrics in Kafka Streams' metrics registry: group {@code stream-state-metrics}, tags
 * {@code thread-id}, {@code task-id} and {@code <metrics scope>-state-id} (the store name), as
 * Kafka's own store metrics. RocksDB properties and the transactional gauges are at
 * {@code INFO}; the gauges from RocksDB statistics exist only under
 * {@code metrics.recording.level=DEBUG}, as in Kafka's RocksDB stores, since collecting those
 * statistics costs a little on every operation.
 *
 * <p>Kafka's metered layer, which wraps every store, measures the store's commits
 * ({@code commit-rate}, {@code commit-latency-avg}, {@code commit-latency-max}, at {@code DEBUG})
 * and reads its {@code uncommitted-bytes}; these metrics do not repeat them.
 *
 * <p>Gauges read one snapshot of the store's statistics ({@link NativeStoreStatistics#read}, one
 * native call), taken at most once a second, so reading every metric of a store costs one call.
 * The stream thread pays nothing for gauges; it records a commit (a counter) and a restored
 * batch. Everything is removed when the store closes.
 */
public final class StoreMetrics {
    /** The metrics scope of key-value and versioned stores. */
    public static final String KEY_VALUE_SCOPE = "txn-rocksdb";
    /** The metrics scope of window stores. */
    public static final String WINDOW_SCOPE = "txn-rocksdb-window";
    /** The metrics scope of session stores. */
    public static final String SESSION_SCOPE = "txn-rocksdb-session";

    private static final long SNAPSHOT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String GROUP = StreamsMetricsImpl.STATE_STORE_LEVEL_GROUP;

    /** For stores opened outside Kafka Streams (no metrics registry): records nothing. */
    static final StoreMetrics NONE = new StoreMetrics(null, null, null, null, null);

    private final StreamsMetricsImpl metrics;
    private final String taskId;
    private final String scope;
    private final String storeName;
    private final NativeStore store;
    private final List<MetricName> gauges = new ArrayList<>();
    private final List<Sensor> sensors = new ArrayList<>();
    private Sensor commitSensor;
    private Sensor restoreSensor;
    private volatile long recovers;
    private volatile long wipesBeforeSnapshot;

    private long[] snapshot;
    private long snapshotNanos;
    private long[] previous;
    private long previousNanos;

    private StoreMetrics(StreamsMetricsImpl metrics, String taskId, String scope, String storeName, NativeStore store) {
        this.metrics = metrics;
        this.taskId = taskId;
        this.scope = scope;
        this.storeName = storeName;
        this.store = store;
    }

    /**
     * Registers the metrics of {@code store} (just opened) in the context's registry, or returns
     * {@link #NONE} when the context has none of Kafka Streams' (a test context).
     *
     * @param statistics whether the store collects RocksDB statistics
     */
    static StoreMetrics register(
            StateStoreContext context, String storeName, String scope, NativeStore store, boolean statistics) {
        if (!(context.metrics() instanceof StreamsMetricsImpl) || context.taskId() == null) {
            return NONE;
        }
        StoreMetrics m = new StoreMetrics(
                (StreamsMetricsImpl) context.metrics(), context.taskId().toString(), scope, storeName, store);
        m.registerAll(statistics);
        return m;
    }

    /**
     * Registers the gauges of the store's snapshot downloads before the store opens (its stream
     * thread waits in the download, and the metrics are read meanwhile), or returns {@link #NONE}
     * when the context has no registry of Kafka Streams'. At INFO: the figures of the download's
     * progress lines, or "nothing to download" (0, 1, 0) when none runs.
     *
     * @param scope the store kind's metrics scope ({@link #KEY_VALUE_SCOPE}, ...), as its supplier's
     */
    static StoreMetrics registerDownload(
            StateStoreContext context, String storeName, String scope, SnapshotDownloadProgress download) {
        if (!(context.metrics() instanceof StreamsMetricsImpl) || context.taskId() == null) {
            return NONE;
        }
        StoreMetrics m = new StoreMetrics(
                (StreamsMetricsImpl) context.metrics(), context.taskId().toString(), scope, storeName, null);
        m.add(
                "snapshot-download-remaining-bytes",
                "Bytes the store's snapshot download still has to receive, while one runs (the store opening with"
                        + " an empty directory); 0 otherwise",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> download.remainingBytes());
        m.add(
                "snapshot-download-progress-ratio",
                "Bytes received over the snapshot's total of the store's snapshot download (0 to 1); 1 when none runs",
                RecordingLevel.INFO,
                (Gauge<Double>) (config, now) -> download.progressRatio());
        m.add(
                "snapshot-download-remaining-seconds",
                "Estimated seconds until the store's snapshot download ends, at its average rate so far; 0 when none"
                        + " runs; -1 while unknown",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> download.remainingSeconds());
        return m;
    }

    private void registerAll(boolean statistics) {
        // RocksDB properties (Kafka's names, INFO as in Kafka).
        gauge(
                "cur-size-all-mem-tables",
                "Approximate size of active and unflushed immutable memtables in bytes",
                StoreStatistic.CUR_SIZE_ALL_MEM_TABLES);
        gauge(
                "size-all-mem-tables",
                "Approximate size of active, unflushed immutable, and pinned immutable memtables" + " in bytes",
                StoreStatistic.SIZE_ALL_MEM_TABLES);
        gauge("estimate-num-keys", "Estimated number of committed keys", StoreStatistic.ESTIMATE_NUM_KEYS);
        gauge(
                "live-sst-files-size",
                "Total size in bytes of all SST files that belong to the latest LSM tree",
                StoreStatistic.LIVE_SST_FILES_SIZE);
        gauge("total-sst-files-size", "Total size in bytes of all SST files", StoreStatistic.TOTAL_SST_FILES_SIZE);
        gauge(
                "estimate-pending-compaction-bytes",
                "Estimated total number of bytes a compaction needs to rewrite",
                StoreStatistic.ESTIMATE_PENDING_COMPACTION_BYTES);
        gauge(
                "num-running-compactions",
                "Number of currently running compactions",
                StoreStatistic.NUM_RUNNING_COMPACTIONS);
        gauge("num-running-flushes", "Number of currently running flushes", StoreStatistic.NUM_RUNNING_FLUSHES);
        gauge(
                "number-open-files",
                "Number of currently open files (SST files, all kept open)",
                StoreStatistic.NUMBER_OPEN_FILES);
        gauge(
                "block-cache-capacity",
                "Capacity of the block cache in bytes (one cache shared by every txn-rocksdb store"
                        + " of the process)",
                StoreStatistic.BLOCK_CACHE_CAPACITY);
        gauge(
                "block-cache-usage",
                "Memory size of the entries residing in the shared block cache in bytes",
                StoreStatistic.BLOCK_CACHE_USAGE);
        gauge(
                "block-cache-pinned-usage",
                "Memory size for the entries being pinned in the shared block cache in bytes",
                StoreStatistic.BLOCK_CACHE_PINNED_USAGE);
        // What only a transactional store has.
        gauge(
                "temporary-store-bytes",
                "Bytes in the secondary-store strategy's temporary store",
                StoreStatistic.TEMPORARY_STORE_BYTES);
        gauge(
                "roll-forwards-total",
                "Commits interrupted by a crash or a failure that recovery completed since the store" + " opened",
                StoreStatistic.ROLL_FORWARDS);
        add(
                "wipes-total",
                "Times the store's files were found damaged when it opened and deleted, so that Kafka"
                        + " Streams restored it from its changelog (txn.rocksdb.wal.corruption), or from a snapshot and the changelog",
                RecordingLevel.INFO,
                longGauge(values -> StoreStatistic.WIPES.of(values) + wipesBeforeSnapshot));
        add(
                "rollbacks-total",
                "Transactions thrown away since the store opened: uncommitted temporary-store writes"
                        + " dropped at open, plus rollbacks Kafka Streams asked for",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> StoreStatistic.ROLLBACKS.of(values()) + recovers);
        // Kafka's metered layer above the store already has commit-rate, commit-latency-avg/-max
        // (DEBUG) and uncommitted-bytes for it; this adds the count.
        commitSensor = sensor("commit");
        commitSensor.add(
                new MetricName("commit-total", GROUP, "The total number of commits of the store", tags()),
                new CumulativeCount());
        restoreSensor = sensor("restore-records");
        StreamsMetricsImpl.addRateOfSumAndSumMetricsToSensor(
                restoreSensor,
                GROUP,
                tags(),
                "restore-records",
                "The average number of changelog records restored per second",
                "The total number of changelog records restored");
        if (statistics) {
            // RocksDB statistics (DEBUG, as in Kafka; cumulative since the store opened).
            add(
                    "bytes-written-total",
                    "Total number of bytes written to the RocksDB state store",
                    RecordingLevel.DEBUG,
                    longGauge(values -> StoreStatistic.BYTES_WRITTEN.of(values)));
            add(
                    "bytes-written-rate",
                    "Average number of bytes written per second to the RocksDB state store (between the"
                            + " last two readings)",
                    RecordingLevel.DEBUG,
                    (Gauge<Double>) (config, now) -> rate(StoreStatistic.BYTES_WRITTEN));
            add(
                    "bytes-read-total",
                    "Total number of bytes read from the RocksDB state store",
                    RecordingLevel.DEBUG,
                    longGauge(values -> StoreStatistic.BYTES_READ.of(values)));
            add(
                    "bytes-read-rate",
                    "Average number of bytes read per second from the RocksDB state store (between the"
                            + " last two readings)",
                    RecordingLevel.DEBUG,
                    (Gauge<Double>) (config, now) -> rate(StoreStatistic.BYTES_READ));
            hitRatio(
                    "block-cache-data-hit-ratio",
                    "data",
                    StoreStatistic.BLOCK_CACHE_DATA_HIT,
                    StoreStatistic.BLOCK_CACHE_DATA_MISS);
            hitRatio(
                    "block-cache-index-hit-ratio",
                    "indexes",
                    StoreStatistic.BLOCK_CACHE_INDEX_HIT,
                    StoreStatistic.BLOCK_CACHE_INDEX_MISS);
            hitRatio(
                    "block-cache-filter-hit-ratio",
                    "filters",
                    StoreStatistic.BLOCK_CACHE_FILTER_HIT,
                    StoreStatistic.BLOCK_CACHE_FILTER_MISS);
        }
    }

    private Map<String, String> tags() {
        return metrics.storeLevelTagMap(taskId, scope, storeName);
    }

    private Sensor sensor(String name) {
        Sensor sensor = metrics.storeLevelSensor(taskId, storeName, "txn-rocksdb-" + name, RecordingLevel.INFO);
        sensors.add(sensor);
        return sensor;
    }

    private void gauge(String name, String description, StoreStatistic statistic) {
        add(name, description, RecordingLevel.INFO, longGauge(statistic::of));
    }

    private Gauge<Long> longGauge(ToLongFunction<long[]> value) {
        return (config, now) -> value.applyAsLong(values());
    }

    private void hitRatio(String name, String blocks, StoreStatistic hits, StoreStatistic misses) {
        ToDoubleFunction<long[]> ratio = values -> {
            long hit = hits.of(values);
            long total = hit + misses.of(values);
            return total <= 0 ? 0.0 : (double) hit / total;
        };
        add(
                name,
                "Ratio of block cache hits for " + blocks + " relative to all lookups for " + blocks
                        + " to the block cache, since the store opened",
                RecordingLevel.DEBUG,
                (Gauge<Double>) (config, now) -> ratio.applyAsDouble(values()));
    }

    private <T> void add(String name, String description, RecordingLevel level, Gauge<T> gauge) {
        gauges.add(metrics.addStoreLevelMutableMetric(taskId, scope, storeName, name, description, level, gauge));
    }

    /** The latest snapshot, read again (one native call) when it is older than a second. */
    private synchronized long[] values() {
        long now = System.nanoTime();
        if (snapshot == null || now - snapshotNanos >= SNAPSHOT_MAX_AGE_NANOS) {
            try {
                long[] fresh = NativeStoreStatistics.read(store);
                previous = snapshot;
                previousNanos = snapshotNanos;
                snapshot = fresh;
                snapshotNanos = now;
            } catch (InvalidStateStoreException closed) {
                if (snapshot == null) {
                    snapshot = new long[StoreStatistic.values().length];
                }
            }
        }
        return snapshot;
    }

    /** Per second, between the two latest snapshots (0 until there are two). */
    private synchronized double rate(StoreStatistic statistic) {
        long[] current = values();
        if (previous == null || snapshotNanos == previousNanos) {
            return 0.0;
        }
        double seconds = (snapshotNanos - previousNanos) / 1e9;
        return Math.max(0, statistic.of(current) - statistic.of(previous)) / seconds;
    }

    /**
     * Adds the metrics of the store's snapshots ({@code txn.rocksdb.snapshot.location}), at INFO:
     * snapshots written, failed, bytes sent (totals since the store opened), the last snapshot's
     * duration, changelog offset and age, and whether (the snapshot's number, else -1), how long and
     * how many bytes this opening of the store restored from a snapshot.
     */
    void addExpiryMetrics(StoreExpiry expiry) {
        if (metrics == null || expiry == null) {
            return;
        }
        add(
                "ttl-expired-total",
                "Keys the store's time-to-live removed since it opened (each with a changelog" + " tombstone)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> expiry.expiredTotal());
        add(
                "ttl-expired-bytes-total",
                "Bytes of the keys and values the time-to-live removed since the store opened (freed on disk once"
                        + " compaction drops them)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> expiry.expiredBytesTotal());
        add(
                "ttl-expiry-backlog-commits",
                "Commits in a row that left expired keys for the next one (more than"
                        + " txn.rocksdb.ttl.expiry.keys.per.commit had expired; 0: none left)",
                RecordingLevel.INFO,
                (Gauge<Integer>) (config, now) -> expiry.backlogPasses());
    }

    void addSnapshotMetrics(StoreSnapshots snapshots) {
        if (metrics == null || snapshots == null) {
            return;
        }
        add("snapshots-total", "Snapshots written since the store opened", RecordingLevel.INFO, (Gauge<Long>)
                (config, now) -> snapshots.counts()[0]);
        add(
                "snapshot-failures-total",
                "Snapshots that failed since the store opened (logged at WARN; retried after" + " the interval)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.counts()[1]);
        add(
                "snapshot-bytes-sent-total",
                "Bytes of files sent to the snapshot location since the store opened",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.counts()[2]);
        add(
                "snapshot-objects-damaged-total",
                "Objects an earlier snapshot sent that a snapshot read back and found"
                        + " missing or damaged (each sent again) since the store opened",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.counts()[3]);
        add(
                "snapshot-objects-resent-total",
                "Objects an earlier snapshot sent that were sent again, found missing (a"
                        + " restore deletes an object it finds damaged) or damaged, since the store opened",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.counts()[4]);
        add(
                "snapshot-last-duration-ms",
                "Duration of the last snapshot written, checkpoint to manifest (-1: none yet)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.lastDurationMs());
        add(
                "snapshot-last-offset",
                "The changelog offset the last snapshot written holds (-1: none yet)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.lastOffset());
        add(
                "snapshot-last-age-ms",
                "Milliseconds since the last snapshot was written (-1: none yet)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.lastAgeMs());
        add(
                "snapshot-restored",
                "The snapshot this opening of the store restored (-1: none)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.restored()[0]);
        add(
                "snapshot-restore-ms",
                "Duration of the restore from a snapshot when the store opened (-1: none)",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.restored()[1]);
        add(
                "snapshot-restore-bytes",
                "Bytes downloaded by the restore from a snapshot when the store opened",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> snapshots.restored()[2]);
    }

    /**
     * Adds the gauges of the store's changelog restore progress, at INFO: the figures of
     * {@link RestoreProgress}'s progress lines (a restore behind for an interval or more), or
     * "nothing to restore" (0, 1, 0) when no restore is being reported.
     */
    void addRestoreMetrics(RestoreProgress progress) {
        if (metrics == null || progress == null) {
            return;
        }
        // Not restore-remaining-records-total: that is Kafka's task-level metric (records, by the
        // consumer's lag); these are per store and count offsets, transaction markers included.
        add(
                "restore-remaining-offsets",
                "Changelog offsets the store's restore still has to restore (transaction markers included),"
                        + " while a restore has been running for 10 s or more and is behind; 0 otherwise;"
                        + " -1 while the changelog's end offset cannot be looked up",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> progress.remainingOffsets());
        add(
                "restore-progress-ratio",
                "Offsets restored over offsets to restore of the store's restore in progress (0 to 1); 1 when none"
                        + " is in progress; -1 while the changelog's end offset is unknown",
                RecordingLevel.INFO,
                (Gauge<Double>) (config, now) -> progress.progressRatio());
        add(
                "restore-remaining-seconds",
                "Estimated seconds until the store's restore in progress catches up, at its average rate so far"
                        + " less the rate its changelog's end grows at; 0 when none is in progress; -1 while unknown",
                RecordingLevel.INFO,
                (Gauge<Long>) (config, now) -> progress.remainingSeconds());
    }

    /** Records one commit. */
    void recordCommit() {
        if (commitSensor != null) {
            commitSensor.record();
        }
    }

    /** Records a restored batch of {@code records} changelog records. */
    void recordRestore(int records) {
        if (restoreSensor != null) {
            restoreSensor.record(records);
        }
    }

    /**
     * Records that the store's damaged files were deleted when it opened and a snapshot restored it
     * before it opened again (the store open now did not see that wipe).
     */
    void recordWipeBeforeSnapshot() {
        wipesBeforeSnapshot++;
    }

    /** Records a rollback Kafka Streams asked for ({@code recover}). */
    void recordRollback() {
        recovers++;
    }

    /** Removes every metric of the store. */
    void close() {
        if (metrics == null) {
            return;
        }
        gauges.forEach(metrics::removeStoreLevelMetric);
        gauges.clear();
        sensors.forEach(metrics::removeSensor);
        sensors.clear();
    }
}
