package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;

/**
 * A snapshot location (a URI: {@code file:///path}) and the snapshots of stores taken to it and
 * restored from it. Natives in {@code rust/jni/src/snapshot_location.rs}, over the engine's
 * {@code snapshot} module (layout, manifest, checks: see there).
 *
 * <p><b>Ownership.</b> The object owns one native handle, freed once by {@link #close()}, which
 * waits for running calls (a read-write lock, as {@link NativeStore}). Calls may run on several
 * threads at once (a restore at init, an upload in the background).
 *
 * <p><b>Errors:</b> {@link IllegalArgumentException} for a malformed URI or store id,
 * {@link ProcessorStateException} when the location or the local disk fails (its message starts
 * with "snapshot location &lt;uri&gt;" or names the local path).
 */
public final class NativeSnapshotLocation implements AutoCloseable {
    static {
        NativeLibrary.load();
    }

    private final String uri;
    private final long handle;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean open = new AtomicBoolean(true);

    private NativeSnapshotLocation(String uri, long handle) {
        this.uri = uri;
        this.handle = handle;
    }

    /**
     * Opens the location a URI names ({@code s3://bucket/prefix}, {@code az://container/prefix},
     * {@code abfs[s]://...} or {@code file:///path}).
     *
     * @param options for {@code s3://}: {@code object_store}'s S3 keys ({@code aws_endpoint}, ...)
     *     applied on top of the AWS environment; for Azure its Azure keys
     *     ({@code azure_storage_account_name}, ...) on top of the Azure environment; values on one
     *     line each
     * @throws IllegalArgumentException if the URI is malformed, of a scheme this build lacks, or an
     *     option is unknown (the message names the key, never a value)
     */
    public static NativeSnapshotLocation open(String uri, Map<String, String> options) {
        return open(uri, options, 0);
    }

    /** The request timeout of {@link #open(String, Map, long)}: 5 seconds. */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 5_000L;
    /** The I/O threads of {@link #open(String, Map, long)}. */
    public static final int DEFAULT_IO_THREADS = 2;

    /**
     * Opens the location a URI names, sending each file at most {@code uploadBytesPerSecond} on
     * average (0: no limit; restores are never limited); as {@link #open(String, Map)} otherwise.
     *
     * @throws IllegalArgumentException also if {@code uploadBytesPerSecond} is negative
     */
    public static NativeSnapshotLocation open(String uri, Map<String, String> options, long uploadBytesPerSecond) {
        return open(uri, options, uploadBytesPerSecond, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_IO_THREADS);
    }

    /**
     * Opens the location a URI names, as {@link #open(String, Map, long)}, with each request
     * waiting at most {@code requestTimeoutMs} to connect and for its answer (once answering, for
     * its next bytes; sent again at most twice), on the process's snapshot I/O runtime of
     * {@code ioThreads} threads (fixed by the first location a process opens; a different number
     * later is logged and ignored).
     *
     * @throws IllegalArgumentException also if {@code requestTimeoutMs} is not positive or
     *     {@code ioThreads} not 1 to 64
     */
    public static NativeSnapshotLocation open(String uri, Map<String, String> options, long uploadBytesPerSecond,
                                              long requestTimeoutMs, int ioThreads) {
        if (uploadBytesPerSecond < 0) {
            throw new IllegalArgumentException("uploadBytesPerSecond must be at least 0 (0: no limit), not "
                + uploadBytesPerSecond);
        }
        Objects.requireNonNull(uri, "uri cannot be null");
        StringBuilder joined = new StringBuilder();
        options.forEach((key, value) -> {
            if (key.indexOf('=') >= 0 || key.indexOf('\n') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("snapshot location option " + key + ": a key without '=' and a value on"
                    + " one line");
            }
            joined.append(key).append('=').append(value).append('\n');
        });
        return new NativeSnapshotLocation(uri, open0(uri, joined.toString(), uploadBytesPerSecond, requestTimeoutMs,
            ioThreads));
    }

    /** The URI the location was opened with. */
    public String uri() {
        return uri;
    }

    /** A snapshot put in place by {@link #restoreNewest}. */
    public static final class Restored {
        /** The snapshot's number. */
        public final long seq;
        /** Its files. */
        public final long files;
        /** Bytes downloaded. */
        public final long bytes;
        /** Newer snapshots passed over (each logged at WARN with the reason). */
        public final long skipped;
        /** Milliseconds it waited for the location with no byte arriving (what it took of its patience). */
        public final long waitedMs;

        Restored(long seq, long files, long bytes, long skipped, long waitedMs) {
            this.seq = seq;
            this.files = files;
            this.bytes = bytes;
            this.skipped = skipped;
            this.waitedMs = waitedMs;
        }
    }

    /** A snapshot written by {@link #upload}. */
    public static final class Sent {
        /** The snapshot's number. */
        public final long seq;
        /** Its files. */
        public final long files;
        /** Objects sent: files, or what was appended to one since an earlier snapshot (the rest was there). */
        public final long filesSent;
        /** Bytes sent. */
        public final long bytesSent;
        /** The changelog offset it holds (of the store's one changelog partition), or -1. */
        public final long offset;
        /** Objects an earlier snapshot sent that it read back and checked. */
        public final long objectsVerified;
        /** Of those, the objects found missing or damaged (and sent again). */
        public final long objectsDamaged;
        /** Objects sent again: an earlier snapshot had sent them, and they were missing or damaged. */
        public final long objectsResent;

        Sent(long[] r) {
            this.seq = r[0];
            this.files = r[1];
            this.filesSent = r[2];
            this.bytesSent = r[3];
            this.offset = r[4];
            this.objectsVerified = r[5];
            this.objectsDamaged = r[6];
            this.objectsResent = r[7];
        }
    }

    /**
     * Puts the newest usable snapshot of {@code storeId} into {@code dir} (missing or empty): one
     * whose offset the changelog partition still has ({@code start <= offset + 1 <= end}) and whose
     * every file arrives whole (size and checksum). Unusable ones are passed over with a WARN.
     *
     * @param changelog the store's changelog partition
     * @param start its log start offset now
     * @param end its log end offset now
     * @param patienceMs how long in all it waits for the location to answer (time with no byte arriving)
     * @param timeoutMs how long it may take at most
     * @return the snapshot restored, or null when none is usable (the changelog restores everything)
     * @throws IllegalArgumentException if {@code dir} holds files
     * @throws ProcessorStateException when the location fails, does not answer within the patience
     *     (or did not answer a little earlier: it is then skipped for a while), or the time runs out;
     *     {@code dir} is then as it was
     */
    public Restored restoreNewest(String storeId, Path dir, TopicPartition changelog, long start, long end,
                                  long patienceMs, long timeoutMs) {
        acquire();
        try {
            long[] r = longs(restoreNewest(handle, storeId, dir.toString(), changelog.topic(), changelog.partition(),
                start, end, patienceMs, timeoutMs));
            return r == null ? null : new Restored(r[0], r[1], r[2], r[3], r[4]);
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
    public Sent upload(PreparedSnapshot prepared, String storeId) {
        acquire();
        try {
            long preparedHandle = prepared.acquire();
            try {
                return new Sent(longs(upload(handle, preparedHandle, storeId)));
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
     * @return the number of manifests and of files deleted
     */
    public long[] retain(PreparedSnapshot prepared, String storeId, int keep) {
        acquire();
        try {
            long preparedHandle = prepared.acquire();
            try {
                return longs(retain(handle, preparedHandle, storeId, keep));
            } finally {
                prepared.release();
            }
        } finally {
            release();
        }
    }

    /** Frees the location once running calls end. Idempotent. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (open.compareAndSet(true, false)) {
                close(handle);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void acquire() {
        lock.readLock().lock();
        if (!open.get()) {
            lock.readLock().unlock();
            throw new InvalidStateStoreException("Snapshot location " + uri + " is closed");
        }
    }

    private void release() {
        lock.readLock().unlock();
    }

    /** The big-endian longs the natives return (null stays null). */
    static long[] longs(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        long[] values = new long[bytes.length / Long.BYTES];
        for (int i = 0; i < values.length; i++) {
            values[i] = buffer.getLong();
        }
        return values;
    }

    private static native long open0(String uri, String options, long uploadBytesPerSecond, long requestTimeoutMs,
                                     int ioThreads);

    private static native void close(long handle);

    private static native byte[] restoreNewest(long handle, String storeId, String dir, String topic, int partition,
                                               long start, long end, long patienceMs, long timeoutMs);

    private static native long prepare(long storeHandle);

    private static native byte[] upload(long handle, long preparedHandle, String storeId);

    static native void cancel(long preparedHandle);

    static native void release(long preparedHandle);

    private static native byte[] retain(long handle, long preparedHandle, String storeId, int keep);
}
