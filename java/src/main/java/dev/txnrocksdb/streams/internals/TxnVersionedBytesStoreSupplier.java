package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.internals.VersionedKeyValueToBytesStoreAdapter;

/**
 * Supplies {@link TxnVersionedKeyValueStore}s to Kafka Streams ({@code Stores.versionedKeyValueStoreBuilder},
 * {@code Materialized.as} for versioned tables): the counterpart of Kafka's
 * {@code RocksDbVersionedKeyValueBytesStoreSupplier}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 */
public final class TxnVersionedBytesStoreSupplier extends TxnSupplierBase implements VersionedBytesStoreSupplier {
    private final long historyRetentionMs;
    private final long segmentIntervalMs;

    public TxnVersionedBytesStoreSupplier(
            String name, long historyRetentionMs, long segmentIntervalMs, TransactionStrategy strategy) {
        super(name, true, strategy);
        this.historyRetentionMs = historyRetentionMs;
        this.segmentIntervalMs = segmentIntervalMs;
    }

    /** How long superseded versions stay readable (also the grace period), in ms. */
    @Override
    public long historyRetentionMs() {
        return historyRetentionMs;
    }

    /** The width of a segment of history, in ms. */
    public long segmentIntervalMs() {
        return segmentIntervalMs;
    }

    /**
     * A new, unopened store on every call, behind Kafka's {@code VersionedKeyValueToBytesStoreAdapter}
     * (the {@code VersionedBytesStore} Kafka's builder requires, as for Kafka's own versioned store).
     */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new VersionedKeyValueToBytesStoreAdapter(
                new TxnVersionedKeyValueStore(name(), transactionStrategy(), historyRetentionMs, segmentIntervalMs));
    }

    /** {@value StoreMetrics#KEY_VALUE_SCOPE}. */
    @Override
    public String metricsScope() {
        return StoreMetrics.KEY_VALUE_SCOPE;
    }

    @Override
    String details() {
        return ", historyRetentionMs=" + historyRetentionMs + ", segmentIntervalMs=" + segmentIntervalMs;
    }
}
