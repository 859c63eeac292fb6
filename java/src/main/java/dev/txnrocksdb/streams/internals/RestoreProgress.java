package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.StoreSnapshots.ChangelogLookup;
import dev.txnrocksdb.streams.internals.StoreSnapshots.ChangelogState;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How far one store's changelog restore has come: logged at INFO every 10 s while a restore is
 * behind, with a summary when it catches up, and read by the store's {@code restore-*} gauges
 * ({@link StoreMetrics#addRestoreMetrics}).
 *
 * <p>Kafka Streams 4.4 tells a store's restore callback nothing but the batches (it ignores a
 * callback that is also a {@code StateRestoreListener}), so the figures are the store's own:
 * <ul>
 *   <li>the start is the offset after the store's committed changelog offset when it opened (or the
 *       first record's offset when none is committed), then, for a later restore of the same
 *       opening (a standby falling behind again), where the previous one left off;
 *   <li>done is the offset after each batch's last record; records are the batches' sizes added up
 *       (under exactly-once, offsets also count transaction markers, so offsets and records differ);
 *   <li>the end is the changelog partition's end offset, looked up with {@link ChangelogLookup}
 *       (an {@code Admin} client per call) on a background thread, never on the restoring thread:
 *       once a restore has run for half an interval, then with each progress line while the end
 *       moves (a standby following its active), once a minute while it does not (an active
 *       restore, whose end is fixed). The time left is the offsets left at the average rate so
 *       far, less the rate at which the end moved between the last two lookups. A lookup that fails, or does not answer within an interval,
 *       leaves the end unknown: the progress line then says so and has no total, and the next
 *       lookup waits twice as long (up to 5 minutes).
 * </ul>
 *
 * <p>A restore is reported only once it has been running for an interval and is still more than
 * 10 offsets short of the end looked up at least half an interval earlier:
 * a restore that takes a few seconds logs nothing, and a standby that keeps up is past any end
 * looked up seconds before. After a restore that was not reported caught up, the next look waits
 * twice as long (an interval, doubling up to 5 minutes), so a standby that keeps up costs one
 * lookup every few minutes and logs nothing. A reported restore ends with a summary line when it
 * reaches the end it knows of, or silently when no batch came for 3 intervals (Kafka ended, paused
 * or moved it; an exactly-once changelog whose tail is an aborted transaction ends short of its end).
 *
 * <p>A global store restores its partitions one after the other: each is a restore of its own, and
 * the gauges show the one under way.
 *
 * <p>Batches come from one thread (Kafka's state updater); the gauges read an immutable copy of the
 * figures from any thread. Nothing here throws into the restore.
 */
public final class RestoreProgress {
    /**
     * An internal configuration entry (not a setting: tests only): the interval of the progress
     * lines in milliseconds, instead of 10,000, of changelog restores and snapshot downloads alike.
     */
    public static final String INTERVAL_CONFIG = "__txn.rocksdb.restore.progress.interval.ms__";

    /** The interval of the progress lines: Kafka's own restore log line's ({@code StoreChangelogReader}). */
    static final long DEFAULT_INTERVAL_MS = 10_000;

    /**
     * Offsets short of the changelog's end that count as caught up: a restore under exactly-once
     * ends one offset short (the commit marker after the last record is never delivered). Kept
     * small, so that the summary comes with the last batch rather than a few before it; a standby
     * that keeps up needs no margin, as it is compared with an end looked up seconds earlier.
     */
    static final long CAUGHT_UP_MARGIN = 10;

    /** The longest wait, in intervals, for the next look at a store that kept up or whose lookups fail. */
    static final int MAX_BACKOFF_INTERVALS = 30;

    /** Intervals without a batch after which a restore is over as far as these figures go. */
    static final int QUIET_INTERVALS = 3;

    /** Intervals between lookups once two in a row found the same end. */
    static final int STEADY_REFRESH_INTERVALS = 6;

    private static final Logger log = LoggerFactory.getLogger(RestoreProgress.class);

    private final String storeName;
    private final Map<TopicPartition, Long> committedAtOpen;
    private final ChangelogLookup lookup;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final Executor executor;
    private final Consumer<String> sink;

    // Restoring thread only.
    /** Per changelog partition, the offset after the last record restored (a global store restores several). */
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    /** The offset after the last record restored from the partition of {@link #restore}. */
    private long position;

    private Restore restore;
    /** After a restore of {@link #idlePartition} caught up: no new one starts until {@link #idleNanos} have passed. */
    private boolean idle;

    private TopicPartition idlePartition;
    private long idleSince;
    private long idleNanos;
    private FutureTask<ChangelogState> lookupTask;
    private long lookupIssued;
    private boolean lookupBackingOff;
    private long nextLookup;
    private long failureBackoffNanos;
    private boolean failedOnce;

    /** What the gauges read: the restore being reported, or null. */
    private volatile Figures figures;

    /**
     * @param storeName the store's name, for the log
     * @param committedAtOpen the store's committed changelog offsets when it opened (copied)
     * @param lookup where the changelog's end offset comes from (called on a background thread)
     * @param intervalMs the interval of the progress lines
     */
    public RestoreProgress(
            String storeName, Map<TopicPartition, Long> committedAtOpen, ChangelogLookup lookup, long intervalMs) {
        this(storeName, committedAtOpen, lookup, intervalMs, System::nanoTime, Lookups.POOL, log::info);
    }

    /**
     * For tests: a clock, an executor for the lookups and a sink for the INFO lines.
     *
     * @param clock nanoseconds, as {@link System#nanoTime()}
     * @param executor runs each lookup (once); a lookup it never runs times out after an interval
     * @param sink takes every progress and summary line
     */
    RestoreProgress(
            String storeName,
            Map<TopicPartition, Long> committedAtOpen,
            ChangelogLookup lookup,
            long intervalMs,
            LongSupplier clock,
            Executor executor,
            Consumer<String> sink) {
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("The restore progress interval must be positive: " + intervalMs);
        }
        this.storeName = storeName;
        this.committedAtOpen = new HashMap<>(committedAtOpen);
        this.lookup = lookup;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        this.clock = clock;
        this.executor = executor;
        this.sink = sink;
        this.failureBackoffNanos = intervalNanos;
    }

    /** The interval of {@link #INTERVAL_CONFIG} in the application's configuration, else 10 s. */
    static long intervalMs(Map<String, Object> appConfigs) {
        Object configured = appConfigs == null ? null : appConfigs.get(INTERVAL_CONFIG);
        if (configured == null) {
            return DEFAULT_INTERVAL_MS;
        }
        try {
            long ms = configured instanceof Number
                    ? ((Number) configured).longValue()
                    : Long.parseLong(configured.toString().trim());
            return ms > 0 ? ms : DEFAULT_INTERVAL_MS;
        } catch (NumberFormatException e) {
            return DEFAULT_INTERVAL_MS;
        }
    }

    /**
     * A batch was restored. Never throws: progress is worth less than the restore.
     *
     * @param partition the changelog partition the batch came from
     * @param firstOffset the batch's first record's offset
     * @param lastOffset the batch's last record's offset
     * @param records the batch's records
     */
    public void restored(TopicPartition partition, long firstOffset, long lastOffset, int records) {
        try {
            onBatch(partition, firstOffset, lastOffset, records);
        } catch (RuntimeException e) {
            if (!failedOnce) {
                failedOnce = true;
                log.warn("Store {}: restore progress could not be followed; the restore goes on", storeName, e);
            }
        }
    }

    private void onBatch(TopicPartition partition, long firstOffset, long lastOffset, int records) {
        long now = clock.getAsLong();
        Long previous = positions.put(partition, lastOffset + 1);
        boolean wentBack = previous != null && firstOffset < previous;
        Restore r = restore;
        if (r != null
                && (now - r.lastBatch >= QUIET_INTERVALS * intervalNanos
                        || !r.partition.equals(partition)
                        || wentBack)) {
            // No batch for a while: Kafka ended, paused or moved this restore; or a global store
            // went on to its next partition; or the changelog is read again from further back.
            // Either way its figures no longer hold.
            endRestore(now, false);
            r = null;
        }
        if (r == null) {
            if (idle && partition.equals(idlePartition) && now - idleSince < idleNanos) {
                return;
            }
            idle = false;
            long start = wentBack ? firstOffset : previous != null ? previous : startOf(partition, firstOffset);
            r = restore = new Restore(partition, now, start);
        }
        r.records += records;
        r.lastBatch = now;
        position = lastOffset + 1;

        harvest(now, r);
        if (now - r.started >= intervalNanos / 2) {
            maybeLookUp(now, r);
            harvest(now, r);
        }
        if (r.end >= 0 && position >= r.end - CAUGHT_UP_MARGIN) {
            caughtUp(now, r);
            return;
        }
        // Without an end, wait for the lookup under way (or its timeout) rather than log a line
        // without a total that its answer would have made unnecessary (a standby that keeps up);
        // and before the first line, compare with an end at least half an interval old, which a
        // standby that keeps up has passed.
        boolean waitingForEnd = r.end < 0 && r.failure == null && lookupTask != null;
        boolean endTooFresh = r.end >= 0 && !r.reported && now - r.endLookedUp < intervalNanos / 2;
        if (now - r.nextCheck >= 0 && !waitingForEnd && !endTooFresh) {
            check(now, r);
        }
        if (r.reported) {
            figures = new Figures(r.started, now, r.start, position, r.end, r.endGrowthPerNano);
        }
    }

    /** Where the first restore of this opening starts: after the committed offset, if that is before the first record. */
    private long startOf(TopicPartition partition, long firstOffset) {
        Long committed = committedAtOpen.get(partition);
        return committed != null && committed >= 0 && committed < firstOffset ? committed + 1 : firstOffset;
    }

    private void check(long now, Restore r) {
        r.nextCheck = now + intervalNanos;
        if (r.end >= 0) {
            sink.accept(progressLine(now, r));
            r.reported = true;
        } else if (r.failure != null) {
            sink.accept(progressLine(now, r));
            r.failure = null;
            r.reported = true;
        }
        // else: the end is unknown and its last failure already said so; the next line follows the
        // next lookup's failure (they back off), or has the total.
    }

    private void caughtUp(long now, Restore r) {
        if (r.reported) {
            double seconds = seconds(now - r.started);
            sink.accept(String.format(
                    Locale.ROOT,
                    "Restored %d records of store %s partition %d in %.1f s (changelog %s, offsets %d to %d, %d"
                            + " records/s)",
                    r.records,
                    storeName,
                    r.partition.partition(),
                    seconds,
                    r.partition.topic(),
                    r.start,
                    position,
                    perSecond(r.records, seconds)));
        }
        endRestore(now, true);
        // A store that was just reported behind is looked at again soon; one that kept up less and less often.
        idleNanos = r.reported
                ? intervalNanos
                : Math.min(Math.max(idleNanos * 2, intervalNanos), MAX_BACKOFF_INTERVALS * intervalNanos);
    }

    private void endRestore(long now, boolean caughtUp) {
        idle = caughtUp;
        idlePartition = restore.partition;
        idleSince = now;
        restore = null;
        figures = null;
    }

    private String progressLine(long now, Restore r) {
        double seconds = seconds(now - r.started);
        long done = position - r.start;
        String head = String.format(
                Locale.ROOT,
                "Restoring store %s partition %d (changelog %s): ",
                storeName,
                r.partition.partition(),
                r.partition.topic());
        String records = String.format(
                Locale.ROOT, "%d records in %.1f s (%d records/s)", r.records, seconds, perSecond(r.records, seconds));
        if (r.end < 0) {
            return head
                    + String.format(Locale.ROOT, "%d offsets done (to %d), ", done, position)
                    + records
                    + "; total unknown: the changelog's end offset could not be looked up (" + r.failure + ")";
        }
        long total = r.end - r.start;
        long left = Math.max(0, r.end - position);
        long secondsLeft = secondsLeft(done, left, now - r.started, r.endGrowthPerNano);
        return head
                + String.format(
                        Locale.ROOT,
                        "%d of %d offsets (%.1f%%, %d left), ",
                        done,
                        total,
                        total <= 0 ? 100.0 : 100.0 * done / total,
                        left)
                + records
                + (secondsLeft < 0 ? ", time left unknown" : ", about " + secondsLeft + " s left");
    }

    // ------------------------------------------------------------------ the end offset

    private void maybeLookUp(long now, Restore r) {
        if (lookupTask != null || (lookupBackingOff && now - nextLookup < 0)) {
            return;
        }
        boolean due;
        if (r.end < 0) {
            due = true;
        } else if (!r.reported) {
            // the end found decides whether the first line is due; nothing to refresh yet
            due = false;
        } else {
            long age = now - r.endLookedUp;
            due = age >= (r.endUnchanged > 0 ? STEADY_REFRESH_INTERVALS : 1) * intervalNanos;
        }
        if (!due) {
            return;
        }
        TopicPartition partition = r.partition;
        FutureTask<ChangelogState> task = new FutureTask<>(() -> lookup.describe(partition, true));
        lookupTask = task;
        lookupIssued = now;
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            lookupTask = null;
            failed(now, r, e.toString());
        }
    }

    /** Takes the answer of the lookup under way, if any came (or it timed out). */
    private void harvest(long now, Restore r) {
        FutureTask<ChangelogState> task = lookupTask;
        if (task == null) {
            return;
        }
        boolean forEarlierRestore = lookupIssued - r.started < 0;
        if (!task.isDone()) {
            if (now - lookupIssued >= intervalNanos) {
                task.cancel(true);
                lookupTask = null;
                if (!forEarlierRestore) {
                    failed(now, r, "no answer within " + TimeUnit.NANOSECONDS.toMillis(intervalNanos) + " ms");
                }
            }
            return;
        }
        lookupTask = null;
        if (forEarlierRestore) {
            return; // an end from before this restore started says nothing of it
        }
        try {
            ChangelogState state = task.get();
            if (state == null || state.end < 0) {
                failed(now, r, "no end offset");
                return;
            }
            r.endUnchanged = state.end == r.end ? r.endUnchanged + 1 : 0;
            if (r.end >= 0 && lookupIssued - r.endLookedUp > 0) {
                // how fast the end moves (a standby's active writing): the restore closes in at the difference
                r.endGrowthPerNano = Math.max(0.0, (double) (state.end - r.end) / (lookupIssued - r.endLookedUp));
            }
            r.end = state.end;
            r.endLookedUp = lookupIssued;
            r.failure = null;
            lookupBackingOff = false;
            failureBackoffNanos = intervalNanos;
        } catch (ExecutionException e) {
            failed(now, r, String.valueOf(e.getCause()));
        } catch (CancellationException e) {
            failed(now, r, e.toString());
        } catch (InterruptedException e) {
            // not from a task that is done; keep the restoring thread's interrupt for Kafka
            Thread.currentThread().interrupt();
            failed(now, r, e.toString());
        }
    }

    private void failed(long now, Restore r, String why) {
        log.debug("Store {}: looking up the end offset of changelog {} failed: {}", storeName, r.partition, why);
        if (r.end < 0) {
            r.failure = why;
        }
        lookupBackingOff = true;
        nextLookup = now + failureBackoffNanos;
        failureBackoffNanos = Math.min(failureBackoffNanos * 2, MAX_BACKOFF_INTERVALS * intervalNanos);
    }

    // ------------------------------------------------------------------ gauges

    /**
     * Changelog offsets the reported restore still has to restore: 0 when none is reported (none
     * running for an interval, or it caught up), -1 while its changelog's end is unknown.
     */
    long remainingOffsets() {
        Figures f = current();
        if (f == null) {
            return 0;
        }
        return f.end < 0 ? -1 : Math.max(0, f.end - f.position);
    }

    /** Offsets done over offsets to restore of the reported restore: 1 when none is reported, -1 while its end is unknown. */
    double progressRatio() {
        Figures f = current();
        if (f == null) {
            return 1.0;
        }
        if (f.end < 0) {
            return -1.0;
        }
        long total = f.end - f.start;
        return total <= 0 ? 1.0 : Math.min(1.0, (double) (f.position - f.start) / total);
    }

    /**
     * Estimated seconds until the reported restore catches up, at its average rate so far less the
     * rate its end moves at: 0 when none is reported, -1 while its end is unknown or it does not
     * close in.
     */
    long remainingSeconds() {
        Figures f = current();
        if (f == null) {
            return 0;
        }
        if (f.end < 0) {
            return -1;
        }
        return secondsLeft(
                f.position - f.start, Math.max(0, f.end - f.position), f.lastBatch - f.started, f.endGrowthPerNano);
    }

    private Figures current() {
        Figures f = figures;
        if (f == null || clock.getAsLong() - f.lastBatch >= QUIET_INTERVALS * intervalNanos) {
            return null;
        }
        return f;
    }

    // ------------------------------------------------------------------ arithmetic

    /**
     * Seconds until {@code left} offsets are restored at the average rate so far, less the rate at
     * which the end moves; -1 when that is unknown or the restore does not close in.
     */
    private static long secondsLeft(long done, long left, long elapsedNanos, double endGrowthPerNano) {
        if (left == 0) {
            return 0;
        }
        if (done <= 0 || elapsedNanos <= 0) {
            return -1;
        }
        double closingPerNano = (double) done / elapsedNanos - endGrowthPerNano;
        return closingPerNano <= 0 ? -1 : (long) Math.ceil(left / closingPerNano / 1e9);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static long perSecond(long count, double seconds) {
        return seconds <= 0 ? 0 : Math.round(count / seconds);
    }

    /** One restore: from the first batch after the store opened, after a quiet spell or after the last one caught up. */
    private final class Restore {
        final TopicPartition partition;
        final long started;
        final long start;
        long records;
        long lastBatch;
        long nextCheck;
        boolean reported;
        /** The changelog's end offset as a lookup during this restore found it, or -1. */
        long end = -1;
        /** When the lookup that found {@link #end} was asked (the end is at least that recent). */
        long endLookedUp;
        /** Lookups in a row that found the same end. */
        int endUnchanged;
        /** Offsets per nanosecond the end grew by between the last two lookups (0 until there are two). */
        double endGrowthPerNano;
        /** Why the last lookup failed, while it has not been said (and the end is unknown). */
        String failure;

        Restore(TopicPartition partition, long started, long start) {
            this.partition = partition;
            this.started = started;
            this.start = start;
            this.lastBatch = started;
            this.nextCheck = started + intervalNanos;
        }
    }

    /** The figures of the reported restore as of its last batch. */
    private static final class Figures {
        final long started;
        final long lastBatch;
        final long start;
        final long position;
        final long end;
        final double endGrowthPerNano;

        Figures(long started, long lastBatch, long start, long position, long end, double endGrowthPerNano) {
            this.started = started;
            this.lastBatch = lastBatch;
            this.start = start;
            this.position = position;
            this.end = end;
            this.endGrowthPerNano = endGrowthPerNano;
        }
    }

    /**
     * The process's lookup threads: few, daemon, gone when idle. A lookup of an unreachable cluster
     * holds its thread until the Admin client gives up; the store has stopped waiting for it after an
     * interval, and asks again later.
     */
    private static final class Lookups {
        static final ThreadPoolExecutor POOL = pool();

        private static ThreadPoolExecutor pool() {
            AtomicInteger threads = new AtomicInteger();
            ThreadPoolExecutor pool =
                    new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
                        Thread thread =
                                new Thread(runnable, "txn-rocksdb-restore-progress-" + threads.incrementAndGet());
                        thread.setDaemon(true);
                        return thread;
                    });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
