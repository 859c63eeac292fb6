package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.NativeWindowStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeWindowStore.RetentionEdge;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.CachingWindowStore;
import org.apache.kafka.streams.state.internals.WithRetentionPeriod;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A persistent window bytes store on the txn-rocksdb native engine, with the behaviour of Kafka's
 * {@code RocksDBWindowStore}.
 *
 * <p><b>Storage.</b> One RocksDB instance per store (in {@code <task state dir>/<store name>}),
 * holding Kafka's window store keys {@code [key][8-byte window start][4-byte seqnum]} grouped into
 * time segments of {@code segmentInterval} inside that one instance. So a commit is atomic across
 * every segment (Kafka's store commits each segment's RocksDB separately), and iteration order is
 * Kafka's: segment by segment, then store key bytes, which Kafka's caching layer relies on.
 *
 * <p><b>Transactions.</b> As {@link TxnKeyValueStore}: writes are staged until Kafka commits the
 * store, then become durable with the changelog offsets and the position;
 * {@code readOnly(READ_COMMITTED)} and IQv2 {@code READ_COMMITTED} queries see committed windows only.
 *
 * <p><b>Kafka semantics kept.</b> Stream time is the newest window start put or restored since the
 * store opened (it is not persisted, as in Kafka). A put into a segment older than
 * {@code segmentId(streamTime - retention)} is dropped (WARN "Skipping record for expired segment."
 * and the task's {@code dropped-records} sensor); reads return only windows with
 * {@code start > streamTime - retention}. With {@code retainDuplicates} every put gets the next
 * seqnum {@code (seq + 1) & 0x7FFFFFFF} (counted per store instance from 0, not restored), a null
 * put is ignored, and {@link #fetch(Bytes, long)} reads the window with the current seqnum;
 * without it the seqnum is always 0 and a null put deletes. Returned windows are
 * {@code [start, start + windowSize]}, the end truncated to {@link Long#MAX_VALUE} on overflow. A
 * key range whose lower bound is greater than its upper bound is empty (with Kafka's WARN).
 * Iterators read each segment when they reach it and report no more entries once the store has
 * closed. Restore decodes Kafka's window changelog keys, one native call per batch.
 */
public class TxnWindowStore extends AbstractTxnStore<NativeWindowStore>
        implements WindowStore<Bytes, byte[]>, WithRetentionPeriod {
    /**
     * How the store iterates multi-key scans, matching one of Kafka's RocksDB window stores.
     */
    public enum Layout {
        /** {@code RocksDBWindowStore}: key-first order in every scan. */
        KEY_FIRST,
        /**
         * {@code RocksDBTimeOrderedWindowStore} without index (emit-final tumbling and hopping
         * windows): every multi-key scan in {@code (start, key, seqnum)} order, and the retention
         * edge included in reads ({@code start >= streamTime - retention}).
         */
        TIME_ORDERED,
        /**
         * {@code RocksDBTimeOrderedWindowStore} with index (emit-final sliding windows): as
         * {@link #TIME_ORDERED}, but key-range fetches in key-first order (they read the index).
         */
        TIME_ORDERED_INDEXED
    }

    private final long retentionPeriod;
    private final long segmentInterval;
    private final long windowSize;
    private final boolean retainDuplicates;
    private final Layout layout;
    private final WindowReadView reads;
    private final WindowReadView committedReads;

    private volatile int seqnum;
    private volatile boolean cachedAbove;
    private volatile ExpiredRecords expiredRecords;

    /**
     * Creates a store; it opens in {@link #init}. Package-private: applications get stores from the
     * suppliers of {@link dev.txnrocksdb.streams.TxnStores} (or {@link dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers}); tests build them directly.
     *
     * @param name the store name (also its directory name)
     * @param retentionPeriod how long windows are kept, in ms (at least {@code windowSize})
     * @param segmentInterval the time segment size in ms; Kafka's default, which its caching layer
     *     assumes, is {@code max(retentionPeriod / 2, 60_000)}
     * @param windowSize the window size in ms (for window ends)
     * @param retainDuplicates whether every put is kept (stream-stream join buffers)
     * @param transactional true: stage writes until commit; false: write-through
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or
     *     {@code segmentInterval} is not positive
     */
    public TxnWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional) {
        this(
                name,
                retentionPeriod,
                segmentInterval,
                windowSize,
                retainDuplicates,
                transactional,
                null,
                Layout.KEY_FIRST);
    }

    /**
     * Creates a store with its own transaction strategy; it opens in {@link #init}. Package-private:
     * applications get stores from the suppliers of {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param retentionPeriod how long windows are kept, in ms (at least {@code windowSize})
     * @param segmentInterval the time segment size in ms; Kafka's default, which its caching layer
     *     assumes, is {@code max(retentionPeriod / 2, 60_000)}
     * @param windowSize the window size in ms (for window ends)
     * @param retainDuplicates whether every put is kept (stream-stream join buffers)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code retentionPeriod} is negative or
     *     {@code segmentInterval} is not positive
     */
    public TxnWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy) {
        this(
                name,
                retentionPeriod,
                segmentInterval,
                windowSize,
                retainDuplicates,
                transactional,
                strategy,
                Layout.KEY_FIRST);
    }

    public TxnWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            Layout layout) {
        this(name, retentionPeriod, segmentInterval, windowSize, retainDuplicates, transactional, null, layout);
    }

    public TxnWindowStore(
            String name,
            long retentionPeriod,
            long segmentInterval,
            long windowSize,
            boolean retainDuplicates,
            boolean transactional,
            TransactionStrategy strategy,
            Layout layout) {
        super(name, transactional, strategy);
        if (retentionPeriod < 0) {
            throw new IllegalArgumentException("retentionPeriod cannot be negative");
        }
        if (segmentInterval <= 0) {
            throw new IllegalArgumentException("segmentInterval must be positive");
        }
        this.retentionPeriod = retentionPeriod;
        this.segmentInterval = segmentInterval;
        this.windowSize = windowSize;
        this.retainDuplicates = retainDuplicates;
        this.layout = Objects.requireNonNull(layout, "layout cannot be null");
        this.reads = readView(false);
        this.committedReads = readView(true);
    }

    private WindowReadView readView(boolean committedOnly) {
        return new WindowReadView(
                core::store,
                committedOnly,
                windowSize,
                () -> seqnum,
                this::timeFirstScans,
                () -> layout == Layout.TIME_ORDERED && !cachedAbove);
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
        // Kafka's time-ordered store shows windows with start >= streamTime - retention, the
        // key-first store only those with start > streamTime - retention; both drop the same puts.
        RetentionEdge edge = layout == Layout.KEY_FIRST ? RetentionEdge.EXCLUDED : RetentionEdge.INCLUDED;
        core.init(
                context,
                root,
                StoreMetrics.WINDOW_SCOPE,
                valueFormat(),
                this::ttl,
                (dir, options) ->
                        NativeWindowStore.open(core.name(), dir, options, retentionPeriod, segmentInterval, edge));
        this.expiredRecords = ExpiredRecords.forContext(context);
        this.cachedAbove = cachingLayerAbove(root, this);
    }

    /**
     * Whether Kafka's {@code CachingWindowStore} sits between {@code root} and this store. Its
     * merge of cached and stored windows needs the key-first order, so a time-ordered store then
     * iterates key-first (Kafka gives a time-ordered store its own caching layer only when it is
     * Kafka's {@code RocksDBTimeOrderedWindowStore}).
     */
    private static boolean cachingLayerAbove(StateStore root, StateStore self) {
        StateStore layer = root;
        while (layer != null && layer != self) {
            if (layer instanceof CachingWindowStore) {
                return true;
            }
            layer = layer instanceof WrappedStateStore ? ((WrappedStateStore<?, ?, ?>) layer).wrapped() : null;
        }
        return false;
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

    /** The window size in ms. */
    public long windowSize() {
        return windowSize;
    }

    /** Whether every put is kept under its own seqnum. */
    public boolean retainDuplicates() {
        return retainDuplicates;
    }

    /** The iteration layout (tests). */
    public Layout layout() {
        return layout;
    }

    /** Whether {@code fetchAll} and {@code all} iterate time-first, as decided at init (tests). */
    public boolean timeFirstScans() {
        return layout != Layout.KEY_FIRST && !cachedAbove;
    }

    // ---------------------------------------------------------------- writes

    /**
     * Puts the window of {@code key} starting at {@code windowStartTimestamp}; a null value deletes
     * it (ignored with {@code retainDuplicates}). A window of an expired segment is dropped.
     *
     * @throws NullPointerException if {@code key} is null
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public void put(Bytes key, byte[] value, long windowStartTimestamp) {
        Objects.requireNonNull(key, "key cannot be null");
        if (value == null && retainDuplicates) {
            return;
        }
        if (retainDuplicates) {
            seqnum = (seqnum + 1) & 0x7FFFFFFF;
        }
        if (core.store().put(key.get(), windowStartTimestamp, seqnum, value)) {
            core.recordWrite();
        } else {
            expiredRecords.record();
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public byte[] fetch(Bytes key, long timestamp) {
        return reads.fetch(key, timestamp);
    }

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        return reads.fetch(key, timeFrom, timeTo);
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        return reads.backwardFetch(key, timeFrom, timeTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return reads.fetch(keyFrom, keyTo, timeFrom, timeTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(
            Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return reads.backwardFetch(keyFrom, keyTo, timeFrom, timeTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return reads.fetchAll(timeFrom, timeTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return reads.backwardFetchAll(timeFrom, timeTo);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return reads.all();
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return reads.backwardAll();
    }

    /**
     * {@code READ_COMMITTED}: a view of committed windows only. {@code READ_UNCOMMITTED}: this store.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public ReadOnlyWindowStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        core.store();
        return isolationLevel == IsolationLevel.READ_COMMITTED ? committedReads : this;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{name=" + name() + ", retentionPeriod=" + retentionPeriod
                + ", segmentInterval=" + segmentInterval + ", windowSize=" + windowSize + ", retainDuplicates="
                + retainDuplicates + ", transactional=" + transactional() + ", layout=" + layout + "}";
    }
}
