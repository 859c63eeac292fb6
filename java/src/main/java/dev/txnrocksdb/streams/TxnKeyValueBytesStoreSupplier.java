package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Supplies {@link TxnKeyValueStore}s (plain values) to Kafka Streams, e.g. through
 * {@code Materialized.as(supplier)} or {@code Stores.keyValueStoreBuilder(supplier, ...)}.
 * Obtain one from {@link TxnStores}.
 */
public final class TxnKeyValueBytesStoreSupplier implements KeyValueBytesStoreSupplier {
    /** The metrics scope of every txn-rocksdb store. */
    public static final String METRICS_SCOPE = "txn-rocksdb";

    private final String name;
    private final boolean transactional;

    /**
     * @param name the store name
     * @param transactional whether the supplied stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueBytesStoreSupplier(String name, boolean transactional) {
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
        return new TxnKeyValueStore(name, transactional);
    }

    /** {@value #METRICS_SCOPE}. */
    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
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
        return "TxnKeyValueBytesStoreSupplier{name=" + name + ", transactional=" + transactional + "}";
    }
}
