package dev.txnrocksdb.bench;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnStores;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * The columns of the comparison: the value of every benchmark's {@code @Param store}. Each kind
 * says which suppliers build its key-value, window and session stores, and which application
 * configuration the stores are opened with.
 *
 * <p>{@link #KAFKA_TXN} is the reference every ratio is against: Kafka 4.4's RocksDB stores with
 * {@code enable.transactional.statestores=true}, which makes {@code RocksDBStore} stage writes in a
 * {@code RocksDBTransactionBuffer} (a sorted map for reads plus a {@code WriteBatch} written at
 * commit). {@link TransactionalCheck} proves, before any benchmark runs, that these stores really
 * drop uncommitted writes on reopen.
 */
enum StoreKind {
    /** Ours, indexed-batch strategy (the default). */
    TXN("txn", true, true, true),
    /** Ours, secondary-store strategy. */
    TXN_SECONDARY("txn-secondary", true, true, true),
    /** Kafka 4.4's RocksDB stores with enable.transactional.statestores=true: the reference. */
    KAFKA_TXN("kafka-txn", true, true, false),
    /** Kafka 4.4's RocksDB stores with the flag off: write-through, wiped after a crash under EOS. */
    KAFKA("kafka", false, true, false),
    /**
     * Kafka's in-memory stores with the flag on (so they stage writes and commit them like the
     * others): the ceiling for a store in this process. Nothing survives a close.
     */
    KAFKA_MEMORY("kafka-memory", true, false, false);

    /** Name of the store every benchmark opens. */
    static final String STORE_NAME = "bench-store";
    /** Window and session retention: long enough that no benchmark drops a segment it reads. */
    static final Duration RETENTION = Duration.ofDays(1);

    static final Duration WINDOW_SIZE = Duration.ofMinutes(1);
    /** Versioned stores: how long superseded versions stay readable (also the grace period). */
    static final Duration HISTORY_RETENTION = Duration.ofMinutes(10);
    /** Versioned stores: the width of a segment of history. */
    static final Duration SEGMENT_INTERVAL = Duration.ofMinutes(1);

    final String id;
    /** Value of enable.transactional.statestores in the stores' app configs. */
    final boolean transactionalFlag;

    final boolean persistent;
    final boolean ours;

    StoreKind(String id, boolean transactionalFlag, boolean persistent, boolean ours) {
        this.id = id;
        this.transactionalFlag = transactionalFlag;
        this.persistent = persistent;
        this.ours = ours;
    }

    /** Whether uncommitted writes must be gone after a close and reopen (what {@link TransactionalCheck} asserts). */
    boolean expectTransactional() {
        return persistent && transactionalFlag;
    }

    static StoreKind of(String id) {
        for (StoreKind k : values()) {
            if (k.id.equals(id)) {
                return k;
            }
        }
        throw new IllegalArgumentException("store must be one of " + ids() + ", not " + id);
    }

    static String ids() {
        StringBuilder sb = new StringBuilder();
        for (StoreKind k : values()) {
            sb.append(sb.length() == 0 ? "" : ",").append(k.id);
        }
        return sb.toString();
    }

    KeyValueBytesStoreSupplier keyValueSupplier() {
        return switch (this) {
            case TXN -> TxnStores.persistentTransactionalKeyValueStore(STORE_NAME, TransactionStrategy.INDEXED_BATCH);
            case TXN_SECONDARY ->
                TxnStores.persistentTransactionalKeyValueStore(STORE_NAME, TransactionStrategy.SECONDARY_STORE);
            case KAFKA_TXN, KAFKA -> Stores.persistentKeyValueStore(STORE_NAME);
            case KAFKA_MEMORY -> Stores.inMemoryKeyValueStore(STORE_NAME);
        };
    }

    WindowBytesStoreSupplier windowSupplier() {
        return switch (this) {
            case TXN ->
                TxnStores.persistentTransactionalWindowStore(
                        STORE_NAME, RETENTION, WINDOW_SIZE, false, TransactionStrategy.INDEXED_BATCH);
            case TXN_SECONDARY ->
                TxnStores.persistentTransactionalWindowStore(
                        STORE_NAME, RETENTION, WINDOW_SIZE, false, TransactionStrategy.SECONDARY_STORE);
            case KAFKA_TXN, KAFKA -> Stores.persistentWindowStore(STORE_NAME, RETENTION, WINDOW_SIZE, false);
            case KAFKA_MEMORY -> Stores.inMemoryWindowStore(STORE_NAME, RETENTION, WINDOW_SIZE, false);
        };
    }

    SessionBytesStoreSupplier sessionSupplier() {
        return switch (this) {
            case TXN ->
                TxnStores.persistentTransactionalSessionStore(STORE_NAME, RETENTION, TransactionStrategy.INDEXED_BATCH);
            case TXN_SECONDARY ->
                TxnStores.persistentTransactionalSessionStore(
                        STORE_NAME, RETENTION, TransactionStrategy.SECONDARY_STORE);
            case KAFKA_TXN, KAFKA -> Stores.persistentSessionStore(STORE_NAME, RETENTION);
            case KAFKA_MEMORY -> Stores.inMemorySessionStore(STORE_NAME, RETENTION);
        };
    }

    /**
     * Timestamped key-value stores whose values keep record headers (KIP-1271). In memory there is
     * no store of its own: Kafka's {@code Stores.timestampedKeyValueStoreWithHeadersBuilder} wraps
     * the plain in-memory store in a marker that passes the values through, so that is the bare store.
     */
    KeyValueBytesStoreSupplier headersKeyValueSupplier() {
        return switch (this) {
            case TXN ->
                TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders(
                        STORE_NAME, TransactionStrategy.INDEXED_BATCH);
            case TXN_SECONDARY ->
                TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders(
                        STORE_NAME, TransactionStrategy.SECONDARY_STORE);
            case KAFKA_TXN, KAFKA -> Stores.persistentTimestampedKeyValueStoreWithHeaders(STORE_NAME);
            case KAFKA_MEMORY -> Stores.inMemoryKeyValueStore(STORE_NAME);
        };
    }

    /** Whether the kind has a versioned key-value store: Kafka has no in-memory one. */
    boolean hasVersionedStore() {
        return persistent;
    }

    /** The ids of the kinds with a versioned key-value store: the columns of {@link VersionedBenchmark}. */
    static List<String> versionedIds() {
        return Arrays.stream(values())
                .filter(StoreKind::hasVersionedStore)
                .map(k -> k.id)
                .toList();
    }

    /** The ids of the kinds whose stores keep their data across a close: the columns of {@link LargeStateBenchmark}. */
    static List<String> persistentIds() {
        return Arrays.stream(values()).filter(k -> k.persistent).map(k -> k.id).toList();
    }

    /**
     * Versioned key-value stores (KIP-889), {@link #HISTORY_RETENTION} and {@link #SEGMENT_INTERVAL}.
     * Both suppliers' stores are Kafka's {@code VersionedKeyValueToBytesStoreAdapter} around the
     * versioned store.
     *
     * @throws IllegalStateException for {@link #KAFKA_MEMORY}: Kafka has no in-memory versioned store
     */
    VersionedBytesStoreSupplier versionedSupplier() {
        return switch (this) {
            case TXN ->
                TxnStores.persistentTransactionalVersionedKeyValueStore(
                        STORE_NAME, HISTORY_RETENTION, SEGMENT_INTERVAL, TransactionStrategy.INDEXED_BATCH);
            case TXN_SECONDARY ->
                TxnStores.persistentTransactionalVersionedKeyValueStore(
                        STORE_NAME, HISTORY_RETENTION, SEGMENT_INTERVAL, TransactionStrategy.SECONDARY_STORE);
            case KAFKA_TXN, KAFKA ->
                Stores.persistentVersionedKeyValueStore(STORE_NAME, HISTORY_RETENTION, SEGMENT_INTERVAL);
            case KAFKA_MEMORY -> throw new IllegalStateException(id + ": Kafka has no in-memory versioned store");
        };
    }
}
