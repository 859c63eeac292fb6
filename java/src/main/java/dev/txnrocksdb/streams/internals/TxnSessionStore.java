package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.NativeSessionStore;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;

/**
 * A persistent session bytes store on the txn-rocksdb native engine, with the behaviour of Kafka's
 * {@code RocksDBSessionStore}.
 *
 * <p><b>Storage.</b> One RocksDB instance per store (in {@code <task state dir>/<store name>}),
 * holding Kafka's session store keys {@code [key][8-byte end][8-byte start]}, grouped by session
 * end into time segments of {@code segmentInterval} inside that one instance, so a commit is
 * atomic across every segment and iteration order is Kafka's (segment by segment, then store key
 * bytes; for one key that is {@code (end, start)}).
 *
 * <p><b>Transactions.</b> As {@link TxnKeyValueStore}: writes are staged until Kafka commits the
 * store; {@code readOnly(READ_COMMITTED)} and IQv2 {@code READ_COMMITTED} queries see committed
 * sessions only.
 *
 * <p><b>Kafka semantics kept.</b> Stream time is the newest session end put, removed or restored
 * since the store opened (not persisted). A put into a segment older than
 * {@code segmentId(streamTime - retention)} is dropped (WARN "Skipping record for expired segment."
 * and the task's {@code dropped-records} sensor); reads return only sessions with
 * {@code end > streamTime - retention}. A null aggregate deletes; {@link #remove} deletes without
 * an expiry check. {@code findSessions(key, earliestSessionEndTime, latestSessionStartTime)} returns
 * the sessions with {@code end >= earliestSessionEndTime} and {@code start <= latestSessionStartTime};
 * an inverted key range is empty (with Kafka's WARN) and null key bounds are unbounded.
 *
 * <p>{@link #findSessions(long, long)}, the call emit-final session aggregations make, throws
 * {@link UnsupportedOperationException} as Kafka's {@code RocksDBSessionStore} does, except in the
 * stores {@link dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers} supplies for emit-final aggregations, which answer it
 * as Kafka's time-ordered session store does.
 */
public class TxnSessionStore extends AbstractTxnStore<NativeSessionStore>
        implements SessionStore<Bytes, byte[]>, WithRetentionPeriod {

    private final long retentionPeriod;
    private final long segmentInterval;
    private final boolean emitFinal;
    private final SessionReadView reads;
    private final SessionReadView committedReads;

    private volatile ExpiredRecords expiredRecords;

    /**
     * Creates a store; it opens in {@link #init}. Package-private: applications get stores from the
     * suppliers of {@link dev.txnrocksdb.streams.TxnStores} (or {@link dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers}); tests build them directly.
     *
     * @param name the store name (also its directory name)
     * @param retentionPeriod how long sessions are kept after they end, in ms
     * @param segmentInterval the time segment size in ms; Kafka's default, which its caching layer
     *     assumes, is {@code max(retentionPeriod / 2, 60_000)}
     * @param transactional true: stage writes until commit; false: write-through
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or
     *     {@code segmentInterval} is not positive
     */
    public TxnSessionStore(String name, long retentionPeriod, long segmentInterval, boolean transactional) {
        this(name, retentionPeriod, segmentInterval, transactional, null, false);
    }

    /**
     * Creates a store with its own transaction strategy; it opens in {@link #init}. Package-private:
     * applications get stores from the suppliers of {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param retentionPeriod how long sessions are kept after they end, in ms
     * @param segmentInterval the time segment size in ms; Kafka's default, which its caching layer
     *     assumes, is {@code max(retentionPeriod / 2, 60_000)}
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or
     *     {@code segmentInterval} is not positive
     */
    public TxnSessionStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            boolean transactional,
            TransactionStrategy strategy) {
        this(name, retentionPeriod, segmentInterval, transactional, strategy, false);
    }

    /** @param emitFinal whether to answer {@link #findSessions(long, long)} (emit-final aggregations) */
    public TxnSessionStore(
            String name, long retentionPeriod, long segmentInterval, boolean transactional, boolean emitFinal) {
        this(name, retentionPeriod, segmentInterval, transactional, null, emitFinal);
    }

    public TxnSessionStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            boolean transactional,
            TransactionStrategy strategy,
            boolean emitFinal) {
        super(name, transactional, strategy);
        if (retentionPeriod < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        if (segmentInterval <= 0) {
            throw new IllegalArgumentException("segmentInterval must be positive");
        }
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.emitFinal = emitFinal;
        this.reads = new SessionReadView(core::store, false);
        this.committedReads = new SessionReadView(core::store, true);
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Opens the store in {@code context.stateDir()/<name>} and registers it for restoration.
     * Reads {@link dev.txnrocksdb.streams.TxnRocksDBConfig} entries and the exactly-once settings from
     * {@code context.appConfigs()}.
     *
     * @throws ProcessorStateException if the store is already open, its directory cannot be
     *     created, the engine fails to open it, or the exactly-once settings conflict with this
     *     store (see {@link dev.txnrocksdb.streams.TransactionalStateStore})
     */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        core.init(
                context,
                root,
                StoreMetrics.SESSION_SCOPE,
                valueFormat(),
                this::ttl,
                (dir, options) -> NativeSessionStore.open(core.name(), dir, options, retentionPeriod, segmentInterval));
        this.expiredRecords = ExpiredRecords.forContext(context);
    }

    /** The retention period in ms: Kafka restores windowed changelogs from {@code maxTimestamp - retention}. */
    @Override
    public long retentionPeriod() {
        return retentionPeriod;
    }

    /** The segment interval in ms. */
    public long segmentInterval() {
        return segmentInterval;
    }

    // ---------------------------------------------------------------- writes

    /**
     * Puts a session's aggregate; a null aggregate deletes the session. A session of an expired
     * segment is dropped.
     *
     * @throws NullPointerException if {@code sessionKey} or its key is null
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public void put(Windowed<Bytes> sessionKey, byte[] aggregate) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        byte[] key =
                Objects.requireNonNull(sessionKey.key(), "key cannot be null").get();
        long start = sessionKey.window().start();
        long end = sessionKey.window().end();
        if (core.store().put(key, start, end, aggregate)) {
            core.recordWrite();
        } else {
            expiredRecords.record();
        }
    }

    /**
     * Deletes a session (advancing stream time to its end, with no expiry check, as Kafka does).
     *
     * @throws NullPointerException if {@code sessionKey} or its key is null
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public void remove(Windowed<Bytes> sessionKey) {
        Objects.requireNonNull(sessionKey, "sessionKey cannot be null");
        byte[] key =
                Objects.requireNonNull(sessionKey.key(), "key cannot be null").get();
        long start = sessionKey.window().start();
        long end = sessionKey.window().end();
        core.store().remove(key, start, end);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes key, long earliestSessionEndTime, long latestSessionStartTime) {
        return reads.findSessions(key, earliestSessionEndTime, latestSessionStartTime);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes key, long earliestSessionEndTime, long latestSessionStartTime) {
        return reads.backwardFindSessions(key, earliestSessionEndTime, latestSessionStartTime);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime, long latestSessionStartTime) {
        return reads.findSessions(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime, long latestSessionStartTime) {
        return reads.backwardFindSessions(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime);
    }

    /**
     * The sessions of every key whose end lies in {@code [earliestSessionEndTime, latestSessionEndTime]},
     * ordered by {@code (end, start, key bytes)}: Kafka's time-ordered session store's answer, which
     * emit-final session aggregations use (see {@link SessionReadView#findSessions(long, long)}).
     *
     * @throws UnsupportedOperationException unless this store was supplied for an emit-final
     *     aggregation, with Kafka's message
     */
    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            long earliestSessionEndTime, long latestSessionEndTime) {
        if (!emitFinal) {
            throw new UnsupportedOperationException(
                    "This API is not supported by this implementation of SessionStore.");
        }
        return reads.findSessions(earliestSessionEndTime, latestSessionEndTime);
    }

    /** Whether {@link #findSessions(long, long)} is answered (tests). */
    public boolean emitFinal() {
        return emitFinal;
    }

    @Override
    public byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        return reads.fetchSession(key, sessionStartTime, sessionEndTime);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        return reads.fetch(key);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        return reads.backwardFetch(key);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return reads.fetch(keyFrom, keyTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return reads.backwardFetch(keyFrom, keyTo);
    }

    /**
     * {@code READ_COMMITTED}: a view of committed sessions only. {@code READ_UNCOMMITTED}: this store.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public ReadOnlySessionStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        core.store();
        return isolationLevel == IsolationLevel.READ_COMMITTED ? committedReads : this;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name=" + name() + ", retentionPeriod=" + retentionPeriod
                + ", segmentInterval=" + segmentInterval + ", transactional=" + transactional() + ", emitFinal="
                + emitFinal + "}";
    }
}
