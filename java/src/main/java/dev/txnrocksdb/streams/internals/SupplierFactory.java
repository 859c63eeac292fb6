package dev.txnrocksdb.streams.internals;

import static org.apache.kafka.streams.internals.ApiUtils.prepareMillisCheckFailMsgPrefix;
import static org.apache.kafka.streams.internals.ApiUtils.validateMillisecondDuration;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Kafka's {@code Stores} argument checks, then our suppliers: what {@code TxnStores} and
 * {@code TxnRocksDBDslStoreSuppliers} share, with the variants (window layout, emit-final sessions,
 * a store's own strategy) that only the DSL suppliers and tests choose.
 */
public final class SupplierFactory {
    private SupplierFactory() {}

    /**
     * Kafka's {@code Stores.persistentSessionStore} argument checks, then our supplier.
     *
     * @param strategy the stores' own transaction strategy, or null for the configured one
     */
    public static TxnSessionBytesStoreSupplier sessionStore(
            String name,
            Duration retentionPeriod,
            boolean transactional,
            TransactionStrategy strategy,
            boolean emitFinal) {
        return new TxnSessionBytesStoreSupplier(
                name, sessionMillis(name, retentionPeriod), transactional, strategy, emitFinal);
    }

    /**
     * Kafka's {@code Stores.persistentSessionStoreWithHeaders} argument checks, then our supplier.
     *
     * @param strategy the stores' own transaction strategy, or null for the configured one
     */
    public static TxnSessionHeadersBytesStoreSupplier sessionStoreWithHeaders(
            String name,
            Duration retentionPeriod,
            boolean transactional,
            TransactionStrategy strategy,
            boolean emitFinal) {
        return new TxnSessionHeadersBytesStoreSupplier(
                name, sessionMillis(name, retentionPeriod), transactional, strategy, emitFinal);
    }

    /** Kafka's session store argument checks: the retention period in ms. */
    private static long sessionMillis(String name, Duration retentionPeriod) {
        Objects.requireNonNull(name, "name cannot be null");
        String msgPrefix = prepareMillisCheckFailMsgPrefix(retentionPeriod, "retentionPeriod");
        long retentionPeriodMs = validateMillisecondDuration(retentionPeriod, msgPrefix);
        if (retentionPeriodMs < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        return retentionPeriodMs;
    }

    /** Kafka's versioned store argument check: the history retention in ms. */
    public static long historyRetentionMillis(Duration historyRetention) {
        String msgPrefix = prepareMillisCheckFailMsgPrefix(historyRetention, "historyRetention");
        long historyRetentionMs = validateMillisecondDuration(historyRetention, msgPrefix);
        if (historyRetentionMs < 0L) {
            throw new IllegalArgumentException("historyRetention cannot be negative");
        }
        return historyRetentionMs;
    }

    /** Kafka's default segment interval for a history retention ({@code RocksDbVersionedKeyValueBytesStoreSupplier}). */
    public static long defaultSegmentInterval(long historyRetentionMs) {
        if (historyRetentionMs <= 60_000L) {
            return Math.max(historyRetentionMs / 3, 2_000L);
        } else if (historyRetentionMs <= 300_000L) {
            return Math.max(historyRetentionMs / 5, 20_000L);
        } else if (historyRetentionMs <= 3_600_000L) {
            return Math.max(historyRetentionMs / 12, 60_000L);
        } else {
            return Math.max(historyRetentionMs / 24, 300_000L);
        }
    }

    /**
     * Kafka's {@code Stores.persistentWindowStore} argument checks, then our supplier.
     *
     * @param strategy the stores' own transaction strategy, or null for the configured one
     */
    public static TxnWindowBytesStoreSupplier windowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean timestamped,
            boolean transactional,
            TransactionStrategy strategy,
            TxnWindowStore.Layout layout) {
        long[] millis = windowMillis(name, retentionPeriod, windowSize);
        return new TxnWindowBytesStoreSupplier(
                name, millis[0], millis[1], retainDuplicates, timestamped, transactional, strategy, layout);
    }

    /**
     * Kafka's {@code Stores.persistentTimestampedWindowStoreWithHeaders} argument checks, then our supplier.
     *
     * @param strategy the stores' own transaction strategy, or null for the configured one
     */
    public static TxnWindowHeadersBytesStoreSupplier windowStoreWithHeaders(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy,
            TxnWindowStore.Layout layout) {
        long[] millis = windowMillis(name, retentionPeriod, windowSize);
        return new TxnWindowHeadersBytesStoreSupplier(
                name, millis[0], millis[1], retainDuplicates, transactional, strategy, layout);
    }

    /** Kafka's window store argument checks: the retention period and window size in ms. */
    private static long[] windowMillis(String name, Duration retentionPeriod, Duration windowSize) {
        Objects.requireNonNull(name, "name cannot be null");
        String rpMsgPrefix = prepareMillisCheckFailMsgPrefix(retentionPeriod, "retentionPeriod");
        long retentionMs = validateMillisecondDuration(retentionPeriod, rpMsgPrefix);
        String wsMsgPrefix = prepareMillisCheckFailMsgPrefix(windowSize, "windowSize");
        long windowSizeMs = validateMillisecondDuration(windowSize, wsMsgPrefix);
        if (retentionMs < 0L) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        if (windowSizeMs < 0L) {
            throw new IllegalArgumentException("windowSize cannot be negative");
        }
        if (windowSizeMs > retentionMs) {
            throw new IllegalArgumentException("The retention period of the window store " + name
                    + " must be no smaller than its window size. Got size=[" + windowSize + "], retention=["
                    + retentionPeriod + "]");
        }
        return new long[] {retentionMs, windowSizeMs};
    }

    public static WindowBytesStoreSupplier windowStore(
            String name,
            Duration retentionPeriod,
            Duration windowSize,
            boolean retainDuplicates,
            boolean timestamped,
            boolean transactional,
            TransactionStrategy strategy) {
        return windowStore(
                name,
                retentionPeriod,
                windowSize,
                retainDuplicates,
                timestamped,
                transactional,
                strategy,
                TxnWindowStore.Layout.KEY_FIRST);
    }
}
