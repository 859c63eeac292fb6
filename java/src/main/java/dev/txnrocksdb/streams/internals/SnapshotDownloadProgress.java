package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotDownloadWatch;

/**
 * A store's snapshot download while it runs, for its metrics: the figures of the download's progress
 * lines (bytes left of the snapshot's total, the share done, the time left at the rate so far), and
 * "nothing to download" (0, 1, 0) when none is running. The store's metrics read it while its
 * stream thread waits in the download, which is why they are registered before the store opens.
 */
final class SnapshotDownloadProgress {
    private volatile SnapshotDownloadWatch running;

    /** The download {@code watch} watches runs from now until {@link #ended()}. */
    void started(SnapshotDownloadWatch watch) {
        running = watch;
    }

    /** The download ended. */
    void ended() {
        running = null;
    }

    /** Bytes the running download still has to receive; 0 when none runs. */
    long remainingBytes() {
        SnapshotCalls.Downloading now = figures();
        return now == null ? 0 : Math.max(0, now.totalBytes - now.doneBytes);
    }

    /** Bytes received over the snapshot's total (0 to 1); 1 when no download runs. */
    double progressRatio() {
        SnapshotCalls.Downloading now = figures();
        if (now == null || now.totalBytes <= 0) return 1.0;
        return Math.min(1.0, (double) now.doneBytes / now.totalBytes);
    }

    /** Seconds the running download takes still, at its average rate so far; 0 when none runs, -1 while unknown. */
    long remainingSeconds() {
        SnapshotCalls.Downloading now = figures();
        if (now == null) return 0;
        long left = Math.max(0, now.totalBytes - now.doneBytes);
        if (left == 0) return 0;
        if (now.doneBytes <= 0 || now.elapsedMs <= 0) return -1;
        double bytesPerMs = (double) now.doneBytes / now.elapsedMs;
        return (long) Math.ceil(left / bytesPerMs / 1000.0);
    }

    /** The running download's figures, or null when none runs (or it has not reached its first snapshot). */
    private SnapshotCalls.Downloading figures() {
        SnapshotDownloadWatch watch = running;
        if (watch == null) return null;
        SnapshotCalls.Downloading now = watch.figures();
        return now.seq < 0 ? null : now;
    }
}
