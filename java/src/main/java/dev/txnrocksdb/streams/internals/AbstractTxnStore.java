package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TransactionalStateStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStore;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * The lifecycle, commit, offset and position behaviour every txn-rocksdb store shares (one
 * {@link StoreCore} each); the subclasses add their reads and writes.
 *
 * @param <S> the kind of native store the subclass reads and writes
 */
public abstract class AbstractTxnStore<S extends NativeStore> implements TransactionalStateStore {
    /** The shared machinery; subclasses open it in {@code init}. */
    final StoreCore<S> core;

    protected AbstractTxnStore(String name, boolean transactional, TransactionStrategy strategy) {
        KafkaStreamsCompatibility.check();
        this.core = new StoreCore<>(name, transactional, strategy);
    }

    @Override
    public String name() {
        return core.name();
    }

    /** The shared machinery (for diagnostics and tests: its native store's statistics). */
    public StoreCore<S> core() {
        return core;
    }

    /**
     * The format of the values Kafka Streams' layers above this store write into it: plain here;
     * the timestamped and headers stores say theirs. The store records it, and one written in an
     * older format upgrades its entries when it opens in a newer one.
     */
    ValueFormat valueFormat() {
        return ValueFormat.PLAIN;
    }

    /**
     * The store's time-to-live from the settings: none for the kinds whose records expire by their
     * retention period (window, session, versioned), which refuse one set for them by name; the
     * key-value stores say theirs.
     *
     * @throws org.apache.kafka.common.config.ConfigException if {@code txn.rocksdb.ttl.ms.<name>}
     *     names this store
     */
    Duration ttl(StoreSettings settings) {
        settings.refuseTtl(name());
        return null;
    }

    /** Always {@code true}: the data lives on disk and survives restarts. */
    @Override
    public boolean persistent() {
        return true;
    }

    /** {@code true}: offsets are committed atomically with the data, so Kafka keeps no checkpoint file. */
    @Override
    @SuppressWarnings("deprecation")
    public boolean managesOffsets() {
        return true;
    }

    @Override
    public boolean transactional() {
        return core.transactional();
    }

    /**
     * Where this store keeps uncommitted writes. Once the store has been initialized: the strategy
     * it was opened with (its own, or else {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}).
     * Before that: its own strategy, or null when it takes the configured one. A write-through
     * store has no uncommitted writes, so for it the value has no effect.
     *
     * @return the transaction strategy, or null before init for a store without its own
     */
    public TransactionStrategy transactionStrategy() {
        return core.transactionStrategy();
    }

    @Override
    public boolean isOpen() {
        return core.isOpen();
    }

    /**
     * Closes the store, its open iterators first. Uncommitted writes are dropped (they were never
     * committed). Idempotent.
     */
    @Override
    public void close() {
        core.close();
    }

    /** Does nothing: {@link #commit(Map)} makes writes durable. */
    @Override
    @Deprecated
    public void flush() {}

    /**
     * Atomically makes the staged writes, the position and the offset update durable (for a
     * window or session store: across every time segment). An empty map clears every committed
     * offset, a null value removes that partition's offset, and any other value (including
     * {@code -4}, Kafka's "unknown") is stored as given. A store that is not open has nothing to
     * commit, so this returns without effect, as Kafka's RocksDB stores do.
     *
     * @throws ProcessorStateException if the commit fails. Under {@link TransactionStrategy#INDEXED_BATCH}
     *     nothing of it is then durable. Under {@link TransactionStrategy#SECONDARY_STORE} a commit
     *     that fails after its commit record was written is decided: the store refuses further
     *     writes until {@link #recover(long)} rolls it forward, or reopening the store does.
     */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        core.commit(changelogOffsets);
    }

    @Override
    public void commit(Long changelogOffset) {
        core.commit(changelogOffset);
    }

    /**
     * KIP-844's recover: drops the uncommitted writes and returns the committed changelog offset
     * (or {@code changelogOffset} if none is committed). Under {@link TransactionStrategy#SECONDARY_STORE},
     * if the last commit failed after its commit record was written, that commit is rolled forward
     * instead, and the offset returned is the one it committed.
     *
     * @throws ProcessorStateException if dropping the writes or rolling the commit forward fails
     */
    @Override
    public long recover(long changelogOffset) {
        return core.recover(changelogOffset);
    }

    /**
     * The last committed offset of a changelog partition, or null if none was committed.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public Long committedOffset(TopicPartition partition) {
        return core.committedOffset(partition);
    }

    /** Bytes held by staged writes; 0 when the store is write-through or not open. */
    @Override
    public long approximateNumUncommittedBytes() {
        return core.approximateNumUncommittedBytes();
    }

    /** The position of the written records, uncommitted writes included. */
    @Override
    public Position getPosition() {
        return core.position();
    }

    /**
     * IQv2 queries Kafka's {@code StoreQueryUtils} runs on this store type (key and range queries
     * on key-value stores, {@code WindowKeyQuery} / {@code WindowRangeQuery} on window and session
     * stores); the query's isolation level chooses the view ({@code readOnly}) and the position
     * reported.
     */
    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(
                query, positionBound, config, this, core.position(config.getIsolationLevel()), core.context());
    }
}
