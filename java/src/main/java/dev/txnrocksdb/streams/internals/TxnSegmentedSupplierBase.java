package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;

/** What the window and session suppliers share besides {@link TxnSupplierBase}: retention and segments. */
public abstract class TxnSegmentedSupplierBase extends TxnSupplierBase {
    private final long retentionPeriod;
    private final long segmentInterval;

    public TxnSegmentedSupplierBase(
            String name, long retentionPeriod, boolean transactional, TransactionStrategy strategy) {
        super(name, transactional, strategy);
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = defaultSegmentInterval(retentionPeriod);
    }

    /** Kafka's segment interval for a retention period: {@code max(retentionPeriod / 2, 60_000)}. */
    private static long defaultSegmentInterval(long retentionPeriod) {
        return Math.max(retentionPeriod / 2, 60_000L);
    }

    /**
     * The segment interval: Kafka's {@code max(retentionPeriod / 2, 60_000)}.
     *
     * @return the segment interval in ms
     */
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    /**
     * How long the supplied stores keep records.
     *
     * @return the retention period in ms
     */
    public long retentionPeriod() {
        return retentionPeriod;
    }

    @Override
    String details() {
        return ", retentionPeriod=" + retentionPeriod + ", segmentInterval=" + segmentInterval;
    }
}
