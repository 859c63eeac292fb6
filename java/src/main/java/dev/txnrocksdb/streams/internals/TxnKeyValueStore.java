package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.BatchEncoder;
import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A persistent key-value bytes store on the txn-rocksdb native engine (one RocksDB instance per
 * store, in {@code <task state dir>/<store name>}).
 *
 * <p>Transactional (the default of {@link dev.txnrocksdb.streams.TxnStores}): writes are staged and become durable,
 * together with the changelog offsets and the store's {@link org.apache.kafka.streams.query.Position}, only when Kafka Streams
 * commits the store ({@link #commit(java.util.Map)}). A crash or an unclean close drops the staged writes,
 * so under exactly-once the store never holds writes of an aborted transaction and need not be
 * wiped. Reads see the staged writes; {@code readOnly(IsolationLevel.READ_COMMITTED)} (and IQv2
 * with {@code READ_COMMITTED}) sees committed data only.
 *
 * <p>Write-through ({@code transactional=false}): every write goes straight to the engine, as in
 * Kafka's RocksDB store; commits only record offsets and position.
 *
 * <p>In both modes the store manages its own offsets ({@link #managesOffsets()}), so Kafka Streams
 * keeps no checkpoint file for it. Behaviour not stated here follows Kafka's {@code RocksDBStore}:
 * null keys throw {@link NullPointerException}, a null value deletes, a range whose {@code from}
 * is greater than {@code to} is empty, a null range bound is unbounded, and use after close throws
 * {@link InvalidStateStoreException}.
 */
public class TxnKeyValueStore extends AbstractTxnStore<NativeKeyValueStore>
        implements KeyValueStore<Bytes, byte[]>, CachedStateStore<Bytes, byte[]> {
    /** The time of a write to a store without a time-to-live, which ignores it. */
    private static final long NO_TIME = -1;

    private final Duration ownTtl;
    private final KeyValueReadView reads;
    /** The store's expiry while it is open with a time-to-live, else null. */
    private volatile StoreExpiry expiry;

    private final KeyValueReadView committedReads;

    /**
     * Creates a store; it opens in {@link #init}. Package-private: applications get stores from the
     * suppliers of {@link dev.txnrocksdb.streams.TxnStores} (or {@link dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers}); tests build them directly.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueStore(String name, boolean transactional) {
        this(name, transactional, null);
    }

    /**
     * Creates a store with its own transaction strategy; it opens in {@link #init}. Package-private:
     * applications get stores from the suppliers of {@link dev.txnrocksdb.streams.TxnStores}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueStore(String name, boolean transactional, TransactionStrategy strategy) {
        this(name, transactional, strategy, null);
    }

    /**
     * Creates a store with its own transaction strategy and time-to-live; it opens in {@link #init}.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param strategy where uncommitted writes are kept; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}
     * @param ttl how long a key stays after its last write; null: the application's
     *     {@link dev.txnrocksdb.streams.TxnRocksDBConfig#TTL_MS_CONFIG} (none by default)
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code ttl} is below 1 ms
     */
    public TxnKeyValueStore(String name, boolean transactional, TransactionStrategy strategy, Duration ttl) {
        super(name, transactional, strategy);
        this.ownTtl = checkTtl(name, ttl);
        this.reads = new KeyValueReadView(core::store, false);
        this.committedReads = new KeyValueReadView(core::store, true);
    }

    /**
     * A store's own time-to-live, checked: at least 1 ms.
     *
     * @throws IllegalArgumentException naming the store, for a zero or negative one
     */
    static Duration checkTtl(String name, Duration ttl) {
        if (ttl != null && (ttl.isNegative() || ttl.toMillis() < 1)) {
            throw new IllegalArgumentException(
                    "The time-to-live of store " + name + " must be at least 1 ms, not " + ttl);
        }
        return ttl;
    }

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
        StoreSettings settings = core.init(
                context,
                root,
                StoreMetrics.KEY_VALUE_SCOPE,
                valueFormat(),
                this::ttl,
                (dir, options) -> NativeKeyValueStore.open(core.name(), dir, options));
        Duration ttl = core.ttl();
        if (ttl != null) {
            try {
                expiry = StoreExpiry.open(
                        name(), ttl, settings, context, root, this, core.changelogged(), core::store, core::position);
                core.addExpiryMetrics(expiry);
            } catch (RuntimeException e) {
                core.close();
                throw e;
            }
        }
    }

    /**
     * The store's own time-to-live if it was built with one, else the configured one
     * ({@link StoreSettings#ttl}).
     */
    @Override
    Duration ttl(StoreSettings settings) {
        return settings.ttl(name(), ownTtl);
    }

    /** The time-to-live the store was built with, or null when it takes the configured one. */
    public Duration ownTtl() {
        return ownTtl;
    }

    /** Moves a time-to-live's time to the task's before an operation (see {@link StoreExpiry#touch}). */
    private void touch() {
        StoreExpiry e = expiry;
        if (e != null) {
            e.touch();
        }
    }

    /** The time of a write now (see {@link StoreExpiry#writeTime}); -1 without a time-to-live. */
    private long writeTime() {
        StoreExpiry e = expiry;
        return e == null ? NO_TIME : e.writeTime();
    }

    // ---------------------------------------------------------------- CachedStateStore

    /**
     * Kafka calls this before every commit, inside its transaction ({@code StreamTask#prepareCommit}):
     * a store with a time-to-live removes expired keys here and logs their tombstones (see
     * {@link StoreExpiry}). This store keeps no cache.
     */
    @Override
    public void flushCache() {
        StoreExpiry e = expiry;
        if (e != null && isOpen()) {
            e.beforeCommit();
        }
    }

    /** No cache: nothing to clear. */
    @Override
    public void clearCache() {}

    /** No cache: nothing is forwarded from here, so no listener is kept. */
    @Override
    public boolean setFlushListener(CacheFlushListener<Bytes, byte[]> listener, boolean sendOldValues) {
        return false;
    }

    @Override
    public void close() {
        StoreExpiry e = expiry;
        if (e != null) {
            expiry = null;
            e.close();
        }
        super.close();
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        touch();
        core.store().put(key.get(), value, writeTime());
        core.recordWrite();
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        if (value == null) {
            // Kafka's stores never write a null value here: nothing to put.
            return get(key);
        }
        touch();
        byte[] existing = core.store().putIfAbsent(key.get(), value, writeTime());
        if (existing == null) {
            core.recordWrite();
        }
        return existing;
    }

    /** Writes every entry in one native call; a null value deletes. */
    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        Objects.requireNonNull(entries, "entries cannot be null");
        for (KeyValue<Bytes, byte[]> entry : entries) {
            Objects.requireNonNull(entry, "entry cannot be null");
            Objects.requireNonNull(entry.key, "key cannot be null");
        }
        NativeKeyValueStore store = core.store();
        touch();
        byte[] batch = BatchEncoder.encode(entries, entry -> entry.key.get(), entry -> entry.value);
        store.putAll(batch, writeTime());
        core.recordWrite();
    }

    @Override
    public byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        touch();
        byte[] old = core.store().delete(key.get());
        core.recordWrite();
        return old;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public byte[] get(Bytes key) {
        touch();
        return reads.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        touch();
        return reads.range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        touch();
        return reads.reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        touch();
        return reads.all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        touch();
        return reads.reverseAll();
    }

    /** Keys that start with the serialized prefix, in ascending order. */
    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        touch();
        return reads.prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return reads.approximateNumEntries();
    }

    /**
     * {@code READ_COMMITTED}: a view of committed data only. {@code READ_UNCOMMITTED}: this store.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public ReadOnlyKeyValueStore<Bytes, byte[]> readOnly(IsolationLevel isolationLevel) {
        Objects.requireNonNull(isolationLevel, "isolationLevel cannot be null");
        core.store();
        return isolationLevel == IsolationLevel.READ_COMMITTED ? committedReads : this;
    }
}
