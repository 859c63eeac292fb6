package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/** What the plain and timestamped key-value suppliers share: {@link TxnSupplierBase} and the metrics scope. */
public abstract class TxnKeyValueSupplierBase extends TxnSupplierBase implements KeyValueBytesStoreSupplier {
    public TxnKeyValueSupplierBase(String name, boolean transactional, TransactionStrategy strategy) {
        super(name, transactional, strategy);
    }

    /** {@value StoreMetrics#KEY_VALUE_SCOPE}. */
    @Override
    public String metricsScope() {
        return StoreMetrics.KEY_VALUE_SCOPE;
    }
}
