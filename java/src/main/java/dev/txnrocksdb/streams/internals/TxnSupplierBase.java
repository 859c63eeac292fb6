package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;

/**
 * What every txn-rocksdb store supplier has: the store name, its mode and its transaction strategy.
 * Creating one checks the Kafka Streams version ({@link KafkaStreamsCompatibility}) and loads the
 * native library, so an unsupported Kafka Streams or a missing or stale library fails where the
 * topology is built, with a message naming what is wrong, not later in a stream thread.
 */
public abstract class TxnSupplierBase {
    private final String name;
    private final boolean transactional;
    private final TransactionStrategy strategy;

    public TxnSupplierBase(String name, boolean transactional, TransactionStrategy strategy) {
        this.name = StoreNames.validate(name);
        this.transactional = transactional;
        this.strategy = strategy;
        KafkaStreamsCompatibility.check();
        NativeLibrary.load();
    }

    /**
     * The store name.
     *
     * @return the name of the supplied stores
     */
    public String name() {
        return name;
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
     * {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}.
     *
     * @return the supplier's own strategy, or null when the stores take the configured one
     */
    public TransactionStrategy transactionStrategy() {
        return strategy;
    }

    /** The subclass's own fields for {@link #toString()}, as {@code ", field=value..."}; empty by default. */
    String details() {
        return "";
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name=" + name + details() + ", transactional=" + transactional
                + ", strategy=" + (strategy == null ? "from config" : strategy.configName()) + "}";
    }
}
