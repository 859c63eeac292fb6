package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;

/**
 * A snapshot location ({@code s3://}, {@code az://}, {@code abfs[s]://} or {@code file://}) and
 * the snapshots of stores taken to it and restored from it. Natives in
 * {@code rust/jni/src/snapshot_location.rs}, over the engine's {@code snapshot} module (layout,
 * manifest, checks: see there); what they take and return are {@link SnapshotCalls}' records.
 *
 * <p><b>Ownership.</b> The object owns one native handle, freed once by {@link #close()}, which
 * waits for running calls (a read-write lock, as {@link NativeStore}). Calls may run on several
 * threads at once (a restore at init, an upload in the background).
 *
 * <p><b>Errors:</b> {@link IllegalArgumentException} for a malformed URI or store id,
 * {@link ProcessorStateException} when the location or the local disk fails (its message starts
 * with "snapshot location &lt;uri&gt;" or names the local path).
 */
public final class NativeSnapshotLocation extends NativeHandle {
    private final String uri;

    private NativeSnapshotLocation(String uri, long handle) {
        super(handle);
        this.uri = uri;
    }

    /**
     * Opens the location {@code options} describe (its URI, the object store's options, the
     * request timeout, the upload limit, the I/O threads: {@link SnapshotCalls.LocationOptions}).
     *
     * @throws IllegalArgumentException if the URI is malformed, of a scheme this build lacks, an
     *     option is unknown (the message names the key, never a value), the upload limit is
     *     negative, the request timeout not positive or the I/O threads not 1 to 64
     */
    public static NativeSnapshotLocation open(SnapshotCalls.LocationOptions options) {
        return new NativeSnapshotLocation(options.uri(), open0(options.encode()));
    }

    /** Opens the location a URI names with the object store's {@code options} and the defaults otherwise. */
    public static NativeSnapshotLocation open(String uri, Map<String, String> options) {
        return open(SnapshotCalls.LocationOptions.builder(uri).options(options).build());
    }

    /** The URI the location was opened with. */
    public String uri() {
        return uri;
    }

    /**
     * Puts the newest usable snapshot of the request's store into its directory (missing or
     * empty): one whose offset the changelog partition still has ({@code start <= offset + 1 <= end})
     * and whose every file arrives whole (size and checksum). Unusable ones are passed over with a
     * WARN.
     *
     * @return the snapshot restored, or null when none is usable (the changelog restores everything)
     * @throws IllegalArgumentException if the directory holds files
     * @throws ProcessorStateException when the location fails, does not answer within the patience
     *     (or did not answer a little earlier: it is then skipped for a while), or the time runs out;
     *     the directory is then as it was
     */
    public SnapshotCalls.Restored restoreNewest(SnapshotCalls.RestoreRequest request) {
        try (SnapshotDownloadWatch watch = SnapshotDownloadWatch.create()) {
            return restoreNewest(request, watch);
        }
    }

    /**
     * {@link #restoreNewest(SnapshotCalls.RestoreRequest)}, with how far its download has come in
     * {@code watch} while it runs (read from another thread).
     */
    public SnapshotCalls.Restored restoreNewest(SnapshotCalls.RestoreRequest request, SnapshotDownloadWatch watch) {
        Objects.requireNonNull(request, "request cannot be null");
        long handle = acquire();
        try {
            long watchHandle = watch.acquire();
            try {
                return SnapshotCalls.Restored.decode(restoreNewest(handle, request.encode(), watchHandle));
            } finally {
                watch.release();
            }
        } finally {
            release();
        }
    }

    /**
     * Takes the checkpoint of {@code store} for a snapshot, on the calling thread (between two of
     * its commits; commits wait while it is taken). The caller owns the result and sends it with
     * {@link #upload}.
     *
     * @throws InvalidStateStoreException if the store is closed
     */
    public static PreparedSnapshot prepare(NativeStore store) {
        long storeHandle = store.acquire();
        try {
            return new PreparedSnapshot(prepare(storeHandle));
        } finally {
            store.release();
        }
    }

    /**
     * Sends a prepared snapshot and writes its manifest (the snapshot exists from then on), on
     * any thread. {@link PreparedSnapshot#cancel()} stops it at once, before the manifest.
     *
     * @throws ProcessorStateException if the location or the disk fails, or it was cancelled
     */
    public SnapshotCalls.Taken upload(PreparedSnapshot prepared, String storeId) {
        long handle = acquire();
        try {
            long preparedHandle = prepared.acquire();
            try {
                return SnapshotCalls.Taken.decode(upload(handle, preparedHandle, storeId));
            } finally {
                prepared.release();
            }
        } finally {
            release();
        }
    }

    /**
     * Keeps the newest {@code keep} snapshots of the store, deleting the others and the files no
     * kept one references (never those of a snapshot being written); after {@code prepared} was
     * sent, and cancelled with it ({@link PreparedSnapshot#cancel()}).
     *
     * @return what it deleted
     */
    public SnapshotCalls.Retained retain(PreparedSnapshot prepared, String storeId, int keep) {
        long handle = acquire();
        try {
            long preparedHandle = prepared.acquire();
            try {
                return SnapshotCalls.Retained.decode(retain(handle, preparedHandle, storeId, keep));
            } finally {
                prepared.release();
            }
        } finally {
            release();
        }
    }

    /**
     * Every snapshot at the location the request asks for (one store's or every store's): what
     * each manifest says, or why it cannot be used, and why a restore now would pass it over for
     * the request's changelogs; by store id, then number. Reads only.
     *
     * @throws ProcessorStateException if the location fails or does not answer in time
     */
    public SnapshotCalls.Listed list(SnapshotCalls.ListRequest request) {
        Objects.requireNonNull(request, "request cannot be null");
        long handle = acquire();
        try {
            return SnapshotCalls.Listed.decode(list0(handle, request.encode()));
        } finally {
            release();
        }
    }

    @Override
    void dispose(long handle) {
        close(handle);
    }

    @Override
    String closedMessage() {
        return "Snapshot location " + uri + " is closed";
    }

    private static native long open0(byte[] options);

    private static native void close(long handle);

    private static native byte[] restoreNewest(long handle, byte[] request, long watchHandle);

    static native long newWatch(long progressIntervalMs);

    static native byte[] watchFigures(long watchHandle);

    static native void freeWatch(long watchHandle);

    private static native long prepare(long storeHandle);

    private static native byte[] upload(long handle, long preparedHandle, String storeId);

    private static native byte[] retain(long handle, long preparedHandle, String storeId, int keep);

    private static native byte[] list0(long handle, byte[] request);
}
