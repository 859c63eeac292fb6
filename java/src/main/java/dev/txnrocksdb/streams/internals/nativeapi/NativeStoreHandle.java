package dev.txnrocksdb.streams.internals.nativeapi;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the native handle of one open store (key-value, window or session) and every native
 * iterator opened on it.
 *
 * <p>Every store has an <em>engine</em>: the transactional database that {@link NativeKeyValueStore}'s
 * commit, offsets, position, rollback and size functions work on. For a key-value store the
 * engine is the store handle itself; a window or session store lends out a pointer to its engine
 * ({@link NativeWindowStore#engine}), valid until the store is closed and never closed on its
 * own. {@link #call}, {@link #run} and {@link #callLong} pass the store handle;
 * {@link #callEngine}, {@link #runEngine} and {@link #callEngineLong} pass the engine.
 *
 * <p>Every native call runs under the read lock after checking that the store is open, so calls
 * from the stream thread and from interactive-query threads proceed in parallel. {@link #close()}
 * takes the write lock, so it waits for running calls and no call can start on a freed handle;
 * it frees the open iterators first and the store exactly once.
 */
public final class NativeStoreHandle implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NativeStoreHandle.class);

    private final String storeName;
    private final long handle;
    private final long engine;
    private final LongConsumer closeNative;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Set<NativeKeyValueIterator> openIterators = ConcurrentHashMap.newKeySet();

    private NativeStoreHandle(String storeName, long handle, long engine, LongConsumer closeNative) {
        this.storeName = storeName;
        this.handle = handle;
        this.engine = engine;
        this.closeNative = closeNative;
    }

    /**
     * Opens (creating if needed) the native key-value store in {@code dir}.
     *
     * @param storeName the Kafka store name, used in exception messages
     * @param transactional true: writes are staged until commit; false: write-through
     * @param syncCommit true: fsync the write-ahead log at every commit
     * @param strategy where a transactional store keeps uncommitted writes
     */
    public static NativeStoreHandle open(String storeName, Path dir, boolean transactional, boolean syncCommit,
                                         TransactionStrategy strategy) {
        long handle = NativeKeyValueStore.open(dir.toAbsolutePath().toString(), transactional, syncCommit,
            strategy.configName());
        return new NativeStoreHandle(storeName, handle, handle, NativeKeyValueStore::close);
    }

    /**
     * Opens (creating if needed) the native window store in {@code dir}; see {@link NativeWindowStore#open}.
     *
     * @param storeName the Kafka store name, used in exception messages
     */
    public static NativeStoreHandle openWindowStore(String storeName, Path dir, boolean transactional, boolean syncCommit,
                                                    TransactionStrategy strategy, long retentionMs,
                                                    long segmentIntervalMs) {
        long handle = NativeWindowStore.open(dir.toAbsolutePath().toString(), transactional, syncCommit,
            strategy.configName(), retentionMs, segmentIntervalMs);
        return withBorrowedEngine(storeName, handle, NativeWindowStore::engine, NativeWindowStore::close);
    }

    /**
     * Opens (creating if needed) the native session store in {@code dir}; see {@link NativeSessionStore#open}.
     *
     * @param storeName the Kafka store name, used in exception messages
     */
    public static NativeStoreHandle openSessionStore(String storeName, Path dir, boolean transactional, boolean syncCommit,
                                                     TransactionStrategy strategy, long retentionMs,
                                                     long segmentIntervalMs) {
        long handle = NativeSessionStore.open(dir.toAbsolutePath().toString(), transactional, syncCommit,
            strategy.configName(), retentionMs, segmentIntervalMs);
        return withBorrowedEngine(storeName, handle, NativeSessionStore::engine, NativeSessionStore::close);
    }

    private static NativeStoreHandle withBorrowedEngine(String storeName, long handle, LongUnaryOperator engineOf,
                                                        LongConsumer closeNative) {
        long engine;
        try {
            engine = engineOf.applyAsLong(handle);
        } catch (RuntimeException | Error e) {
            closeNative.accept(handle);
            throw e;
        }
        return new NativeStoreHandle(storeName, handle, engine, closeNative);
    }

    /** The Kafka store name this handle belongs to. */
    public String storeName() {
        return storeName;
    }

    /** True until {@link #close()} starts. */
    public boolean isOpen() {
        return open.get();
    }

    /**
     * Runs a native call that returns a value.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public <T> T call(LongFunction<T> nativeCall) {
        Lock read = lock.readLock();
        read.lock();
        try {
            ensureOpen();
            return nativeCall.apply(handle);
        } finally {
            read.unlock();
        }
    }

    /**
     * Runs a native call that returns a {@code long}, without boxing.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public long callLong(LongUnaryOperator nativeCall) {
        Lock read = lock.readLock();
        read.lock();
        try {
            ensureOpen();
            return nativeCall.applyAsLong(handle);
        } finally {
            read.unlock();
        }
    }

    /**
     * Runs a native call that returns nothing.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public void run(LongConsumer nativeCall) {
        Lock read = lock.readLock();
        read.lock();
        try {
            ensureOpen();
            nativeCall.accept(handle);
        } finally {
            read.unlock();
        }
    }

    /**
     * Runs a native call on the store's engine (see the class documentation) that returns a value.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public <T> T callEngine(LongFunction<T> nativeCall) {
        return call(ignored -> nativeCall.apply(engine));
    }

    /**
     * Runs a native call on the store's engine that returns a {@code long}.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public long callEngineLong(LongUnaryOperator nativeCall) {
        return callLong(ignored -> nativeCall.applyAsLong(engine));
    }

    /**
     * Runs a native call on the store's engine that returns nothing.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public void runEngine(LongConsumer nativeCall) {
        run(ignored -> nativeCall.accept(engine));
    }

    /**
     * Opens an iterator over the engine's keys, as stored; see {@link NativeKeyValueStore#newIterator}
     * for the arguments. For a key-value store these are the store's keys. The store tracks the
     * iterator and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeKeyValueIterator newIterator(byte[] from, byte[] to, boolean toInclusive, boolean reverse,
                                              boolean committedOnly) {
        return openIterator(h -> NativeKeyValueStore.newIterator(engine, from, to, toInclusive, reverse, committedOnly));
    }

    /**
     * Opens an iterator with a store-specific native call that takes the store handle and returns
     * a native iterator read by {@link NativeKeyValueStore#iteratorNext} (for example
     * {@link NativeWindowStore#newIterator}). The store tracks it and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeKeyValueIterator openIterator(LongUnaryOperator nativeOpen) {
        Lock read = lock.readLock();
        read.lock();
        try {
            ensureOpen();
            long iterator = nativeOpen.applyAsLong(handle);
            NativeKeyValueIterator wrapper = new NativeKeyValueIterator(this, iterator);
            openIterators.add(wrapper);
            return wrapper;
        } finally {
            read.unlock();
        }
    }

    /** Number of iterators opened and not yet closed. */
    public int openIteratorCount() {
        return openIterators.size();
    }

    /** Called by an iterator that its user closed: forget it and free it unless the store did. */
    void iteratorClosed(NativeKeyValueIterator iterator) {
        openIterators.remove(iterator);
        Lock read = lock.readLock();
        read.lock();
        try {
            if (open.get()) {
                iterator.freeNative();
            }
        } finally {
            read.unlock();
        }
    }

    /**
     * Closes the store: waits for running calls, closes every open iterator, then frees the native
     * store (dropping uncommitted writes). Idempotent.
     */
    @Override
    public void close() {
        Lock write = lock.writeLock();
        write.lock();
        try {
            if (!open.compareAndSet(true, false)) {
                return;
            }
            List<NativeKeyValueIterator> iterators = new ArrayList<>(openIterators);
            openIterators.clear();
            if (!iterators.isEmpty()) {
                log.warn("Closing {} open iterators for store {}", iterators.size(), storeName);
            }
            for (NativeKeyValueIterator iterator : iterators) {
                try {
                    iterator.closeBecauseStoreClosed();
                } catch (RuntimeException e) {
                    log.error("Error closing an open iterator of store {}", storeName, e);
                }
            }
            closeNative.accept(handle);
        } finally {
            write.unlock();
        }
    }

    private void ensureOpen() {
        if (!open.get()) {
            throw new InvalidStateStoreException("Store " + storeName + " is currently closed");
        }
    }
}
