package dev.txnrocksdb.streams.internals;

import java.util.Map;

/**
 * What a stream thread may spend restoring snapshots within any {@code max.poll.interval.ms}: time,
 * half of it; and waiting for the location to answer (time in which no byte arrived),
 * {@code txn.rocksdb.snapshot.restore.wait.ms}. Kafka Streams opens the stores of a thread's new
 * tasks one after another between two polls; however many there are and however the location
 * behaves, their snapshot restores leave the thread time to poll before the group throws it out.
 * Stores opening past either limit restore from the changelog (on Kafka's restore path, which does
 * not hold the poll).
 */
final class ThreadRestoreBudget {
    /** Kafka's consumer default of {@code max.poll.interval.ms}. */
    static final long MAX_POLL_INTERVAL_MS_DEFAULT = 300_000L;

    /** Per thread: [start of its window, nanoseconds spent in it, nanoseconds waited in it]. */
    private static final ThreadLocal<long[]> SPENT =
            ThreadLocal.withInitial(() -> new long[] {System.nanoTime(), 0, 0});

    private final long windowNanos;
    private final long timeNanos;
    private final long waitNanos;

    private ThreadRestoreBudget(long maxPollIntervalMs, long waitMs) {
        this.windowNanos = maxPollIntervalMs * 1_000_000L;
        this.timeNanos = windowNanos / 2;
        this.waitNanos = waitMs * 1_000_000L;
    }

    /** The budget under the application's {@code max.poll.interval.ms} (its main consumer's). */
    static ThreadRestoreBudget of(Map<String, Object> appConfigs, long waitMs) {
        long interval = MAX_POLL_INTERVAL_MS_DEFAULT;
        // Kafka Streams' order: the plain setting, then consumer.-prefixed, then main.consumer.-prefixed
        for (String key : new String[] {
            "max.poll.interval.ms", "consumer.max.poll.interval.ms", "main.consumer.max.poll.interval.ms"
        }) {
            Object value = appConfigs.get(key);
            if (value != null) {
                try {
                    interval = Long.parseLong(value.toString().trim());
                } catch (NumberFormatException e) {
                    // Kafka refuses it when it builds the consumer
                }
            }
        }
        return new ThreadRestoreBudget(Math.max(interval, 1), waitMs);
    }

    /** Milliseconds of time this thread may still spend on restores now (0: none). */
    long timeLeftMs() {
        return Math.max(0, (timeNanos - window()[1]) / 1_000_000L);
    }

    /** Milliseconds this thread may still wait for the location now (0: none). */
    long waitLeftMs() {
        return Math.max(0, (waitNanos - window()[2]) / 1_000_000L);
    }

    /** Counts a restore by this thread that took {@code nanos} and waited {@code waitedNanos} of them. */
    void spend(long nanos, long waitedNanos) {
        long[] spent = window();
        spent[1] += nanos;
        spent[2] += Math.min(nanos, waitedNanos);
    }

    /** The time budget in milliseconds. */
    long timeMs() {
        return timeNanos / 1_000_000L;
    }

    /** The waiting budget in milliseconds. */
    long waitMs() {
        return waitNanos / 1_000_000L;
    }

    private long[] window() {
        long[] spent = SPENT.get();
        long now = System.nanoTime();
        if (now - spent[0] >= windowNanos) {
            spent[0] = now;
            spent[1] = 0;
            spent[2] = 0;
        }
        return spent;
    }
}
