package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;

/**
 * Supplies {@link TxnSessionStore}s to Kafka Streams, e.g. through {@code Materialized.as(supplier)}
 * or {@code Stores.sessionStoreBuilder(supplier, ...)}. Obtain one from {@link dev.txnrocksdb.streams.TxnStores}.
 *
 * <p>{@link #segmentIntervalMs()} is Kafka's {@code max(retentionPeriod / 2, 60_000)}, which
 * Kafka's session caching layer assumes when it merges its cache with the store's iterators.
 */
public class TxnSessionBytesStoreSupplier extends TxnSegmentedSupplierBase implements SessionBytesStoreSupplier {
    private final boolean emitFinal;

    /**
     * Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
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
     * Built by {@link dev.txnrocksdb.streams.TxnStores}, which validates the arguments as Kafka's {@code Stores} does.
     *
     * @param name the store name
     * @param retentionPeriod the retention period in ms
     * @param transactional whether the stores stage writes until commit
     * @param strategy where the stores keep uncommitted writes; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnSessionBytesStoreSupplier(
            String name, long retentionPeriod, boolean transactional, TransactionStrategy strategy) {
        this(name, retentionPeriod, transactional, strategy, false);
    }

    public TxnSessionBytesStoreSupplier(
            String name, long retentionPeriod, boolean transactional, TransactionStrategy strategy, boolean emitFinal) {
        super(name, retentionPeriod, transactional, strategy);
        this.emitFinal = emitFinal;
    }

    /** A new, unopened store on every call. */
    @Override
    public SessionStore<Bytes, byte[]> get() {
        return new TxnSessionStore(
                name(), retentionPeriod(), segmentIntervalMs(), transactional(), transactionStrategy(), emitFinal);
    }

    /** Whether the supplied stores answer {@code findSessions(long, long)} (emit-final aggregations). */
    boolean emitFinal() {
        return emitFinal;
    }

    /** {@value StoreMetrics#SESSION_SCOPE}. */
    @Override
    public String metricsScope() {
        return StoreMetrics.SESSION_SCOPE;
    }

    @Override
    String details() {
        return super.details() + ", emitFinal=" + emitFinal;
    }
}
