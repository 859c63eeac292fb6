package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * RocksDB option strings for the stores ({@code txn.rocksdb.options}), checked by RocksDB's own
 * parser and by the engine's list of options correctness depends on, when the configuration is
 * read (each store's open then takes its strings in {@link OpenOptions}). Natives in
 * {@code rust/jni/src/tuning.rs}; the rules in {@code rust/core/src/tuning.rs}.
 */
public final class NativeTuning {
    static {
        NativeLibrary.load();
    }

    private NativeTuning() {}

    /**
     * Checks an option string as a store's open would.
     *
     * @throws IllegalArgumentException with RocksDB's message, or naming an option txn-rocksdb
     *     does not let anyone change and why
     */
    public static void check(String options) {
        validate(options);
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/tuning.rs)

    private static native void validate(String options);
}
