package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/** What the plain and timestamped key-value suppliers share: name, mode, strategy, metrics scope. */
abstract class TxnKeyValueSupplierBase implements KeyValueBytesStoreSupplier {
    private final String name;
    private final boolean transactional;
    private final TransactionStrategy strategy;

    TxnKeyValueSupplierBase(String name, boolean transactional, TransactionStrategy strategy) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.transactional = transactional;
        this.strategy = strategy;
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

    /**
     * The transaction strategy the supplied stores use instead of the application's
     * {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @return the supplier's own strategy, or null when the stores take the configured one
     */
    public TransactionStrategy transactionStrategy() {
        return strategy;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name=" + name + ", transactional=" + transactional
            + ", strategy=" + (strategy == null ? "from config" : strategy.configName()) + "}";
    }
}
