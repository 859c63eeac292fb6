package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * How far a restore's download has come ({@link NativeSnapshotLocation#restoreNewest(
 * SnapshotCalls.RestoreRequest, SnapshotDownloadWatch)}), read from any thread while it runs: a
 * store's metrics read it while its stream thread waits for the download. {@link #close()} waits for
 * a running read, then frees it; read after that, it answers the last figures it read.
 */
public final class SnapshotDownloadWatch implements AutoCloseable {
    static {
        NativeLibrary.load();
    }

    private final long handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private volatile SnapshotCalls.Downloading last = SnapshotCalls.Downloading.NONE;

    private SnapshotDownloadWatch(long handle) {
        this.handle = handle;
    }

    /** A new watch, for one restore, whose download logs its progress every 10 s. */
    public static SnapshotDownloadWatch create() {
        return create(0);
    }

    /**
     * A new watch, for one restore, whose download logs its progress every {@code progressIntervalMs}
     * (0: every 10 s).
     *
     * @throws IllegalArgumentException if {@code progressIntervalMs} is negative
     */
    public static SnapshotDownloadWatch create(long progressIntervalMs) {
        return new SnapshotDownloadWatch(NativeSnapshotLocation.newWatch(progressIntervalMs));
    }

    /** The figures now (after {@link #close()}: the last ones read before it). */
    public SnapshotCalls.Downloading figures() {
        lock.readLock().lock();
        try {
            if (open.get()) {
                last = SnapshotCalls.Downloading.decode(NativeSnapshotLocation.watchFigures(handle));
            }
            return last;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Frees the watch once running calls returned, keeping its last figures. Idempotent. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (open.get()) {
                last = SnapshotCalls.Downloading.decode(NativeSnapshotLocation.watchFigures(handle));
                open.set(false);
                NativeSnapshotLocation.freeWatch(handle);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    long acquire() {
        lock.readLock().lock();
        if (!open.get()) {
            lock.readLock().unlock();
            throw new InvalidStateStoreException("The snapshot download watch is closed");
        }
        return handle;
    }

    void release() {
        lock.readLock().unlock();
    }
}
