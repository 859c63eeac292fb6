package dev.txnrocksdb.streams.internals.nativeapi;

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
 * Owns the native handle of one open store and every native iterator opened on it.
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
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Set<NativeKeyValueIterator> openIterators = ConcurrentHashMap.newKeySet();

    private NativeStoreHandle(String storeName, long handle) {
        this.storeName = storeName;
        this.handle = handle;
    }

    /**
     * Opens (creating if needed) the native store in {@code dir}.
     *
     * @param storeName the Kafka store name, used in exception messages
     * @param transactional true: writes are staged until commit; false: write-through
     * @param syncCommit true: fsync the write-ahead log at every commit
     */
    public static NativeStoreHandle open(String storeName, Path dir, boolean transactional, boolean syncCommit) {
        long handle = NativeKeyValueStore.open(dir.toAbsolutePath().toString(), transactional, syncCommit);
        return new NativeStoreHandle(storeName, handle);
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
     * Opens an iterator; see {@link NativeKeyValueStore#newIterator} for the arguments. The store
     * tracks it and closes it if the store closes first.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public NativeKeyValueIterator newIterator(byte[] from, byte[] to, boolean toInclusive, boolean reverse,
                                              boolean committedOnly) {
        Lock read = lock.readLock();
        read.lock();
        try {
            ensureOpen();
            long iterator = NativeKeyValueStore.newIterator(handle, from, to, toInclusive, reverse, committedOnly);
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
            NativeKeyValueStore.close(handle);
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
