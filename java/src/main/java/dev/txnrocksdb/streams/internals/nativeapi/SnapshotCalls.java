package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * The records {@link NativeSnapshotLocation}'s natives take and return, whose layouts the format
 * crate owns ({@code rust/format/src/snapshot_calls.rs}): what opening a location takes
 * ({@link LocationOptions}), what a restore is asked ({@link RestoreRequest}), and what a restore
 * ({@link Restored}), a snapshot ({@link Taken}) and a retention ({@link Retained}) answer.
 * {@code SnapshotCallsTest} checks each against the format crate's golden records
 * ({@code rust/format/tests/golden/snapshot_calls.txt}). The values are carried as Java holds
 * them; the engine refuses those it cannot use ({@link IllegalArgumentException} naming the value).
 */
public final class SnapshotCalls {
    /** The version byte every record starts with ({@code snapshot_calls::VERSION}). */
    static final byte VERSION = 2;

    private SnapshotCalls() {}

    /** What opening a snapshot location takes; equal options open the same location. */
    public static final class LocationOptions {
        /** The request timeout unless set: 5 seconds. */
        public static final long DEFAULT_REQUEST_TIMEOUT_MS = 5_000L;
        /** The snapshot I/O threads unless set. */
        public static final int DEFAULT_IO_THREADS = 2;

        private final String uri;
        private final Map<String, String> options;
        private final long uploadBytesPerSecond;
        private final long requestTimeoutMs;
        private final int ioThreads;

        private LocationOptions(Builder builder) {
            this.uri = builder.uri;
            this.options = Collections.unmodifiableMap(new LinkedHashMap<>(builder.options));
            this.uploadBytesPerSecond = builder.uploadBytesPerSecond;
            this.requestTimeoutMs = builder.requestTimeoutMs;
            this.ioThreads = builder.ioThreads;
        }

        /**
         * Options for the location a URI names ({@code s3://bucket/prefix}, {@code az://container/prefix},
         * {@code abfs[s]://...} or {@code file:///path}), with the defaults until set.
         */
        public static Builder builder(String uri) {
            return new Builder(Objects.requireNonNull(uri, "uri cannot be null"));
        }

        /** The location's URI. */
        public String uri() {
            return uri;
        }

        byte[] encode() {
            Encoder out = new Encoder()
                    .str(uri)
                    .putLong(uploadBytesPerSecond)
                    .putLong(requestTimeoutMs)
                    .putInt(ioThreads)
                    .putInt(options.size());
            options.forEach((key, value) -> out.str(key).str(value));
            return out.bytes();
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof LocationOptions)) {
                return false;
            }
            LocationOptions other = (LocationOptions) o;
            return uri.equals(other.uri)
                    && options.equals(other.options)
                    && uploadBytesPerSecond == other.uploadBytesPerSecond
                    && requestTimeoutMs == other.requestTimeoutMs
                    && ioThreads == other.ioThreads;
        }

        @Override
        public int hashCode() {
            return Objects.hash(uri, options, uploadBytesPerSecond, requestTimeoutMs, ioThreads);
        }

        /** The URI and the numbers; never the options' values, which may be secrets. */
        @Override
        public String toString() {
            return "LocationOptions{uri=" + uri + ", options=" + options.keySet() + ", uploadBytesPerSecond="
                    + uploadBytesPerSecond + ", requestTimeoutMs=" + requestTimeoutMs + ", ioThreads=" + ioThreads
                    + "}";
        }

        /** Sets {@link LocationOptions}' values. */
        public static final class Builder {
            private final String uri;
            private Map<String, String> options = Map.of();
            private long uploadBytesPerSecond;
            private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
            private int ioThreads = DEFAULT_IO_THREADS;

            private Builder(String uri) {
                this.uri = uri;
            }

            /**
             * The object store's own options: for {@code s3://}, {@code object_store}'s S3 keys
             * ({@code aws_endpoint}, ...) applied on top of the AWS environment; for Azure its Azure
             * keys ({@code azure_storage_account_name}, ...) on top of the Azure environment. An
             * unknown key fails the open, naming the key, never a value.
             */
            public Builder options(Map<String, String> options) {
                this.options = Objects.requireNonNull(options, "options cannot be null");
                return this;
            }

            /** Each file sent at most this fast on average (0, the default: no limit; restores never are). */
            public Builder uploadBytesPerSecond(long uploadBytesPerSecond) {
                this.uploadBytesPerSecond = uploadBytesPerSecond;
                return this;
            }

            /**
             * How long each request waits to connect and for its answer (once answering, for its
             * next bytes) before it is sent again (at most twice) or fails.
             */
            public Builder requestTimeoutMs(long requestTimeoutMs) {
                this.requestTimeoutMs = requestTimeoutMs;
                return this;
            }

            /**
             * The threads of the process's snapshot I/O runtime, 1 to 64 (fixed by the first
             * location a process opens; a different number later is logged and ignored).
             */
            public Builder ioThreads(int ioThreads) {
                this.ioThreads = ioThreads;
                return this;
            }

            public LocationOptions build() {
                return new LocationOptions(this);
            }
        }
    }

    /** What a restore of a store's newest usable snapshot is asked. */
    public static final class RestoreRequest {
        private final String storeId;
        private final Path dir;
        private final TopicPartition changelog;
        private final long start;
        private final long end;
        private final long patienceMs;
        private final long timeoutMs;
        private final boolean ttl;

        private RestoreRequest(Builder builder) {
            this.storeId = builder.storeId;
            this.dir = builder.dir;
            this.changelog = Objects.requireNonNull(builder.changelog, "the changelog partition must be set");
            this.start = builder.start;
            this.end = builder.end;
            this.patienceMs = builder.patienceMs;
            this.timeoutMs = builder.timeoutMs;
            this.ttl = builder.ttl;
        }

        /**
         * A restore of the snapshots of {@code storeId} (the store's id at the location) into
         * {@code dir} (the store's directory, missing or empty); its changelog and its waiting
         * are set before {@link Builder#build()}.
         */
        public static Builder builder(String storeId, Path dir) {
            return new Builder(
                    Objects.requireNonNull(storeId, "storeId cannot be null"),
                    Objects.requireNonNull(dir, "dir cannot be null"));
        }

        /** Sets {@link RestoreRequest}'s values. */
        public static final class Builder {
            private final String storeId;
            private final Path dir;
            private TopicPartition changelog;
            private long start;
            private long end;
            private long patienceMs;
            private long timeoutMs;
            private boolean ttl;

            private Builder(String storeId, Path dir) {
                this.storeId = storeId;
                this.dir = dir;
            }

            /**
             * The store's changelog partition and its log start and end offsets now: a snapshot
             * whose offset the partition no longer has ({@code start <= offset + 1 <= end}) is
             * not usable.
             */
            public Builder changelog(TopicPartition changelog, long start, long end) {
                this.changelog = Objects.requireNonNull(changelog, "changelog cannot be null");
                this.start = start;
                this.end = end;
                return this;
            }

            /**
             * How long in all the restore may wait for the location to answer (time with no
             * byte arriving), and how long it may take at most; both more than 0.
             */
            public Builder waiting(long patienceMs, long timeoutMs) {
                this.patienceMs = patienceMs;
                this.timeoutMs = timeoutMs;
                return this;
            }

            /**
             * Whether the store opens with a time-to-live (false unless set): a snapshot of a store
             * whose rows are in the other layout is not usable.
             */
            public Builder ttl(boolean ttl) {
                this.ttl = ttl;
                return this;
            }

            public RestoreRequest build() {
                return new RestoreRequest(this);
            }
        }

        byte[] encode() {
            return new Encoder()
                    .str(storeId)
                    .str(dir.toString())
                    .str(changelog.topic())
                    .putInt(changelog.partition())
                    .putLong(start)
                    .putLong(end)
                    .putLong(patienceMs)
                    .putLong(timeoutMs)
                    .putFlag(ttl)
                    .bytes();
        }
    }

    /**
     * What listing a location's snapshots is asked ({@code ListRequest}): one store's or every
     * store's, and optionally changelog partitions as they are now, against which each usable
     * snapshot is checked as a restore now would check it ({@link Listed.Snapshot#changelogRefuses}).
     */
    public static final class ListRequest {
        private final String storeId;
        private final long patienceMs;
        private final long timeoutMs;
        private final Map<TopicPartition, long[]> changelogs;

        /**
         * @param storeId the store whose snapshots are listed, or null for every store's
         * @param patienceMs the waiting it puts up with in all, with nothing arriving from the location
         * @param timeoutMs when it gives up, done or not
         */
        public ListRequest(String storeId, long patienceMs, long timeoutMs) {
            this(storeId, patienceMs, timeoutMs, new java.util.LinkedHashMap<>());
        }

        private ListRequest(String storeId, long patienceMs, long timeoutMs, Map<TopicPartition, long[]> changelogs) {
            this.storeId = storeId == null ? "" : storeId;
            this.patienceMs = patienceMs;
            this.timeoutMs = timeoutMs;
            this.changelogs = changelogs;
        }

        /**
         * This request with a changelog partition's log start and end offsets now: a snapshot of
         * it whose offset the partition no longer has ({@code start <= offset + 1 <= end}) is one
         * a restore now passes over.
         */
        public ListRequest changelog(TopicPartition partition, long start, long end) {
            Map<TopicPartition, long[]> more = new java.util.LinkedHashMap<>(changelogs);
            more.put(Objects.requireNonNull(partition, "partition cannot be null"), new long[] {start, end});
            return new ListRequest(storeId, patienceMs, timeoutMs, more);
        }

        byte[] encode() {
            Encoder out = new Encoder().str(storeId).putLong(patienceMs).putLong(timeoutMs);
            out.putInt(changelogs.size());
            changelogs.forEach((partition, range) -> out.str(partition.topic())
                    .putInt(partition.partition())
                    .putLong(range[0])
                    .putLong(range[1]));
            return out.bytes();
        }
    }

    /** A snapshot a restore put in place. */
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

        private Restored(RecordDecoder in) {
            this.seq = in.getLong();
            this.files = in.getLong();
            this.bytes = in.getLong();
            this.skipped = in.getLong();
            this.waitedMs = in.getLong();
        }

        /** The answer record, or null for none (no usable snapshot). */
        static Restored decode(byte[] bytes) {
            if (bytes == null) {
                return null;
            }
            RecordDecoder in = new RecordDecoder(bytes, "snapshot restore answer", VERSION);
            return in.end(new Restored(in));
        }
    }

    /**
     * How far a restore's download has come ({@code DownloadProgress}, read by a
     * {@link SnapshotDownloadWatch}): the snapshot being downloaded, bytes received of its total,
     * milliseconds since its download started.
     */
    public static final class Downloading {
        /** Before any download started. */
        public static final Downloading NONE = new Downloading(-1, 0, 0, 0);

        /** The snapshot being downloaded; -1 before any. */
        public final long seq;

        public final long doneBytes;
        public final long totalBytes;
        public final long elapsedMs;

        private Downloading(long seq, long doneBytes, long totalBytes, long elapsedMs) {
            this.seq = seq;
            this.doneBytes = doneBytes;
            this.totalBytes = totalBytes;
            this.elapsedMs = elapsedMs;
        }

        static Downloading decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, "snapshot download progress", VERSION);
            return in.end(new Downloading(in.getLong(), in.getLong(), in.getLong(), in.getLong()));
        }
    }

    /** A snapshot written. */
    public static final class Taken {
        /** The snapshot's number. */
        public final long seq;
        /** Its files. */
        public final long files;
        /** Objects sent: files, or what was appended to one since an earlier snapshot (the rest was there). */
        public final long objectsSent;
        /** Bytes sent. */
        public final long bytesSent;
        /** Objects an earlier snapshot sent that it read back and checked. */
        public final long objectsVerified;
        /** Of those, the objects found missing or damaged (and sent again). */
        public final long objectsDamaged;
        /** Objects sent again: an earlier snapshot had sent them, and they were missing or damaged. */
        public final long objectsResent;
        /** The changelog offsets it holds. */
        public final Map<TopicPartition, Long> offsets;

        private Taken(RecordDecoder in) {
            this.seq = in.getLong();
            this.files = in.getLong();
            this.objectsSent = in.getLong();
            this.bytesSent = in.getLong();
            this.objectsVerified = in.getLong();
            this.objectsDamaged = in.getLong();
            this.objectsResent = in.getLong();
            this.offsets = in.offsets();
        }

        static Taken decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, "snapshot take answer", VERSION);
            return in.end(new Taken(in));
        }

        /** The offset it holds of the store's one changelog partition, or -1 where it holds none. */
        public long changelogOffset() {
            return offsets.isEmpty() ? -1 : offsets.values().iterator().next();
        }
    }

    /** What keeping a store's newest snapshots deleted. */
    public static final class Retained {
        /** Manifests (snapshots) deleted. */
        public final long manifestsDeleted;
        /** Objects no kept snapshot references, deleted. */
        public final long objectsDeleted;

        private Retained(RecordDecoder in) {
            this.manifestsDeleted = in.getLong();
            this.objectsDeleted = in.getLong();
        }

        static Retained decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, "snapshot retain answer", VERSION);
            return in.end(new Retained(in));
        }
    }

    /**
     * What listing a location's snapshots answers ({@code ListAnswer}): every snapshot found, by
     * store id, then number.
     */
    public static final class Listed {
        /** The snapshots, by store id, then number. */
        public final java.util.List<Snapshot> snapshots;

        private Listed(RecordDecoder in) {
            int count = in.count(52);
            java.util.List<Snapshot> all = new java.util.ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                all.add(new Snapshot(in));
            }
            this.snapshots = Collections.unmodifiableList(all);
        }

        static Listed decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, "snapshot list answer", VERSION);
            return in.end(new Listed(in));
        }

        /** One snapshot at a location, as its manifest says. */
        public static final class Snapshot {
            /** The store it belongs to: {@code <application.id>/<store>/<partition>-<changelog topic id>}. */
            public final String storeId;
            /** Its number among the store's snapshots (newest highest). */
            public final long seq;
            /** When it was taken, in milliseconds since the epoch (0 where {@link #problem} is set). */
            public final long createdMs;

            public final long files;
            /** The bytes of its files (of its manifest where {@link #problem} is set). */
            public final long bytes;

            public final boolean transactional;
            /** The strategy's code ({@code open_options}); meaningless when not {@link #transactional}. */
            public final int strategy;

            public final ValueFormat valueFormat;
            /** Whether it holds a store with a time-to-live (only such a store may restore it). */
            public final boolean ttl;
            /** Why its manifest cannot be used; empty when it can. */
            public final String problem;
            /**
             * Why a restore now would pass it over for its changelog as the request gave it (the
             * partition no longer has its offset); empty when it would not, or when the request
             * gave no changelog of it.
             */
            public final String changelogRefuses;
            /** The changelog offsets it holds, in the record's order. */
            public final Map<TopicPartition, Long> offsets;

            private Snapshot(RecordDecoder in) {
                this.storeId = in.str("a store id");
                this.seq = in.getLong();
                this.createdMs = in.getLong();
                this.files = in.getLong();
                this.bytes = in.getLong();
                this.transactional = in.flag("transactional");
                this.strategy = in.u8();
                int format = in.u8();
                this.ttl = in.flag("ttl");
                this.problem = in.str("a problem");
                this.changelogRefuses = in.str("a changelog's refusal");
                this.valueFormat = in.valueFormat(format);
                this.offsets = in.offsets();
            }
        }
    }

    /** Writes a record: the version byte, then big-endian fields. */
    private static final class Encoder {
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

        Encoder() {
            out.write(VERSION);
        }

        Encoder putInt(int value) {
            out.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(value).array());
            return this;
        }

        Encoder putFlag(boolean value) {
            out.write(value ? 1 : 0);
            return this;
        }

        Encoder putLong(long value) {
            out.writeBytes(ByteBuffer.allocate(Long.BYTES).putLong(value).array());
            return this;
        }

        Encoder str(String value) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            putInt(bytes.length);
            out.writeBytes(bytes);
            return this;
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
