package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * A checkpoint of a store taken for a snapshot ({@link NativeSnapshotLocation#prepare}), waiting to
 * be sent ({@link NativeSnapshotLocation#upload}). It needs nothing of the store: the store may
 * commit and close meanwhile. {@link #cancel()} may be called from any thread while it is sent;
 * {@link #close()} waits for the upload to return, then frees it and deletes the checkpoint.
 */
public final class PreparedSnapshot extends NativeHandle {
    PreparedSnapshot(long handle) {
        super(handle);
    }

    /** Makes a running or later upload stop before it writes the snapshot's manifest. */
    public void cancel() {
        ifOpen(PreparedSnapshot::cancel0);
    }

    @Override
    void dispose(long handle) {
        free(handle);
    }

    @Override
    String closedMessage() {
        return "The prepared snapshot is closed";
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/snapshot_location.rs)

    private static native void cancel0(long handle);

    private static native void free(long handle);
}
