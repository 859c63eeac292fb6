package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStore;
import dev.txnrocksdb.streams.internals.nativeapi.PreparedSnapshot;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotDownloadWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One store's snapshots ({@link TxnRocksDBConfig#SNAPSHOT_LOCATION_CONFIG}): at init, a store
 * without local state restores the newest usable snapshot before it opens (its committed offsets
 * then are the snapshot's, so Kafka Streams restores only the changelog's tail); after a commit,
 * once the interval has passed, a checkpoint is taken on the committing thread and sent by the
 * process's {@link SnapshotSenders}; closing cancels a snapshot being sent, which stops at once.
 *
 * <p>A restore waits for the location at most {@code txn.rocksdb.snapshot.restore.wait.ms} in all,
 * within what is left of its thread's {@link ThreadRestoreBudget}; the location is shared by the
 * stores of the process ({@link SnapshotLocations}), so that once it did not answer, the stores
 * opening after skip it for a while rather than wait again.
 *
 * <p>Nothing here ever fails processing: a failure to reach the cluster or the location turns
 * snapshots off for this opening of the store (WARN); a failed snapshot is logged and counted, and
 * the next one is taken after the interval; a failed restore leaves the changelog to restore
 * everything.
 *
 * <p>A store's snapshots live under {@code <application.id>/<store name>/<partition>-<topic id>}:
 * the changelog topic's id in the name means a deleted and recreated changelog (an application
 * reset) never finds the old topic's snapshots; the offset check of the native restore catches a
 * changelog truncated below, or short of, a snapshot's offset.
 */
public final class StoreSnapshots implements AutoCloseable {
    /**
     * An internal configuration entry (an object, not a setting: tests only): the
     * {@link ChangelogLookup} stores use instead of asking the cluster with an {@code Admin} client.
     */
    public static final String CHANGELOG_LOOKUP_CONFIG = "__txn.rocksdb.snapshot.changelog.lookup__";

    private static final Logger log = LoggerFactory.getLogger(StoreSnapshots.class);
    /**
     * How long closing waits for a cancelled snapshot to stop (it stops within 50 ms of the cancel,
     * its checkpoint deleted); one still running after it lets the location go itself.
     */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    /** What the cluster says of a changelog partition. */
    public static final class ChangelogState {
        final Uuid topicId;
        /** The log start offset, or -1 when not asked for. */
        final long start;
        /** The log end offset, or -1 when not asked for. */
        final long end;

        /**
         * @param topicId the changelog topic's id
         * @param start the partition's log start offset (-1 when not asked for)
         * @param end the partition's log end offset (-1 when not asked for)
         */
        public ChangelogState(Uuid topicId, long start, long end) {
            this.topicId = topicId;
            this.start = start;
            this.end = end;
        }
    }

    /** Looks a changelog partition up in the cluster. */
    @FunctionalInterface
    public interface ChangelogLookup {
        /**
         * @param withOffsets whether the partition's start and end offsets are needed too
         * @throws Exception when the cluster cannot be reached or refuses
         */
        ChangelogState describe(TopicPartition partition, boolean withOffsets) throws Exception;
    }

    private final String storeName;
    private final String storeId;
    private final TopicPartition changelog;
    private final ChangelogLookup lookup;
    private final SnapshotLocations.Lease lease;
    private final NativeSnapshotLocation location;
    private final long intervalNanos;
    private final int retained;
    private final ThreadRestoreBudget threadBudget;
    /** Where a running download's figures go, for the store's metrics. */
    private final SnapshotDownloadProgress download;
    /** How often a running download logs its progress (as a changelog restore: {@link RestoreProgress}). */
    private final long progressIntervalMs;
    /** Whether the store opens with a time-to-live: only a snapshot of such a store restores it. */
    private final boolean ttl;

    private final ThreadPoolExecutor senders;
    /** The snapshot handed to the senders, until it ran (closing takes it back if it has not started). */
    private final AtomicReference<Runnable> queued = new AtomicReference<>();

    private final AtomicReference<PreparedSnapshot> inFlight = new AtomicReference<>();
    /** Counts down when the snapshot being sent has stopped. */
    private volatile CountDownLatch sent = new CountDownLatch(0);
    /** The store and a snapshot being sent each hold the lease; the last to end lets it go. */
    private final AtomicInteger leaseHolders = new AtomicInteger(1);

    private volatile boolean closing;
    private long lastPrepared;

    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong objectsDamaged = new AtomicLong();
    private final AtomicLong objectsResent = new AtomicLong();
    private volatile long lastDurationMs = -1;
    private volatile long lastOffset = -1;
    private volatile long lastWrittenMs = -1;
    private volatile long restoredSeq = -1;
    private volatile long restoreMs = -1;
    private volatile long restoreBytes;

    private StoreSnapshots(
            String storeName,
            String storeId,
            TopicPartition changelog,
            ChangelogLookup lookup,
            SnapshotLocations.Lease lease,
            StoreSettings settings,
            boolean ttl,
            ThreadRestoreBudget threadBudget,
            SnapshotDownloadProgress download,
            long progressIntervalMs) {
        this.storeName = storeName;
        this.download = download;
        this.progressIntervalMs = progressIntervalMs;
        this.storeId = storeId;
        this.changelog = changelog;
        this.lookup = lookup;
        this.lease = lease;
        this.location = lease.location();
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(settings.snapshotIntervalMs());
        this.retained = settings.snapshotsRetained();
        this.threadBudget = threadBudget;
        this.ttl = ttl;
        this.senders = SnapshotSenders.pool(settings.snapshotIoThreads());
        this.lastPrepared = System.nanoTime();
    }

    /**
     * The snapshots of a store about to open in {@code dir}, having restored the newest usable one
     * into it when it holds nothing (of a store with a time-to-live if {@code ttl}, else of one
     * without); null when snapshots are off for the store (no location, no changelog, or the
     * cluster or the location cannot be reached: WARN).
     */
    static StoreSnapshots open(
            String storeName,
            StoreSettings settings,
            StateStoreContext context,
            TopicPartition changelog,
            Path dir,
            boolean ttl,
            ChangelogLookup lookup) {
        return open(storeName, settings, context, changelog, dir, ttl, lookup, new SnapshotDownloadProgress());
    }

    /**
     * {@link #open(String, StoreSettings, StateStoreContext, TopicPartition, Path, boolean,
     * ChangelogLookup)}, every snapshot download (this one and after a wipe) reported to {@code
     * download} while it runs.
     */
    static StoreSnapshots open(
            String storeName,
            StoreSettings settings,
            StateStoreContext context,
            TopicPartition changelog,
            Path dir,
            boolean ttl,
            ChangelogLookup lookup,
            SnapshotDownloadProgress download) {
        String uri = settings.snapshotLocation(storeName);
        if (uri == null) {
            return null;
        }
        if (changelog == null) {
            log.info("Store {} takes no snapshots: it has no changelog to restore their tail from", storeName);
            return null;
        }
        boolean empty = isEmpty(dir);
        ChangelogState state;
        try {
            state = lookup.describe(changelog, empty);
        } catch (Exception e) {
            log.warn(
                    "Store {}: snapshots are off for this task, as its changelog {} could not be looked up ({}); the"
                            + " changelog restores the store as without snapshots",
                    storeName,
                    changelog,
                    e.toString());
            return null;
        }
        String applicationId = String.valueOf(context.applicationId());
        String storeId = new SnapshotStoreId(applicationId, storeName, changelog.partition(), state.topicId).toString();
        SnapshotLocations.Lease lease;
        try {
            lease = SnapshotLocations.acquire(settings.snapshotLocationOptions(storeName));
        } catch (RuntimeException e) {
            log.warn(
                    "Store {}: snapshots are off for this task, as the snapshot location could not be opened ({})",
                    storeName,
                    e.getMessage());
            return null;
        }
        StoreSnapshots snapshots = new StoreSnapshots(
                storeName,
                storeId,
                changelog,
                lookup,
                lease,
                settings,
                ttl,
                ThreadRestoreBudget.of(context.appConfigs(), settings.snapshotRestoreWaitMs()),
                download,
                RestoreProgress.intervalMs(context.appConfigs()));
        if (empty) {
            snapshots.restore(dir, changelog, state);
        }
        return snapshots;
    }

    /** The store's snapshots' name under the location. */
    String storeId() {
        return storeId;
    }

    /**
     * After the damage policy deleted the store's files (the store, closed again, opened empty):
     * empties {@code dir} and restores the newest usable snapshot into it, asking the cluster for the
     * changelog's offsets first. Whatever fails, the directory is left empty for the changelog.
     */
    void restoreAfterWipe(Path dir) {
        log.warn(
                "Store {}: its damaged files were deleted (txn.rocksdb.wal.corruption); restoring a snapshot before the"
                        + " changelog's tail",
                storeName);
        ChangelogState state;
        try {
            state = lookup.describe(changelog, true);
        } catch (Exception e) {
            log.warn(
                    "Store {}: the changelog {} could not be looked up ({}); it restores the store",
                    storeName,
                    changelog,
                    e.toString());
            return;
        }
        try {
            deleteTree(dir);
        } catch (IOException e) {
            log.warn(
                    "Store {}: emptying {} failed ({}); the changelog restores the store",
                    storeName,
                    dir,
                    e.toString());
            return;
        }
        restore(dir, changelog, state);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private void restore(Path dir, TopicPartition changelog, ChangelogState state) {
        long timeLeft = threadBudget.timeLeftMs();
        long waitLeft = threadBudget.waitLeftMs();
        if (timeLeft == 0 || waitLeft == 0) {
            log.warn(
                    "Store {}: no snapshot restored: this stream thread's snapshot restores {} in this"
                            + " max.poll.interval.ms; the changelog {} restores the store",
                    storeName,
                    timeLeft == 0
                            ? "took their " + threadBudget.timeMs() + " ms (half of max.poll.interval.ms)"
                            : "waited their " + threadBudget.waitMs()
                                    + " ms (txn.rocksdb.snapshot.restore.wait.ms) for the location",
                    changelog);
            createDirectories(dir);
            return;
        }
        long started = System.nanoTime();
        long waited = -1;
        try (SnapshotDownloadWatch watch = SnapshotDownloadWatch.create(progressIntervalMs)) {
            SnapshotCalls.Restored restored;
            download.started(watch);
            try {
                restored = location.restoreNewest(
                        SnapshotCalls.RestoreRequest.builder(storeId, dir)
                                .changelog(changelog, state.start, state.end)
                                .waiting(waitLeft, timeLeft)
                                .ttl(ttl)
                                .build(),
                        watch);
            } finally {
                download.ended();
            }
            if (restored == null) {
                log.info(
                        "Store {}: no usable snapshot at {}/{}; the changelog {} restores the store",
                        storeName,
                        location.uri(),
                        storeId,
                        changelog);
            } else {
                waited = TimeUnit.MILLISECONDS.toNanos(restored.waitedMs);
                restoredSeq = restored.seq;
                restoreMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                restoreBytes = restored.bytes;
                log.info(
                        "Store {}: restored snapshot {} from {}/{} ({} files, {} bytes) in {} ms{}; the changelog {}"
                                + " restores what follows it",
                        storeName,
                        restored.seq,
                        location.uri(),
                        storeId,
                        restored.files,
                        restored.bytes,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                        restored.skipped == 0
                                ? ""
                                : " (" + restored.skipped + " newer ones were not usable, see above)",
                        changelog);
            }
        } catch (RuntimeException e) {
            log.warn(
                    "Store {}: restoring a snapshot from {}/{} failed after {} ms ({}); the changelog {} restores the"
                            + " store",
                    storeName,
                    location.uri(),
                    storeId,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    e.getMessage(),
                    changelog);
        } finally {
            // no snapshot or a failure: its time was spent waiting for the location (a download counts no waiting)
            long took = System.nanoTime() - started;
            threadBudget.spend(took, waited < 0 ? took : waited);
        }
        createDirectories(dir);
    }

    private void createDirectories(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            // the native open creates it, or fails naming it
            log.debug("Store {}: creating {} failed", storeName, dir, e);
        }
    }

    /**
     * After a commit of the store, on the committing thread: once the interval has passed since the
     * last snapshot and none is being sent, takes a checkpoint and hands it to the process's senders.
     */
    void afterCommit(NativeStore store) {
        long now = System.nanoTime();
        if (closing || inFlight.get() != null || now - lastPrepared < intervalNanos) {
            return;
        }
        lastPrepared = now;
        PreparedSnapshot prepared;
        try {
            prepared = NativeSnapshotLocation.prepare(store);
        } catch (RuntimeException e) {
            failed.incrementAndGet();
            log.warn(
                    "Store {}: taking a checkpoint for a snapshot failed ({}); the next is taken after the interval",
                    storeName,
                    e.getMessage());
            return;
        }
        inFlight.set(prepared);
        CountDownLatch done = new CountDownLatch(1);
        sent = done;
        leaseHolders.incrementAndGet();
        Runnable job = new Runnable() {
            @Override
            public void run() {
                if (queued.compareAndSet(this, null)) {
                    send(prepared, done);
                }
            }
        };
        queued.set(job);
        try {
            senders.execute(job);
        } catch (RuntimeException e) {
            queued.set(null);
            abandon(prepared, done);
        }
    }

    /** Ends a snapshot that was never sent. */
    private void abandon(PreparedSnapshot prepared, CountDownLatch done) {
        inFlight.set(null);
        prepared.close();
        done.countDown();
        releaseLease();
    }

    private void send(PreparedSnapshot prepared, CountDownLatch done) {
        long started = System.nanoTime();
        try (prepared) {
            if (closing) {
                return;
            }
            SnapshotCalls.Taken sent = location.upload(prepared, storeId);
            taken.incrementAndGet();
            bytesSent.addAndGet(sent.bytesSent);
            objectsDamaged.addAndGet(sent.objectsDamaged);
            objectsResent.addAndGet(sent.objectsResent);
            lastDurationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            lastOffset = sent.changelogOffset();
            lastWrittenMs = System.currentTimeMillis();
            log.info(
                    "Store {}: snapshot {} written to {}/{} in {} ms ({} files, {} objects sent, {} bytes sent, {} checked,"
                            + " {} found damaged)",
                    storeName,
                    sent.seq,
                    location.uri(),
                    storeId,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    sent.files,
                    sent.objectsSent,
                    sent.bytesSent,
                    sent.objectsVerified,
                    sent.objectsDamaged);
            SnapshotCalls.Retained deleted = location.retain(prepared, storeId, retained);
            if (deleted.manifestsDeleted > 0 || deleted.objectsDeleted > 0) {
                log.debug(
                        "Store {}: deleted {} older snapshots and {} files no kept one references",
                        storeName,
                        deleted.manifestsDeleted,
                        deleted.objectsDeleted);
            }
        } catch (RuntimeException e) {
            if (closing) {
                log.debug("Store {}: a snapshot being sent stopped as the store closed: {}", storeName, e.getMessage());
            } else {
                failed.incrementAndGet();
                log.warn(
                        "Store {}: a snapshot to {}/{} failed ({}); the next is taken after the interval",
                        storeName,
                        location.uri(),
                        storeId,
                        e.getMessage());
            }
        } finally {
            inFlight.set(null);
            done.countDown();
            releaseLease();
        }
    }

    private void releaseLease() {
        if (leaseHolders.decrementAndGet() == 0) {
            lease.close();
        }
    }

    /**
     * Snapshots written, failed, bytes sent, objects found damaged (or missing) and objects sent
     * again, since this opening of the store.
     */
    long[] counts() {
        return new long[] {taken.get(), failed.get(), bytesSent.get(), objectsDamaged.get(), objectsResent.get()};
    }

    /** Duration of the last snapshot written (checkpoint to manifest, off the stream thread), or -1. */
    long lastDurationMs() {
        return lastDurationMs;
    }

    /** The changelog offset the last snapshot written holds, or -1. */
    long lastOffset() {
        return lastOffset;
    }

    /** Milliseconds since the last snapshot was written, or -1 before the first. */
    long lastAgeMs() {
        long written = lastWrittenMs;
        return written < 0 ? -1 : System.currentTimeMillis() - written;
    }

    /** The snapshot this opening of the store restored, or -1; its duration in ms and bytes. */
    long[] restored() {
        return new long[] {restoredSeq, restoreMs, restoreBytes};
    }

    /** Whether a snapshot is being sent. */
    boolean sending() {
        return inFlight.get() != null;
    }

    /**
     * Cancels a snapshot being sent and waits for it to stop (within 50 ms: its checkpoint deleted,
     * no manifest written), then lets the location go. Idempotent.
     */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        PreparedSnapshot prepared = inFlight.get();
        Runnable job = queued.getAndSet(null);
        if (job != null) {
            // still waiting behind other stores' snapshots: never started, ended here
            senders.remove(job);
            abandon(prepared, sent);
        } else if (prepared != null) {
            prepared.cancel();
        }
        try {
            if (!sent.await(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn(
                        "Store {}: a snapshot being sent did not stop within {} s of closing",
                        storeName,
                        CLOSE_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        releaseLease();
    }

    private static boolean isEmpty(Path dir) {
        if (!Files.isDirectory(dir)) {
            return !Files.exists(dir);
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    /** The lookup of {@link #CHANGELOG_LOOKUP_CONFIG} if the configuration holds one, else {@link #adminLookup}. */
    static ChangelogLookup lookupFor(Map<String, Object> appConfigs) {
        Object configured = appConfigs.get(CHANGELOG_LOOKUP_CONFIG);
        return configured instanceof ChangelogLookup ? (ChangelogLookup) configured : adminLookup(appConfigs);
    }

    /**
     * Looks changelogs up with an {@link Admin} client built from the application's configuration
     * (Kafka Streams' admin settings, {@code admin.}-prefixed overrides included), one per lookup.
     */
    static ChangelogLookup adminLookup(Map<String, Object> appConfigs) {
        return (partition, withOffsets) -> {
            StreamsConfig streamsConfig = new StreamsConfig(appConfigs, false) {};
            Map<String, Object> config = streamsConfig.getAdminConfigs("txn-rocksdb-snapshots");
            Duration timeout = Duration.ofMillis(Long.parseLong(
                    String.valueOf(config.getOrDefault(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))));
            try (Admin admin = Admin.create(config)) {
                TopicDescription description = admin.describeTopics(List.of(partition.topic()))
                        .allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(partition.topic());
                if (!withOffsets) {
                    return new ChangelogState(description.topicId(), -1, -1);
                }
                ListOffsetsResultInfo start = admin.listOffsets(Map.of(partition, OffsetSpec.earliest()))
                        .partitionResult(partition)
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                ListOffsetsResultInfo end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .partitionResult(partition)
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return new ChangelogState(description.topicId(), start.offset(), end.offset());
            }
        };
    }
}
