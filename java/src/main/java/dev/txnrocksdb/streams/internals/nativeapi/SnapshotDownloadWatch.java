package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * How far a restore's download has come ({@link NativeSnapshotLocation#restoreNewest(
 * SnapshotCalls.RestoreRequest, SnapshotDownloadWatch)}), read from any thread while it runs: a
 * store's metrics read it while its stream thread waits for the download. {@link #close()} waits for
 * a running read, then frees it; read after that, it answers the last figures it read.
 */
public final class SnapshotDownloadWatch extends NativeHandle {
    private volatile SnapshotCalls.Downloading last = SnapshotCalls.Downloading.NONE;

    private SnapshotDownloadWatch(long handle) {
        super(handle);
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
        ifOpen(this::read);
        return last;
    }

    private void read(long handle) {
        last = SnapshotCalls.Downloading.decode(NativeSnapshotLocation.watchFigures(handle));
    }

    @Override
    void beforeFree(long handle) {
        read(handle);
    }

    @Override
    void dispose(long handle) {
        NativeSnapshotLocation.freeWatch(handle);
    }

    @Override
    String closedMessage() {
        return "The snapshot download watch is closed";
    }
}
