package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.NativeVersionedStore;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.ResultOrder;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * A persistent, transactional versioned key-value store (KIP-889) on the txn-rocksdb engine: the
 * counterpart of Kafka's {@code RocksDBVersionedStore}, with its semantics (the differential test
 * compares them): each key keeps its history of versions, a {@link #put(Bytes, byte[], long)}
 * with an older timestamp than the latest inserts into the history, a read as of a time returns
 * the version valid then, and superseded versions stay readable for the history retention, which
 * is also the grace period (a put older than {@code observedStreamTime - historyRetention} is not
 * put and returns {@link #PUT_RETURN_CODE_NOT_PUT}).
 *
 * <p>Unlike Kafka's store, a put that moves a version between its latest value and its segments
 * is staged in the store's transaction: a commit makes every row it touched durable together with
 * the changelog offset, and after a crash the store holds exactly its last commit.
 * {@code readOnly(IsolationLevel.READ_COMMITTED)} (and IQv2 with {@code READ_COMMITTED}) reads
 * committed versions only.
 *
 * <p>Kafka Streams sees it through Kafka's own {@code VersionedKeyValueToBytesStoreAdapter}, as
 * it sees its own versioned store; applications get one from
 * {@link dev.txnrocksdb.streams.TxnStores#persistentVersionedKeyValueStore}.
 */
public class TxnVersionedKeyValueStore extends AbstractTxnStore<NativeVersionedStore>
        implements VersionedKeyValueStore<Bytes, byte[]> {
    private final long historyRetentionMs;
    private final long segmentIntervalMs;
    private final VersionedKeyValueStore<Bytes, byte[]> committedReads = new CommittedView();
    private volatile ExpiredRecords expiredRecords;

    /**
     * Creates a store; it opens in {@link #init}. Applications get stores from {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @param historyRetentionMs how long superseded versions stay readable (also the grace period)
     * @param segmentIntervalMs the width of a segment of history
     * @throws NullPointerException if {@code name} is null
     */
    public TxnVersionedKeyValueStore(
            String name, TransactionStrategy strategy, long historyRetentionMs, long segmentIntervalMs) {
        super(name, true, strategy);
        this.historyRetentionMs = historyRetentionMs;
        this.segmentIntervalMs = segmentIntervalMs;
    }

    /** Versions are the engine's own rows; nothing above this store writes values into it. */
    @Override
    ValueFormat valueFormat() {
        return ValueFormat.PLAIN;
    }

    /** The history retention, in ms. */
    public long historyRetentionMs() {
        return historyRetentionMs;
    }

    /**
     * Opens the store in {@code context.stateDir()/<name>} and registers it for restoration
     * (each changelog record is put at its timestamp, as Kafka's store restores).
     */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        expiredRecords = ExpiredRecords.forContext(context);
        core.init(
                context,
                root,
                StoreMetrics.KEY_VALUE_SCOPE,
                valueFormat(),
                this::ttl,
                (dir, options) ->
                        NativeVersionedStore.open(core.name(), dir, options, historyRetentionMs, segmentIntervalMs));
    }

    /**
     * Puts a version of {@code key} valid from {@code timestamp}; a null value is a tombstone.
     *
     * @return the new version's validTo, {@link #PUT_RETURN_CODE_VALID_TO_UNDEFINED} when it is
     *     the latest, or {@link #PUT_RETURN_CODE_NOT_PUT} when it is older than the grace period
     * @throws NullPointerException if {@code key} is null
     * @throws IllegalArgumentException if the version would fall in a negative segment (a
     *     timestamp of minus one segment interval or less)
     */
    @Override
    public long put(Bytes key, byte[] value, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        long validTo = core.store().put(key.get(), value, timestamp);
        if (validTo == PUT_RETURN_CODE_NOT_PUT) {
            expiredRecords.record();
        } else {
            core.recordWrite();
        }
        return validTo;
    }

    /**
     * Puts a tombstone for {@code key} at {@code timestamp}.
     *
     * @return the version valid at {@code timestamp} before the delete, or null (also when
     *     {@code timestamp} is older than the grace period: nothing is written, and the record is
     *     counted in {@code dropped-records}, as Kafka's store does)
     * @throws NullPointerException if {@code key} is null
     */
    @Override
    public VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        NativeVersionedStore.Deleted deleted = core.store().delete(key.get(), timestamp);
        if (deleted.written()) {
            core.recordWrite();
        } else {
            expiredRecords.record();
        }
        return deleted.ended();
    }

    /** The latest version of {@code key}, or null (none, or deleted). */
    @Override
    public VersionedRecord<byte[]> get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return core.store().get(key.get(), false);
    }

    /**
     * The version of {@code key} valid at {@code asOfTimestamp}, or null. As of a time older
     * than {@code observedStreamTime - historyRetention} only the latest version is returned.
     */
    @Override
    public VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        return core.store().getAsOf(key.get(), asOfTimestamp, false);
    }

    /**
     * {@code READ_COMMITTED}: a read-only view of the committed versions. {@code READ_UNCOMMITTED}:
     * this store.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public VersionedKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        core.store();
        return isolationLevel == IsolationLevel.READ_COMMITTED ? committedReads : this;
    }

    /**
     * IQv2: {@code VersionedKeyQuery} (through Kafka's {@code StoreQueryUtils}) and
     * {@code MultiVersionedKeyQuery} (every version valid in the query's time range, in its order),
     * on the view of the query's isolation level, with Kafka's position-bound checks.
     */
    @Override
    @SuppressWarnings("unchecked")
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        if (!(query instanceof MultiVersionedKeyQuery)) {
            return super.query(query, positionBound, config);
        }
        Position position = core.position(config.getIsolationLevel());
        StateStoreContext context = core.context();
        int partition = context == null || context.taskId() == null
                ? -1
                : context.taskId().partition();
        QueryResult<R> result;
        if (!StoreQueryUtils.isPermitted(position, positionBound, partition)) {
            result = QueryResult.notUpToBound(position, positionBound, partition);
        } else {
            MultiVersionedKeyQuery<Bytes, byte[]> versions = (MultiVersionedKeyQuery<Bytes, byte[]>) query;
            long from = versions.fromTime().map(java.time.Instant::toEpochMilli).orElse(Long.MIN_VALUE);
            long to = versions.toTime().map(java.time.Instant::toEpochMilli).orElse(Long.MAX_VALUE);
            boolean committedOnly = config.getIsolationLevel() == IsolationLevel.READ_COMMITTED;
            List<VersionedRecord<byte[]>> found = core.store()
                    .versions(
                            versions.key().get(),
                            from,
                            to,
                            versions.resultOrder() != ResultOrder.DESCENDING,
                            committedOnly);
            result = (QueryResult<R>) QueryResult.forResult(new ListVersionedRecordIterator(found));
        }
        if (config.isCollectExecutionInfo()) {
            result.addExecutionInfo("Handled in " + getClass() + " in " + System.nanoTime() + "ns");
        }
        result.setPosition(position.copy());
        return result;
    }

    /** The versions of a multi-versioned query, read before it returns. */
    private static final class ListVersionedRecordIterator implements VersionedRecordIterator<byte[]> {
        private final Iterator<VersionedRecord<byte[]>> records;

        ListVersionedRecordIterator(List<VersionedRecord<byte[]>> records) {
            this.records = records.iterator();
        }

        @Override
        public boolean hasNext() {
            return records.hasNext();
        }

        @Override
        public VersionedRecord<byte[]> next() {
            return records.next();
        }

        @Override
        public void close() {}
    }

    /** The read-only view of committed versions ({@code readOnly(READ_COMMITTED)}). */
    private final class CommittedView implements VersionedKeyValueStore<Bytes, byte[]> {
        @Override
        public VersionedRecord<byte[]> get(Bytes key) {
            Objects.requireNonNull(key, "key cannot be null");
            return core.store().get(key.get(), true);
        }

        @Override
        public VersionedRecord<byte[]> get(Bytes key, long asOfTimestamp) {
            Objects.requireNonNull(key, "key cannot be null");
            return core.store().getAsOf(key.get(), asOfTimestamp, true);
        }

        @Override
        public long put(Bytes key, byte[] value, long timestamp) {
            throw new UnsupportedOperationException("The READ_COMMITTED view of store " + name() + " is read-only");
        }

        @Override
        public VersionedRecord<byte[]> delete(Bytes key, long timestamp) {
            throw new UnsupportedOperationException("The READ_COMMITTED view of store " + name() + " is read-only");
        }

        @Override
        public String name() {
            return TxnVersionedKeyValueStore.this.name();
        }

        @Override
        public void init(StateStoreContext context, StateStore root) {
            throw new UnsupportedOperationException("A read-only view is never initialized");
        }

        @Override
        @Deprecated
        public void flush() {}

        @Override
        public void close() {}

        @Override
        public boolean persistent() {
            return true;
        }

        @Override
        public boolean isOpen() {
            return TxnVersionedKeyValueStore.this.isOpen();
        }

        @Override
        public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
            return TxnVersionedKeyValueStore.this.query(
                    query,
                    positionBound,
                    config.getIsolationLevel() == IsolationLevel.READ_COMMITTED
                            ? config
                            : new QueryConfig(config.isCollectExecutionInfo(), IsolationLevel.READ_COMMITTED));
        }

        @Override
        public Position getPosition() {
            return core.position(IsolationLevel.READ_COMMITTED);
        }
    }
}
