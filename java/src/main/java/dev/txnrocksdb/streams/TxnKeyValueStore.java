package dev.txnrocksdb.streams;

import dev.txnrocksdb.streams.internals.ChangelogRestorer;
import dev.txnrocksdb.streams.internals.CommittedOffsets;
import dev.txnrocksdb.streams.internals.NativeReadView;
import dev.txnrocksdb.streams.internals.PositionCodec;
import dev.txnrocksdb.streams.internals.PositionTracker;
import dev.txnrocksdb.streams.internals.StoreSettings;
import dev.txnrocksdb.streams.internals.nativeapi.BatchEncoder;
import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreHandle;
import dev.txnrocksdb.streams.internals.nativeapi.OffsetsCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A persistent key-value bytes store on the txn-rocksdb native engine (one RocksDB instance per
 * store, in {@code <task state dir>/<store name>}).
 *
 * <p>Transactional (the default of {@link TxnStores}): writes are staged and become durable,
 * together with the changelog offsets and the store's {@link Position}, only when Kafka Streams
 * commits the store ({@link #commit(Map)}). A crash or an unclean close drops the staged writes,
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
public class TxnKeyValueStore implements KeyValueStore<Bytes, byte[]>, TransactionalStateStore {
    private static final Logger log = LoggerFactory.getLogger(TxnKeyValueStore.class);

    private final String name;
    private final boolean transactional;
    private final NativeReadView reads;
    private final NativeReadView committedReads;

    private volatile NativeStoreHandle handle;
    private volatile PositionTracker positions = new PositionTracker(Position.emptyPosition(), true);
    private volatile CommittedOffsets committedOffsets = new CommittedOffsets(Map.of());
    private volatile TopicPartition contextChangelogPartition;
    private StateStoreContext context;

    /**
     * Creates a store; it opens in {@link #init}. Prefer {@link TxnStores}, whose suppliers build
     * stores for Kafka Streams.
     *
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @throws NullPointerException if {@code name} is null
     */
    public TxnKeyValueStore(String name, boolean transactional) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.transactional = transactional;
        this.reads = new NativeReadView(this::openHandle, false);
        this.committedReads = new NativeReadView(this::openHandle, true);
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Opens the store in {@code context.stateDir()/<name>} and registers it for restoration.
     * Reads {@link TxnRocksDBConfig} entries and the exactly-once settings from
     * {@code context.appConfigs()}.
     *
     * @throws ProcessorStateException if the store is already open, its directory cannot be
     *     created, the engine fails to open it, or the exactly-once settings conflict with this
     *     store (see {@link TransactionalStateStore})
     */
    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        if (isOpen()) {
            throw new ProcessorStateException("Store " + name + " is already open");
        }
        StoreSettings settings = StoreSettings.from(context.appConfigs());
        settings.validate(name, transactional);
        settings.applyMemoryBudget();
        Path dir = context.stateDir().toPath().resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new ProcessorStateException("Error creating the directory of store " + name + " at " + dir, e);
        }
        NativeStoreHandle opened = NativeStoreHandle.open(name, dir, transactional, settings.syncCommit());
        try {
            Map<TopicPartition, Long> offsets = OffsetsCodec.decodeOffsets(opened.call(NativeKeyValueStore::committedOffsets));
            byte[] positionBytes = opened.call(NativeKeyValueStore::committedPosition);
            Position committedPosition = positionBytes == null ? Position.emptyPosition() : PositionCodec.decode(positionBytes, name);
            this.committedOffsets = new CommittedOffsets(offsets);
            this.positions = new PositionTracker(committedPosition, transactional);
            this.contextChangelogPartition = changelogPartitionOf(context, name);
            this.context = context;
            this.handle = opened;
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        context.register(root, new ChangelogRestorer(this::openHandle, positions, settings.consistencyEnabled()));
    }

    @Override
    public String name() {
        return name;
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
        return transactional;
    }

    @Override
    public boolean isOpen() {
        NativeStoreHandle h = handle;
        return h != null && h.isOpen();
    }

    /**
     * Closes the store, its open iterators first. Uncommitted writes are dropped (they were never
     * committed). Idempotent.
     */
    @Override
    public synchronized void close() {
        NativeStoreHandle h = handle;
        if (h == null) {
            return;
        }
        h.close();
        positions.rollback();
    }

    /** Does nothing: {@link #commit(Map)} makes writes durable. */
    @Override
    @Deprecated
    public void flush() {}

    // ---------------------------------------------------------------- commit and offsets

    /**
     * Atomically makes the staged writes, the position and the offset update durable. An empty
     * map clears every committed offset, a null value removes that partition's offset, and any
     * other value (including {@code -4}, Kafka's "unknown") is stored as given. A store that is
     * not open has nothing to commit, so this returns without effect, as Kafka's RocksDB store does.
     *
     * @throws ProcessorStateException if the commit fails; then nothing of it is durable
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        Objects.requireNonNull(changelogOffsets, "changelogOffsets cannot be null");
        if (!isOpen()) {
            log.debug("Skipping commit of store {}, which is not open", name);
            return;
        }
        commitWithOffsets(changelogOffsets);
    }

    @Override
    public synchronized void commit(Long changelogOffset) {
        TopicPartition partition = changelogPartition();
        if (changelogOffset == null || partition == null) {
            commitWithOffsets(unchangedOffsets());
        } else {
            commitWithOffsets(Map.of(partition, changelogOffset));
        }
    }

    @Override
    public synchronized long recover(long changelogOffset) {
        openHandle().run(NativeKeyValueStore::rollback);
        positions.rollback();
        TopicPartition partition = changelogPartition();
        Long committed = partition == null ? null : committedOffsets.get(partition);
        return committed == null ? changelogOffset : committed;
    }

    /**
     * The last committed offset of a changelog partition, or null if none was committed.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    @Override
    public Long committedOffset(TopicPartition partition) {
        openHandle();
        return committedOffsets.get(partition);
    }

    /** Bytes held by staged writes; 0 when the store is write-through or not open. */
    @Override
    public long approximateNumUncommittedBytes() {
        NativeStoreHandle h = handle;
        if (h == null || !h.isOpen()) {
            return 0L;
        }
        try {
            return h.callLong(NativeKeyValueStore::approximateUncommittedBytes);
        } catch (InvalidStateStoreException closedMeanwhile) {
            return 0L;
        }
    }

    /** The position of the written records, uncommitted writes included. */
    @Override
    public Position getPosition() {
        return positions.current();
    }

    // ---------------------------------------------------------------- writes

    @Override
    public void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        openHandle().run(h -> NativeKeyValueStore.put(h, key.get(), value));
        positions.recordWrite(context);
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        if (value == null) {
            // Kafka's stores never write a null value here: nothing to put.
            return get(key);
        }
        byte[] existing = openHandle().call(h -> NativeKeyValueStore.putIfAbsent(h, key.get(), value));
        if (existing == null) {
            positions.recordWrite(context);
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
        NativeStoreHandle h = openHandle();
        byte[] batch = BatchEncoder.encode(entries, entry -> entry.key.get(), entry -> entry.value);
        h.run(nativeHandle -> NativeKeyValueStore.putAll(nativeHandle, batch));
        positions.recordWrite(context);
    }

    @Override
    public byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] old = openHandle().call(h -> NativeKeyValueStore.delete(h, key.get()));
        positions.recordWrite(context);
        return old;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public byte[] get(Bytes key) {
        return reads.get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return reads.range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return reads.reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return reads.all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return reads.reverseAll();
    }

    /** Keys that start with the serialized prefix, in ascending order. */
    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
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
        openHandle();
        return isolationLevel == IsolationLevel.READ_COMMITTED ? committedReads : this;
    }

    /**
     * IQv2 {@code KeyQuery} and {@code RangeQuery} (via Kafka's {@code StoreQueryUtils}); the
     * query's isolation level chooses the view and the position reported.
     */
    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        Position queryPosition = config.getIsolationLevel() == IsolationLevel.READ_COMMITTED
            ? positions.committed()
            : positions.current();
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, queryPosition, context);
    }

    // ---------------------------------------------------------------- helpers

    private NativeStoreHandle openHandle() {
        NativeStoreHandle h = handle;
        if (h == null || !h.isOpen()) {
            throw new InvalidStateStoreException("Store " + name + " is currently closed");
        }
        return h;
    }

    private void commitWithOffsets(Map<TopicPartition, Long> offsets) {
        byte[] encodedOffsets = OffsetsCodec.encodeUpdates(offsets);
        byte[] encodedPosition = positions.encodeForCommit();
        openHandle().run(h -> NativeKeyValueStore.commit(h, encodedOffsets, encodedPosition));
        positions.markCommitted();
        committedOffsets.apply(offsets);
    }

    /** An update that re-commits the current offsets: count 0 would clear them all. */
    private Map<TopicPartition, Long> unchangedOffsets() {
        return committedOffsets.snapshot();
    }

    /** The single changelog partition of this store, or null if not known (see {@link TransactionalStateStore}). */
    private TopicPartition changelogPartition() {
        TopicPartition fromContext = contextChangelogPartition;
        return fromContext != null ? fromContext : committedOffsets.onlyPartition().orElse(null);
    }

    private static TopicPartition changelogPartitionOf(StateStoreContext context, String storeName) {
        if (!(context instanceof InternalProcessorContext) || context.taskId() == null || context.taskId().partition() < 0) {
            return null;
        }
        String topic = ((InternalProcessorContext<?, ?>) context).changelogFor(storeName);
        return topic == null ? null : new TopicPartition(topic, context.taskId().partition());
    }
}
