package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls;
import java.util.HashMap;
import java.util.Map;

/**
 * The snapshot locations the stores of the process have open, one per location options, shared:
 * one HTTP client and connection pool, one record of a location that did not answer (so that the
 * stores opening after one that waited for it in vain skip it), however many stores use it. A
 * location is closed when the last store using it lets it go.
 */
final class SnapshotLocations {
    private static final Map<SnapshotCalls.LocationOptions, Shared> OPEN = new HashMap<>();

    private SnapshotLocations() {}

    private static final class Shared {
        final NativeSnapshotLocation location;
        int users;

        Shared(NativeSnapshotLocation location) {
            this.location = location;
        }
    }

    /** One store's use of a shared location; {@link #close()} lets it go (once). */
    static final class Lease implements AutoCloseable {
        private final SnapshotCalls.LocationOptions key;
        private final NativeSnapshotLocation location;
        private boolean closed;

        private Lease(SnapshotCalls.LocationOptions key, NativeSnapshotLocation location) {
            this.key = key;
            this.location = location;
        }

        NativeSnapshotLocation location() {
            return location;
        }

        @Override
        public void close() {
            synchronized (SnapshotLocations.class) {
                if (closed) {
                    return;
                }
                closed = true;
                Shared shared = OPEN.get(key);
                if (shared != null && --shared.users == 0) {
                    OPEN.remove(key);
                    shared.location.close();
                }
            }
        }
    }

    /**
     * The location {@code options} describe, opened by the first store that asks (equal options
     * share one location).
     *
     * @throws IllegalArgumentException if it cannot be opened (a malformed URI, an unknown option)
     */
    static synchronized Lease acquire(SnapshotCalls.LocationOptions options) {
        Shared shared = OPEN.get(options);
        if (shared == null) {
            shared = new Shared(NativeSnapshotLocation.open(options));
            OPEN.put(options, shared);
        }
        shared.users++;
        return new Lease(options, shared.location);
    }

    /** How many locations are open (tests). */
    static synchronized int openCount() {
        return OPEN.size();
    }
}
