package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * A checkpoint of a store taken for a snapshot ({@link NativeSnapshotLocation#prepare}), waiting to
 * be sent ({@link NativeSnapshotLocation#upload}). It needs nothing of the store: the store may
 * commit and close meanwhile. {@link #cancel()} may be called from any thread while it is sent;
 * {@link #close()} waits for the upload to return, then frees it and deletes the checkpoint.
 */
public final class PreparedSnapshot implements AutoCloseable {
    static {
        NativeLibrary.load();
    }

    private final long handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);

    PreparedSnapshot(long handle) {
        this.handle = handle;
    }

    /** Makes a running or later upload stop before it writes the snapshot's manifest. */
    public void cancel() {
        lock.readLock().lock();
        try {
            if (open.get()) {
                cancel0(handle);
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Frees the prepared snapshot once a running upload returned. Idempotent. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (open.compareAndSet(true, false)) {
                free(handle);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    long acquire() {
        lock.readLock().lock();
        if (!open.get()) {
            lock.readLock().unlock();
            throw new InvalidStateStoreException("The prepared snapshot is closed");
        }
        return handle;
    }

    void release() {
        lock.readLock().unlock();
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/snapshot_location.rs)

    private static native void cancel0(long handle);

    private static native void free(long handle);
}
