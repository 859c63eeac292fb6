package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnKeyValueStoreSupplier;
import java.time.Duration;

/** What the plain and timestamped key-value suppliers share: {@link TxnSupplierBase} and the metrics scope. */
public abstract class TxnKeyValueSupplierBase extends TxnSupplierBase implements TxnKeyValueStoreSupplier {
    private final Duration ttl;

    public TxnKeyValueSupplierBase(String name, boolean transactional, TransactionStrategy strategy) {
        this(name, transactional, strategy, null);
    }

    /**
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     */
    public TxnKeyValueSupplierBase(String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy);
        this.ttl = TxnKeyValueStore.checkTtl(name, ttl);
    }

    @Override
    public Duration ttl() {
        return ttl;
    }

    @Override
    String details() {
        return ttl == null ? "" : ", ttl=" + ttl;
    }

    /** {@value StoreMetrics#KEY_VALUE_SCOPE}. */
    @Override
    public String metricsScope() {
        return StoreMetrics.KEY_VALUE_SCOPE;
    }
}
