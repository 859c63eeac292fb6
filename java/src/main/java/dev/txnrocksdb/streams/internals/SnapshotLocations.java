package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The snapshot locations the stores of the process have open, one per URI and settings, shared:
 * one HTTP client and connection pool, one record of a location that did not answer (so that the
 * stores opening after one that waited for it in vain skip it), however many stores use it. A
 * location is closed when the last store using it lets it go.
 */
final class SnapshotLocations {
    private static final Map<Key, Shared> OPEN = new HashMap<>();

    private SnapshotLocations() {}

    /**
     * What makes two locations the same. (A class, not a record: the Gradle build, Debian's Gradle
     * 4.4, compiles below the language level records need.)
     */
    private static final class Key {
        private final String uri;
        private final Map<String, String> options;
        private final long uploadBytesPerSecond;
        private final long requestTimeoutMs;

        Key(String uri, Map<String, String> options, long uploadBytesPerSecond, long requestTimeoutMs) {
            this.uri = uri;
            this.options = Map.copyOf(options);
            this.uploadBytesPerSecond = uploadBytesPerSecond;
            this.requestTimeoutMs = requestTimeoutMs;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key other = (Key) o;
            return uri.equals(other.uri) && options.equals(other.options)
                && uploadBytesPerSecond == other.uploadBytesPerSecond && requestTimeoutMs == other.requestTimeoutMs;
        }

        @Override
        public int hashCode() {
            return Objects.hash(uri, options, uploadBytesPerSecond, requestTimeoutMs);
        }
    }

    private static final class Shared {
        final NativeSnapshotLocation location;
        int users;

        Shared(NativeSnapshotLocation location) {
            this.location = location;
        }
    }

    /** One store's use of a shared location; {@link #close()} lets it go (once). */
    static final class Lease implements AutoCloseable {
        private final Key key;
        private final NativeSnapshotLocation location;
        private boolean closed;

        private Lease(Key key, NativeSnapshotLocation location) {
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
     * The location at {@code uri} with the store's settings, opened by the first store that asks.
     *
     * @throws IllegalArgumentException if it cannot be opened (a malformed URI, an unknown option)
     */
    static synchronized Lease acquire(String uri, StoreSettings settings) {
        Key key = new Key(uri, settings.snapshotOptions(), settings.snapshotUploadBytesPerSecond(),
            settings.snapshotRequestTimeoutMs());
        Shared shared = OPEN.get(key);
        if (shared == null) {
            shared = new Shared(NativeSnapshotLocation.open(uri, settings.snapshotOptions(),
                settings.snapshotUploadBytesPerSecond(), settings.snapshotRequestTimeoutMs(), settings.snapshotIoThreads()));
            OPEN.put(key, shared);
        }
        shared.users++;
        return new Lease(key, shared.location);
    }

    /** How many locations are open (tests). */
    static synchronized int openCount() {
        return OPEN.size();
    }
}
