package dev.txnrocksdb.streams;

import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/** What the plain and timestamped key-value suppliers share: {@link TxnSupplierBase} and the metrics scope. */
abstract class TxnKeyValueSupplierBase extends TxnSupplierBase implements KeyValueBytesStoreSupplier {
    TxnKeyValueSupplierBase(String name, boolean transactional, TransactionStrategy strategy) {
        super(name, transactional, strategy);
    }

    /** {@value TxnKeyValueBytesStoreSupplier#METRICS_SCOPE}. */
    @Override
    public String metricsScope() {
        return TxnKeyValueBytesStoreSupplier.METRICS_SCOPE;
    }
}
