package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The format of the values a store holds (the engine's {@code ValueFormat}; it stores values as
 * opaque bytes). The store records it; one opened in a newer format than it was written in
 * upgrades its entries once at open, with Kafka's conversions (a timestamped store opened as a
 * store with headers gets empty headers in front of every value, as
 * {@code HeadersBytesStore.convertToHeaderFormat} does), and one opened in a format it cannot be
 * converted to refuses with a {@code ProcessorStateException} saying so.
 */
public enum ValueFormat {
    /** The value as the serde wrote it. */
    PLAIN(0),
    /** {@code [8-byte timestamp][value]}: Kafka's {@code TimestampedBytesStore}. */
    TIMESTAMPED(1),
    /** {@code [varint size][headers][8-byte timestamp][value]}: KIP-1271's key-value and window stores. */
    TIMESTAMPED_WITH_HEADERS(2),
    /** {@code [varint size][headers][aggregation]}: KIP-1271's session stores. */
    WITH_HEADERS(3);

    private final byte code;

    ValueFormat(int code) {
        this.code = (byte) code;
    }

    /**
     * The byte {@link OpenOptions#encode()} sends for it: the format crate's {@code ValueFormat::code}
     * ({@code rust/format/src/value_format.rs}), checked by {@code OpenOptionsTest} against golden records.
     */
    byte code() {
        return code;
    }
}
