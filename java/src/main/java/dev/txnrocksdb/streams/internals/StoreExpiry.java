package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.internals.nativeapi.ExpiredKeys;
import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.ProcessorContext;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.processor.internals.Task.TaskType;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.CachingKeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time-to-live of one open key-value store, on the Kafka side: the time of each write, and the
 * expiry pass at each commit with its changelog tombstones. The engine keeps the rest (the store's
 * time, the read filter, the expiry index: {@code rust/core/src/ttl.rs}).
 *
 * <p>The expiry pass runs in {@link #beforeCommit()}, which the store calls from
 * {@code CachedStateStore#flushCache()}: Kafka calls that in {@code StreamTask#prepareCommit}, inside
 * the open transaction, before it flushes the producer. The deletes the pass stages commit with the
 * changelog offset that covers the tombstones it sends, so a crash either aborts both or keeps both
 * ({@code docs/design/ttl.md}). {@code commit(Map)} comes after the producer's commit: a tombstone
 * sent there would land in the next transaction.
 */
final class StoreExpiry {
    private static final Logger log = LoggerFactory.getLogger(StoreExpiry.class);

    /** Passes in a row that left expired keys behind before the backlog is reported. */
    static final int BACKLOG_WARN_PASSES = 100;

    /** How soon a task with expired keys left commits again, records or not. */
    static final Duration DRAIN_INTERVAL = Duration.ofMillis(100);

    private final String storeName;
    private final Duration ttl;
    private final TimeBasis basis;
    private final int keysPerCommit;
    private final StateStoreContext context;
    private final Supplier<NativeKeyValueStore> store;
    private final Supplier<Position> position;
    /** Whether this is an active task's store, which expires keys (a standby's follows the changelog). */
    private final boolean active;
    /** Whether expired keys are logged as tombstones (an active task's store with a changelog). */
    private final boolean logged;

    private final Cancellable clock;
    /** While a pass leaves expired keys behind: the punctuator that makes the task commit again. */
    private Cancellable drain;
    /** The last time {@link #touch} gave the store (read racily by query threads: a lost update only costs a call). */
    private volatile long touchedTime = -1;

    private volatile long expiredTotal;
    private volatile long expiredBytesTotal;
    private volatile int backlogPasses;

    private StoreExpiry(
            String storeName,
            Duration ttl,
            StoreSettings settings,
            StateStoreContext context,
            boolean changelogged,
            Supplier<NativeKeyValueStore> store,
            Supplier<Position> position) {
        this.storeName = storeName;
        this.ttl = ttl;
        this.basis = settings.timeBasis();
        this.keysPerCommit = settings.expiryKeysPerCommit();
        this.context = context;
        this.store = store;
        this.position = position;
        this.active = context instanceof InternalProcessorContext
                && ((InternalProcessorContext<?, ?>) context).taskType() == TaskType.ACTIVE;
        this.logged = active && changelogged;
        this.clock = basis == TimeBasis.WALL_CLOCK_TIME ? scheduleClock() : null;
    }

    /**
     * The expiry of a key-value store opened with {@code ttl}.
     *
     * @param root the outermost layer of the store, which Kafka wraps around it
     * @param self the store
     * @param changelogged whether the store has a changelog
     * @throws ProcessorStateException if a caching layer that keeps entries sits above the store
     */
    static StoreExpiry open(
            String storeName,
            Duration ttl,
            StoreSettings settings,
            StateStoreContext context,
            StateStore root,
            StateStore self,
            boolean changelogged,
            Supplier<NativeKeyValueStore> store,
            Supplier<Position> position) {
        refuseCachingAbove(storeName, context, root, self);
        return new StoreExpiry(storeName, ttl, settings, context, changelogged, store, position);
    }

    /**
     * A caching layer serves the entries it holds without asking the store, expired or not: a store
     * with a time-to-live accepts one only when it keeps nothing ({@code statestore.cache.max.bytes=0}).
     */
    private static void refuseCachingAbove(
            String storeName, StateStoreContext context, StateStore root, StateStore self) {
        StateStore layer = root;
        boolean cached = false;
        while (layer != null && layer != self) {
            cached |= layer instanceof CachingKeyValueStore;
            layer = layer instanceof WrappedStateStore ? ((WrappedStateStore<?, ?, ?>) layer).wrapped() : null;
        }
        if (cached && cacheMaxBytes(context) > 0) {
            throw new ProcessorStateException("Store " + storeName + " has a time-to-live, and a caching layer above"
                    + " it would serve its expired keys: build it with Materialized.withCachingDisabled() (or without"
                    + " withCachingEnabled()), or set " + StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG + "=0");
        }
    }

    @SuppressWarnings("deprecation")
    private static long cacheMaxBytes(StateStoreContext context) {
        Object value = context.appConfigs().get(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG);
        if (value == null) {
            value = context.appConfigs().get(StreamsConfig.CACHE_MAX_BYTES_BUFFERING_CONFIG);
        }
        return value == null
                ? 10L * 1024 * 1024
                : Long.parseLong(value.toString().trim());
    }

    /**
     * Under wall-clock time, a punctuator that moves the store's time on while no records arrive
     * (its firing also makes Kafka commit the task, and so run the expiry pass), every 10 s or
     * every TTL if that is shorter.
     */
    private Cancellable scheduleClock() {
        if (!active) {
            return null;
        }
        Duration interval = Duration.ofMillis(Math.max(1, Math.min(ttl.toMillis(), 10_000)));
        return schedule(interval, now -> store.get().advanceTime(now));
    }

    /**
     * A wall-clock punctuator of this store's. Kafka binds a punctuator to the processor node that
     * schedules it, and a store has none: this one runs under a node of its own, named
     * {@code <store>-ttl}, which only Kafka's logs and error messages show. A punctuator's firing
     * makes Kafka commit the task, records processed or not.
     */
    private Cancellable schedule(Duration interval, Punctuator punctuator) {
        InternalProcessorContext<?, ?> internal = (InternalProcessorContext<?, ?>) context;
        ProcessorNode<?, ?, ?, ?> current = internal.currentNode();
        internal.setCurrentNode(new ProcessorNode<>(storeName + "-ttl"));
        try {
            return internal.schedule(interval, PunctuationType.WALL_CLOCK_TIME, punctuator);
        } finally {
            internal.setCurrentNode(current);
        }
    }

    /**
     * The time of a write now: the processed record's timestamp under stream time (a timestamped
     * store's engine takes its value's own), the stream thread's clock under wall-clock time; -1
     * when there is none (the engine then takes the store's time).
     */
    long writeTime() {
        if (basis == TimeBasis.WALL_CLOCK_TIME) {
            return now();
        }
        if (context instanceof InternalProcessorContext) {
            ProcessorRecordContext record = ((InternalProcessorContext<?, ?>) context).recordContext();
            return record == null ? -1 : record.timestamp();
        }
        return -1;
    }

    private long now() {
        return context instanceof ProcessorContext
                ? ((ProcessorContext) context).currentSystemTimeMs()
                : System.currentTimeMillis();
    }

    /**
     * Before a read or write of an active task's store: moves the store's time to the task's (its
     * stream time, which already counts the record being processed, or the clock's), so that a
     * processor reading a key sees it expired by the record it processes, not only by the last
     * write or commit. One native call when the time moved, none otherwise.
     */
    void touch() {
        if (!active) {
            return;
        }
        long time = basis == TimeBasis.WALL_CLOCK_TIME ? now() : ((ProcessorContext) context).currentStreamTimeMs();
        if (time > touchedTime) {
            touchedTime = time;
            store.get().advanceTime(time);
        }
    }

    /**
     * Before a commit, inside its transaction: moves the store's time to the task's (its stream time,
     * or the clock's), then removes up to {@code txn.rocksdb.ttl.expiry.keys.per.commit} expired keys
     * and logs a tombstone for each. Only an active task's store expires keys.
     */
    void beforeCommit() {
        if (!active) {
            return;
        }
        NativeKeyValueStore kv = store.get();
        long time = basis == TimeBasis.WALL_CLOCK_TIME ? now() : ((ProcessorContext) context).currentStreamTimeMs();
        kv.advanceTime(time);
        ExpiredKeys expired = kv.expire(keysPerCommit);
        if (logged && !expired.keys().isEmpty()) {
            InternalProcessorContext<?, ?> internal = (InternalProcessorContext<?, ?>) context;
            Position at = position.get();
            for (byte[] key : expired.keys()) {
                internal.logChange(storeName, Bytes.wrap(key), null, time, new RecordHeaders(), at);
            }
        }
        expiredTotal += expired.keys().size();
        expiredBytesTotal += expired.bytes();
        if (expired.more()) {
            // a task commits only when it has something to commit: while expired keys remain, a
            // punctuator makes it commit again, so the backlog drains when no records arrive too
            if (drain == null) {
                drain = schedule(DRAIN_INTERVAL, now -> {});
            }
            if (++backlogPasses % BACKLOG_WARN_PASSES == 0) {
                log.warn(
                        "Store {} has had more expired keys than it removes at a commit ({}) for {} commits in a row:"
                                + " its expired keys are invisible, but take space until removed. Raise {}",
                        storeName,
                        keysPerCommit,
                        backlogPasses,
                        dev.txnrocksdb.streams.TxnRocksDBConfig.TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG);
            }
        } else {
            backlogPasses = 0;
            if (drain != null) {
                drain.cancel();
                drain = null;
            }
        }
    }

    /** Keys expired by this store since it opened. */
    long expiredTotal() {
        return expiredTotal;
    }

    /** Bytes of the keys and values expired by this store since it opened (freed once compacted away). */
    long expiredBytesTotal() {
        return expiredBytesTotal;
    }

    /** Commits in a row whose pass left expired keys behind (0: none left after the last one). */
    int backlogPasses() {
        return backlogPasses;
    }

    /** Stops the wall-clock punctuator. */
    void close() {
        if (clock != null) {
            clock.cancel();
        }
        if (drain != null) {
            drain.cancel();
            drain = null;
        }
    }
}
