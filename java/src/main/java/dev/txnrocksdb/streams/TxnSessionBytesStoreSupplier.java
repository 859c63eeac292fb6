package dev.txnrocksdb.streams;

import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

/**
 * Supplies {@link TxnSessionStore}s to Kafka Streams, e.g. through {@code Materialized.as(supplier)}
 * or {@code Stores.sessionStoreBuilder(supplier, ...)}. Obtain one from {@link TxnStores}.
 *
 * <p>{@link #segmentIntervalMs()} is Kafka's {@code max(retentionPeriod / 2, 60_000)}, which
 * Kafka's session caching layer assumes when it merges its cache with the store's iterators.
 */
public class TxnSessionBytesStoreSupplier implements SessionBytesStoreSupplier {
    /** The metrics scope of txn-rocksdb session stores. */
    public static final String METRICS_SCOPE = "txn-rocksdb-session";

    private final String name;
    private final long retentionPeriod;
    private final long segmentInterval;
    private final boolean transactional;
    private final TransactionStrategy strategy;
    private final boolean emitFinal;

    /**
     * Prefer {@link TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param transactional whether the stores stage writes until commit
     * @throws NullPointerException if {@code name} is null
     */
    public TxnSessionBytesStoreSupplier(String name, long retentionPeriod, boolean transactional) {
        this(name, retentionPeriod, transactional, null, false);
    }

    /**
     * Prefer {@link TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param transactional whether the stores stage writes until commit
     * @param strategy where the stores keep uncommitted writes; null: the application's
     *     {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnSessionBytesStoreSupplier(String name, long retentionPeriod, boolean transactional,
                                        TransactionStrategy strategy) {
        this(name, retentionPeriod, transactional, strategy, false);
    }

    TxnSessionBytesStoreSupplier(String name, long retentionPeriod, boolean transactional, TransactionStrategy strategy,
                                 boolean emitFinal) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = TxnWindowBytesStoreSupplier.defaultSegmentInterval(retentionPeriod);
        this.transactional = transactional;
        this.strategy = strategy;
        this.emitFinal = emitFinal;
    }

    @Override
    public String name() {
        return name;
    }

    /** A new, unopened store on every call. */
    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new TxnSessionStore(name, retentionPeriod, segmentInterval, transactional, strategy, emitFinal);
    }

    /** {@value #METRICS_SCOPE}. */
    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    @Override
    public long segmentIntervalMs() {
        return segmentInterval;
    }

    @Override
    public long retentionPeriod() {
        return retentionPeriod;
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
        return getClass().getSimpleName() + "{name=" + name + ", retentionPeriod=" + retentionPeriod
            + ", segmentInterval=" + segmentInterval + ", transactional=" + transactional
            + ", strategy=" + (strategy == null ? "from config" : strategy.configName()) + ", emitFinal=" + emitFinal + "}";
    }
}
