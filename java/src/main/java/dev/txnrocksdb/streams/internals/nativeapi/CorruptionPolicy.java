package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * What opening a native store does when it finds its files damaged (the engine's
 * {@code CorruptionPolicy}): a write-ahead log damaged before its end, or damage that leaves no
 * commit the store can prove it holds (an SST file, the MANIFEST, a commit record that does not
 * decode). A torn last WAL record, as a power loss leaves, is not damage and is dropped. Whatever
 * the policy, a store that opens holds exactly the state of the commit its offsets name.
 * {@code StoreSettings} chooses one from {@code txn.rocksdb.wal.corruption} and whether the store
 * has a changelog.
 */
public enum CorruptionPolicy {
    /** Refuse to open, with a {@code ProcessorStateException} saying what was found; files stay untouched. */
    REFUSE(0),
    /**
     * A damaged WAL opens at the last commit before the damage, with a warning (every later commit
     * is lost from the store); other damage refuses.
     */
    OPEN_AT_LAST_CONSISTENT_COMMIT(1),
    /**
     * For a store with a changelog: a damaged WAL opens at the last commit before the damage (Kafka
     * Streams restores the later ones); damage that leaves no provable commit deletes the store's
     * files and opens it empty, without offsets, so Kafka Streams restores all of it from the
     * changelog. Logged at WARN and counted in the store's {@code wipes-total} metric.
     */
    RESTORE_FROM_CHANGELOG(2);

    private final byte code;

    CorruptionPolicy(int code) {
        this.code = (byte) code;
    }

    /**
     * The byte {@link OpenOptions#encode()} sends for it: the format crate's {@code CorruptionPolicy::code}
     * ({@code rust/format/src/open_options.rs}), checked by {@code OpenOptionsTest} against golden records.
     */
    byte code() {
        return code;
    }
}
