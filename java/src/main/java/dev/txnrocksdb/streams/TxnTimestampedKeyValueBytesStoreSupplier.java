package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnTimestampedKeyValueStore}s (values as {@code [8-byte timestamp][value]}) to
 * Kafka Streams, e.g. through {@code Materialized.as(supplier)} (the DSL's own format, so no
 * adapter sits between Kafka and the store) or {@code Stores.timestampedKeyValueStoreBuilder}.
 * Obtain one from {@link TxnStores}.
 */
public final class TxnTimestampedKeyValueBytesStoreSupplier implements KeyValueBytesStoreSupplier {
    private final String name;
    private final boolean transactional;

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnTimestampedKeyValueBytesStoreSupplier(String name, boolean transactional) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.transactional = transactional;
    }

    @Override
    public String name() {
        return name;
    }

    /** A new, unopened store on every call. */
    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return new TxnTimestampedKeyValueStore(name, transactional);
    }

    /** {@value TxnKeyValueBytesStoreSupplier#METRICS_SCOPE}. */
    @Override
    public String metricsScope() {
        return TxnKeyValueBytesStoreSupplier.METRICS_SCOPE;
    }

    /**
     * Whether the supplied stores stage writes until commit (KIP-844).
     *
     * @return {@code true} for transactional stores, {@code false} for write-through ones
     */
    public boolean transactional() {
        return transactional;
    }

    @Override
    public String toString() {
        return "TxnTimestampedKeyValueBytesStoreSupplier{name=" + name + ", transactional=" + transactional + "}";
    }
}
