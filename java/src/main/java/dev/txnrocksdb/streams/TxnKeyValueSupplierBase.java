package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/** What the plain and timestamped key-value suppliers share: name, mode, metrics scope. */
abstract class TxnKeyValueSupplierBase implements KeyValueBytesStoreSupplier {
    private final String name;
    private final boolean transactional;

    TxnKeyValueSupplierBase(String name, boolean transactional) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.transactional = transactional;
    }

    @Override
    public String name() {
        return name;
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
        return getClass().getSimpleName() + "{name=" + name + ", transactional=" + transactional + "}";
    }
}
