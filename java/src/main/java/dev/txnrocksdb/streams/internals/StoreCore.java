package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLogging;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreStatistics;
import dev.txnrocksdb.streams.internals.nativeapi.OpenOptions;
import dev.txnrocksdb.streams.internals.nativeapi.StoreStatistic;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every txn-rocksdb store (key-value, window, session) does the same way: opening the native
 * store under {@code <task state dir>/<store name>} with the application's settings, loading the
 * committed offsets and position, registering the changelog restorer, committing (data, offsets
 * and position in one native write), recovering, tracking positions and closing.
 *
 * <p>The store classes own one instance each and delegate to it; they add only their own reads
 * and writes, through the typed methods of the native store of their kind ({@link #store()}).
 *
 * @param <S> the kind of native store ({@code NativeKeyValueStore}, {@code NativeWindowStore} or
 *     {@code NativeSessionStore})
 */
public final class StoreCore<S extends NativeStore> {
    private static final Logger log = LoggerFactory.getLogger(StoreCore.class);

    /**
     * Opens the native store of one kind in its directory.
     *
     * @param <S> the kind of native store
     */
    @FunctionalInterface
    public interface Opener<S extends NativeStore> {
        /**
         * @param dir the store's directory (created)
         * @param options what the native open takes, from the application's txn-rocksdb settings
         *     (with the store's own transaction strategy if it has one) and the store's changelog
         * @return the opened store, owned by the caller from now on
         */
        S open(Path dir, OpenOptions options);
    }

    private final String name;
    private final boolean transactional;
    private final TransactionStrategy storeStrategy;

    private volatile S store;
    private volatile PositionTracker positions = new PositionTracker(Position.emptyPosition(), true);
    private volatile CommittedOffsets committedOffsets = new CommittedOffsets(Map.of());
    private volatile TopicPartition contextChangelogPartition;
    private volatile StateStoreContext context;
    private volatile TransactionStrategy openedStrategy;
    private volatile Duration openedTtl;
    private volatile StoreMetrics metrics = StoreMetrics.NONE;
    /** The snapshot download's gauges, registered before the store opens (see {@link StoreMetrics#registerDownload}). */
    private volatile StoreMetrics downloadMetrics = StoreMetrics.NONE;

    private volatile StoreSnapshots snapshots;

    /**
     * @param name the store name (also its directory name)
     * @param transactional true: stage writes until commit; false: write-through
     * @param storeStrategy the store's own transaction strategy, or null for the configured one
     *     ({@code txn.rocksdb.transaction.strategy})
     * @throws NullPointerException if {@code name} is null
     */
    public StoreCore(String name, boolean transactional, TransactionStrategy storeStrategy) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.transactional = transactional;
        this.storeStrategy = storeStrategy;
    }

    public String name() {
        return name;
    }

    public boolean transactional() {
        return transactional;
    }

    /**
     * The transaction strategy: once the store has been initialized, the one it was opened with;
     * before that, the store's own strategy, or null if it takes the configured one.
     */
    public TransactionStrategy transactionStrategy() {
        TransactionStrategy opened = openedStrategy;
        return opened != null ? opened : storeStrategy;
    }

    /**
     * Opens the store in {@code context.stateDir()/<name>} with {@code opener} and registers
     * {@code root} for restoration with a {@link ChangelogRestorer}, which hands each changelog
     * batch to {@link NativeStore#restore}.
     *
     * @param metricsScope the store kind's metrics scope ({@link StoreMetrics#KEY_VALUE_SCOPE}, ...),
     *     as its supplier reports it, so that its metrics sit beside Kafka's metered ones
     * @param ttlOf the store's time-to-live from the settings (a key-value store's, see
     *     {@link StoreSettings#ttl}), or null; it may refuse one (the kinds with retention)
     * @return the application's settings, for store-specific use
     * @throws ProcessorStateException if the store is already open, its directory cannot be
     *     created, the native store fails to open, or the exactly-once settings conflict with this
     *     store (see {@code TransactionalStateStore})
     */
    public synchronized StoreSettings init(
            StateStoreContext context,
            StateStore root,
            String metricsScope,
            ValueFormat valueFormat,
            Function<StoreSettings, Duration> ttlOf,
            Opener<S> opener) {
        if (isOpen()) {
            throw new ProcessorStateException("Store " + name + " is already open");
        }
        StoreSettings settings = StoreSettings.from(context.appConfigs()).withTransactionStrategy(storeStrategy);
        settings.validate(name, transactional);
        NativeLogging.install();
        settings.applyMemoryBudget();
        Path dir = context.stateDir().toPath().resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new ProcessorStateException("Error creating the directory of store " + name + " at " + dir, e);
        }
        // RocksDB statistics cost a little on every operation: collected, as by Kafka's RocksDB
        // stores, only for metrics at the DEBUG recording level.
        boolean statistics = RecordingLevel.DEBUG
                .name()
                .equalsIgnoreCase(
                        ConfigValues.stringValue(context.appConfigs(), StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG));
        TopicPartition changelogPartition = changelogPartitionOf(context, name);
        Duration ttl = ttlOf.apply(settings);
        SnapshotDownloadProgress download = new SnapshotDownloadProgress();
        StoreMetrics registeredDownload = settings.snapshotLocation(name) == null
                ? StoreMetrics.NONE
                : StoreMetrics.registerDownload(context, name, metricsScope, download);
        StoreSnapshots openedSnapshots;
        try {
            openedSnapshots = StoreSnapshots.open(
                    name,
                    settings,
                    context,
                    changelogPartition,
                    dir,
                    ttl != null,
                    StoreSnapshots.lookupFor(context.appConfigs()),
                    download);
        } catch (RuntimeException e) {
            registeredDownload.close();
            throw e;
        }
        OpenOptions openOptions =
                settings.openOptions(name, transactional, changelogPartition != null, valueFormat, statistics, ttl);
        S opened;
        boolean wipedBeforeSnapshot = false;
        try {
            opened = opener.open(dir, openOptions);
            if (openedSnapshots != null && StoreStatistic.WIPES.of(NativeStoreStatistics.read(opened)) > 0) {
                // The damage policy deleted the store's files (it opened empty, for the changelog to
                // restore): a snapshot restores most of it instead.
                opened.close();
                openedSnapshots.restoreAfterWipe(dir);
                wipedBeforeSnapshot = true;
                opened = opener.open(dir, openOptions);
            }
        } catch (RuntimeException e) {
            if (openedSnapshots != null) {
                openedSnapshots.close();
            }
            registeredDownload.close();
            throw e;
        }
        RestoreProgress restoreProgress;
        try {
            Map<TopicPartition, Long> offsets = opened.committedOffsets();
            Position committedPosition = readCommittedPosition(opened);
            this.committedOffsets = new CommittedOffsets(offsets);
            this.positions = new PositionTracker(committedPosition, transactional);
            this.contextChangelogPartition = changelogPartition;
            this.context = context;
            this.openedStrategy = settings.transactionStrategy();
            this.openedTtl = ttl;
            this.metrics = StoreMetrics.register(context, name, metricsScope, opened, statistics);
            this.downloadMetrics = registeredDownload;
            this.metrics.addSnapshotMetrics(openedSnapshots);
            restoreProgress = new RestoreProgress(
                    name,
                    offsets,
                    StoreSnapshots.lookupFor(context.appConfigs()),
                    RestoreProgress.intervalMs(context.appConfigs()));
            this.metrics.addRestoreMetrics(restoreProgress);
            if (wipedBeforeSnapshot) {
                this.metrics.recordWipeBeforeSnapshot();
            }
            this.snapshots = openedSnapshots;
            this.store = opened;
        } catch (RuntimeException e) {
            if (openedSnapshots != null) {
                openedSnapshots.close();
            }
            registeredDownload.close();
            opened.close();
            throw e;
        }
        StoreMetrics registered = metrics;
        context.register(
                root,
                new ChangelogRestorer(
                        this::store,
                        positions,
                        settings.consistencyEnabled(),
                        registered::recordRestore,
                        restoreProgress));
        return settings;
    }

    /** Registers the metrics of the store's time-to-live (with the store's other metrics). */
    void addExpiryMetrics(StoreExpiry expiry) {
        metrics.addExpiryMetrics(expiry);
    }

    /** The time-to-live the store was opened with, or null (keys never expire, or not opened yet). */
    public Duration ttl() {
        return openedTtl;
    }

    /** Whether the store, as opened, has a changelog. */
    public boolean changelogged() {
        return contextChangelogPartition != null;
    }

    public boolean isOpen() {
        S s = store;
        return s != null && s.isOpen();
    }

    /**
     * The open native store.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    public S store() {
        S s = store;
        if (s == null || !s.isOpen()) {
            throw new InvalidStateStoreException("Store " + name + " is currently closed");
        }
        return s;
    }

    /** The store's snapshots while it is open with a snapshot location, else null. */
    StoreSnapshots snapshots() {
        return snapshots;
    }

    /** The context of the last {@link #init}, or null before it. */
    public StateStoreContext context() {
        return context;
    }

    /** Closes the native store and its iterators, dropping uncommitted writes. Idempotent. */
    public synchronized void close() {
        S s = store;
        if (s == null) {
            return;
        }
        StoreSnapshots open = snapshots;
        if (open != null) {
            snapshots = null;
            open.close();
        }
        s.close();
        positions.rollback();
        metrics.close();
        metrics = StoreMetrics.NONE;
        downloadMetrics.close();
        downloadMetrics = StoreMetrics.NONE;
    }

    /**
     * Kafka's {@code commit(Map)}: atomically makes the staged writes, the position and the offset
     * update durable. An empty map clears every committed offset, a null value removes that
     * partition's offset, any other value (including {@code -4}) is stored as given. A store that
     * is not open has nothing to commit, so this returns without effect.
     */
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        Objects.requireNonNull(changelogOffsets, "changelogOffsets cannot be null");
        if (!isOpen()) {
            log.debug("Skipping commit of store {}, which is not open", name);
            return;
        }
        commitWithOffsets(changelogOffsets);
    }

    /** {@code TransactionalStateStore#commit(Long)}. */
    public synchronized void commit(Long changelogOffset) {
        TopicPartition partition = changelogPartition();
        if (changelogOffset == null || partition == null) {
            // Re-commit the current offsets: an empty update would clear them all.
            commitWithOffsets(committedOffsets.snapshot());
        } else {
            commitWithOffsets(Map.of(partition, changelogOffset));
        }
    }

    /**
     * {@code TransactionalStateStore#recover(long)}: drops the uncommitted writes, or rolls a
     * secondary-store commit that failed half-way forward (see {@link NativeStore#rollback}),
     * then returns the committed offset of the store's changelog partition as the native store
     * now holds it (the roll-forward may have moved it), or {@code changelogOffset} when none is
     * committed.
     *
     * @throws ProcessorStateException if the native rollback or roll-forward fails
     */
    public synchronized long recover(long changelogOffset) {
        S s = store();
        s.rollback();
        metrics.recordRollback();
        // A rolled-forward commit moved the committed offsets and position: read them back. (The
        // position only ever grows; the in-memory one may be ahead by restored batches that the
        // next commit persists, so merge rather than replace.)
        committedOffsets.replaceWith(s.committedOffsets());
        positions.rollback();
        positions.mergeCommitted(readCommittedPosition(s));
        TopicPartition partition = changelogPartition();
        Long committed = partition == null ? null : committedOffsets.get(partition);
        return committed == null ? changelogOffset : committed;
    }

    /**
     * The last committed offset of a changelog partition, or null if none was committed.
     *
     * @throws InvalidStateStoreException if the store is not open
     */
    public Long committedOffset(TopicPartition partition) {
        store();
        return committedOffsets.get(partition);
    }

    /** Bytes held by staged writes; 0 when the store is write-through or not open. */
    public long approximateNumUncommittedBytes() {
        S s = store;
        if (s == null || !s.isOpen()) {
            return 0L;
        }
        try {
            return s.approximateUncommittedBytes();
        } catch (InvalidStateStoreException closedMeanwhile) {
            return 0L;
        }
    }

    /** The position of the written records, uncommitted writes included. */
    public Position position() {
        return positions.current();
    }

    /** The position an interactive query at {@code isolationLevel} reports. */
    public Position position(IsolationLevel isolationLevel) {
        return isolationLevel == IsolationLevel.READ_COMMITTED ? positions.committed() : positions.current();
    }

    /** Records the position of the record being processed after a write, as Kafka's stores do. */
    public void recordWrite() {
        positions.recordWrite(context);
    }

    private void commitWithOffsets(Map<TopicPartition, Long> offsets) {
        byte[] position = positions.encodeForCommit();
        S s = store();
        s.commit(offsets, position);
        metrics.recordCommit();
        positions.markCommitted();
        committedOffsets.apply(offsets);
        StoreSnapshots open = snapshots;
        if (open != null) {
            open.afterCommit(s);
        }
    }

    private Position readCommittedPosition(NativeStore s) {
        byte[] positionBytes = s.committedPosition();
        return positionBytes == null ? Position.emptyPosition() : PositionCodec.decode(positionBytes, name);
    }

    /** The single changelog partition of this store, or null if not known (see {@code TransactionalStateStore}). */
    private TopicPartition changelogPartition() {
        TopicPartition fromContext = contextChangelogPartition;
        return fromContext != null
                ? fromContext
                : committedOffsets.onlyPartition().orElse(null);
    }

    private static TopicPartition changelogPartitionOf(StateStoreContext context, String storeName) {
        if (!(context instanceof InternalProcessorContext)
                || context.taskId() == null
                || context.taskId().partition() < 0) {
            return null;
        }
        String topic = ((InternalProcessorContext<?, ?>) context).changelogFor(storeName);
        return topic == null ? null : new TopicPartition(topic, context.taskId().partition());
    }
}
