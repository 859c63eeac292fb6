package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * One native handle owned by a Java object, as RocksJava's {@code AbstractNativeReference}: every
 * call on it runs under the read lock after checking that it is open ({@link #acquire()} and
 * {@link #release()}, in a {@code finally}), so calls from several threads run at once;
 * {@link #close()} takes the write lock, so it waits for running calls, then frees the handle
 * exactly once ({@link #dispose(long)}). What must stay true: no call reaches the native side with a
 * handle that was freed, and none is freed twice.
 */
abstract class NativeHandle implements AutoCloseable {
    static {
        NativeLibrary.load();
    }

    private final long handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);

    /** @param handle the handle a native call returned; owned from now on */
    NativeHandle(long handle) {
        this.handle = handle;
    }

    /**
     * Enters a native call: takes the read lock and returns the handle.
     *
     * @throws InvalidStateStoreException if it is closed (the lock is then not held)
     */
    final long acquire() {
        lock.readLock().lock();
        if (!open.get()) {
            lock.readLock().unlock();
            throw new InvalidStateStoreException(closedMessage());
        }
        return handle;
    }

    /** Leaves a native call entered with {@link #acquire()}. */
    final void release() {
        lock.readLock().unlock();
    }

    /** Runs {@code call} with the handle under the read lock if it is still open; returns whether it ran. */
    final boolean ifOpen(LongConsumer call) {
        lock.readLock().lock();
        try {
            if (!open.get()) return false;
            call.accept(handle);
            return true;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Frees the handle once running calls returned. Idempotent. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (open.compareAndSet(true, false)) {
                beforeFree(handle);
                dispose(handle);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** What to read from the handle before it is freed, no call running (nothing by default). */
    void beforeFree(long handle) {}

    /** Frees the handle (the native side's free or close). */
    abstract void dispose(long handle);

    /** The message of a call on it once closed. */
    abstract String closedMessage();
}
