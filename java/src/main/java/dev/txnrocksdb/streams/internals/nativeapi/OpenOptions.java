package dev.txnrocksdb.streams.internals.nativeapi;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What opening any native store takes besides its directory (the engine's {@code StoreOptions}).
 * It crosses JNI as one record, {@code encode()}, whose layout and enumeration codes the format
 * crate owns ({@code rust/format/src/open_options.rs}); every kind's native {@code open} takes it.
 * (A class rather than a record: the Gradle build also compiles with Gradle 4.4, which knows no
 * source level past 12.)
 */
public final class OpenOptions {
    /** The record's version byte ({@code open_options::VERSION}). */
    private static final byte VERSION = 1;

    private final boolean transactional;
    private final boolean syncCommit;
    private final TransactionStrategy strategy;
    private final CorruptionPolicy corruption;
    private final ValueFormat valueFormat;
    private final boolean statistics;
    private final String rocksDBOptions;
    private final String storeRocksDBOptions;
    private final long spillBytes;

    /**
     * @param transactional true: writes are staged until {@link NativeStore#commit}; false: write-through
     * @param syncCommit true: fsync the write-ahead log on every commit (survives power loss)
     * @param strategy where a transactional store keeps uncommitted writes (ignored when not
     *     transactional, but checked)
     * @param corruption what opening does when it finds the store's files damaged
     * @param valueFormat the format of the values the store holds
     * @param statistics whether RocksDB collects its statistics for the store (bytes written and
     *     read, block cache hits), which cost a little on every operation; Kafka's RocksDB stores
     *     collect them only under {@code metrics.recording.level=DEBUG}
     * @param rocksDBOptions the RocksDB options for every store ({@code txn.rocksdb.options}; may be empty)
     * @param storeRocksDBOptions this store's own RocksDB options, applied after them (may be empty)
     * @param spillBytes under {@code secondary-store}, the bytes of keys and values a transaction keeps
     *     in memory before they spill to the temporary store (0: every write spills at once); ignored
     *     by the other strategies. Not checked here: the configuration refuses a negative value, and
     *     so does the native open ({@code IllegalArgumentException})
     * @throws NullPointerException if {@code strategy}, {@code corruption}, {@code valueFormat} or an
     *     options string is null
     */
    public OpenOptions(boolean transactional, boolean syncCommit, TransactionStrategy strategy, CorruptionPolicy corruption,
                       ValueFormat valueFormat, boolean statistics, String rocksDBOptions, String storeRocksDBOptions,
                       long spillBytes) {
        this.transactional = transactional;
        this.syncCommit = syncCommit;
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.corruption = Objects.requireNonNull(corruption, "corruption");
        this.valueFormat = Objects.requireNonNull(valueFormat, "valueFormat");
        this.statistics = statistics;
        this.rocksDBOptions = Objects.requireNonNull(rocksDBOptions, "rocksDBOptions");
        this.storeRocksDBOptions = Objects.requireNonNull(storeRocksDBOptions, "storeRocksDBOptions");
        this.spillBytes = spillBytes;
    }

    /** Whether writes are staged until the commit (false: write-through). */
    public boolean transactional() {
        return transactional;
    }

    /** Whether every commit fsyncs the write-ahead log. */
    public boolean syncCommit() {
        return syncCommit;
    }

    /** Where a transactional store keeps uncommitted writes. */
    public TransactionStrategy strategy() {
        return strategy;
    }

    /** What opening does when it finds the store's files damaged. */
    public CorruptionPolicy corruption() {
        return corruption;
    }

    /** The format of the values the store holds. */
    public ValueFormat valueFormat() {
        return valueFormat;
    }

    /** Whether RocksDB collects its statistics for the store. */
    public boolean statistics() {
        return statistics;
    }

    /** The RocksDB options for every store (RocksDB's option-string syntax; may be empty). */
    public String rocksDBOptions() {
        return rocksDBOptions;
    }

    /** This store's own RocksDB options, applied after {@link #rocksDBOptions()} (may be empty). */
    public String storeRocksDBOptions() {
        return storeRocksDBOptions;
    }

    /**
     * Under {@code secondary-store}, the bytes of keys and values a transaction keeps in memory
     * before they spill to the temporary store (the engine's {@code StoreOptions::spill_bytes}).
     */
    public long spillBytes() {
        return spillBytes;
    }

    /**
     * The record every native {@code open} takes, in the layout of {@code rust/format/src/open_options.rs}
     * (big-endian): {@code [int8 version][int8 transactional][int8 syncCommit][int8 statistics]
     * [int8 strategy][int8 corruption][int8 valueFormat][int64 spillBytes][int32 len][rocksDBOptions UTF-8]
     * [int32 len][storeRocksDBOptions UTF-8]}. {@code OpenOptionsTest} checks it against the format
     * crate's golden records ({@code rust/format/tests/golden/open_options.txt}).
     */
    byte[] encode() {
        byte[] every = rocksDBOptions.getBytes(StandardCharsets.UTF_8);
        byte[] own = storeRocksDBOptions.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(7 + Long.BYTES + Integer.BYTES + every.length + Integer.BYTES + own.length);
        out.put(VERSION).put(flag(transactional)).put(flag(syncCommit)).put(flag(statistics));
        out.put(code(strategy)).put(corruption.code()).put(valueFormat.code());
        out.putLong(spillBytes);
        out.putInt(every.length).put(every).putInt(own.length).put(own);
        return out.array();
    }

    private static byte flag(boolean value) {
        return (byte) (value ? 1 : 0);
    }

    /** The format crate's {@code open_options::Strategy::code}. */
    private static byte code(TransactionStrategy strategy) {
        switch (strategy) {
            case INDEXED_BATCH:
                return 0;
            case SECONDARY_STORE:
                return 1;
            default:
                throw new IllegalArgumentException("no native code for transaction strategy " + strategy);
        }
    }

    @Override
    public String toString() {
        return "OpenOptions{transactional=" + transactional + ", syncCommit=" + syncCommit + ", strategy=" + strategy
            + ", corruption=" + corruption + ", valueFormat=" + valueFormat + ", statistics=" + statistics + ", rocksDBOptions=" + rocksDBOptions + ", storeRocksDBOptions="
            + storeRocksDBOptions + ", spillBytes=" + spillBytes + "}";
    }
}
