package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.internals.nativeapi.CorruptionPolicy;
import dev.txnrocksdb.streams.internals.nativeapi.OpenOptions;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;

/**
 * What a store reads from the application configuration at init, and the one combination of
 * settings it refuses.
 */
public final class StoreSettings {
    private final boolean exactlyOnce;
    private final boolean transactionalStateStoresEnabled;
    private final boolean syncCommit;
    private final TransactionStrategy transactionStrategy;
    private final boolean consistencyEnabled;
    private final boolean dslTransactional;
    private final String rocksDBOptions;
    private final Map<String, String> storeRocksDBOptions;
    private final Long blockCacheBytes;
    private final Long writeBufferBytes;
    private final String walCorruption;
    private final long spillBytes;
    private final Map<String, Long> storeSpillBytes;
    private final String snapshotLocation;
    private final Map<String, String> storeSnapshotLocations;
    private final Map<String, String> snapshotOptions;
    private final long snapshotIntervalMs;
    private final int snapshotsRetained;
    private final long snapshotUploadBytesPerSecond;
    private final long snapshotRequestTimeoutMs;
    private final long snapshotRestoreWaitMs;
    private final int snapshotIoThreads;
    private final Duration ttl;
    private final Map<String, Optional<Duration>> storeTtls;
    private final TimeBasis timeBasis;
    private final int expiryKeysPerCommit;

    private StoreSettings(StoreSettings settings, TransactionStrategy transactionStrategy) {
        this.exactlyOnce = settings.exactlyOnce;
        this.transactionalStateStoresEnabled = settings.transactionalStateStoresEnabled;
        this.syncCommit = settings.syncCommit;
        this.transactionStrategy = transactionStrategy;
        this.consistencyEnabled = settings.consistencyEnabled;
        this.dslTransactional = settings.dslTransactional;
        this.rocksDBOptions = settings.rocksDBOptions;
        this.storeRocksDBOptions = settings.storeRocksDBOptions;
        this.blockCacheBytes = settings.blockCacheBytes;
        this.writeBufferBytes = settings.writeBufferBytes;
        this.walCorruption = settings.walCorruption;
        this.spillBytes = settings.spillBytes;
        this.storeSpillBytes = settings.storeSpillBytes;
        this.snapshotLocation = settings.snapshotLocation;
        this.storeSnapshotLocations = settings.storeSnapshotLocations;
        this.snapshotOptions = settings.snapshotOptions;
        this.snapshotIntervalMs = settings.snapshotIntervalMs;
        this.snapshotsRetained = settings.snapshotsRetained;
        this.snapshotUploadBytesPerSecond = settings.snapshotUploadBytesPerSecond;
        this.snapshotRequestTimeoutMs = settings.snapshotRequestTimeoutMs;
        this.snapshotRestoreWaitMs = settings.snapshotRestoreWaitMs;
        this.snapshotIoThreads = settings.snapshotIoThreads;
        this.ttl = settings.ttl;
        this.storeTtls = settings.storeTtls;
        this.timeBasis = settings.timeBasis;
        this.expiryKeysPerCommit = settings.expiryKeysPerCommit;
    }

    private StoreSettings(Map<String, ?> configs) {
        Map<String, Object> ours = ConfigValidation.parse(configs);
        this.exactlyOnce = StreamsConfig.EXACTLY_ONCE_V2.equals(
                ConfigValues.stringValue(configs, StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        this.transactionalStateStoresEnabled =
                ConfigValues.booleanValue(configs, StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, false);
        this.syncCommit = (Boolean) ours.get(TxnRocksDBConfig.COMMIT_SYNC_CONFIG);
        this.transactionStrategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, (String)
                        ours.get(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG));
        this.dslTransactional = (Boolean) ours.get(TxnRocksDBConfig.DSL_TRANSACTIONAL_CONFIG);
        this.rocksDBOptions = (String) ours.get(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG);
        Map<String, String> perStore = new HashMap<>();
        Map<String, Long> perStoreSpillBytes = new HashMap<>();
        Map<String, String> perStoreSnapshotLocations = new HashMap<>();
        Map<String, String> locationOptions = new java.util.TreeMap<>();
        Map<String, Optional<Duration>> perStoreTtls = new HashMap<>();
        configs.forEach((key, value) -> {
            if (value != null && ConfigValidation.isStoreOptionsKey(key)) {
                perStore.put(key.substring(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX.length()), value.toString());
            } else if (value != null && ConfigValidation.isStoreSpillBytesKey(key)) {
                perStoreSpillBytes.put(
                        key.substring(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX.length()),
                        ConfigValidation.storeSpillBytes(key, value));
            } else if (value != null && ConfigValidation.isSnapshotOptionKey(key)) {
                locationOptions.put(
                        key.substring(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX.length()),
                        ConfigValidation.snapshotOption(key, value));
            } else if (value != null && ConfigValidation.isStoreTtlKey(key)) {
                perStoreTtls.put(
                        key.substring(TxnRocksDBConfig.TTL_MS_STORE_PREFIX.length()),
                        ConfigValidation.storeTtl(key, value));
            } else if (value != null && ConfigValidation.isStoreSnapshotLocationKey(key)) {
                perStoreSnapshotLocations.put(
                        key.substring(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX.length()),
                        value.toString().trim());
            }
        });
        this.storeSnapshotLocations = Map.copyOf(perStoreSnapshotLocations);
        Long ttlMs = (Long) ours.get(TxnRocksDBConfig.TTL_MS_CONFIG);
        this.ttl = ttlMs == null ? null : Duration.ofMillis(ttlMs);
        this.storeTtls = Map.copyOf(perStoreTtls);
        this.timeBasis = ConfigValues.timeBasis(
                TxnRocksDBConfig.TTL_TIME_CONFIG, (String) ours.get(TxnRocksDBConfig.TTL_TIME_CONFIG));
        this.expiryKeysPerCommit = (Integer) ours.get(TxnRocksDBConfig.TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG);
        this.snapshotOptions = java.util.Collections.unmodifiableMap(locationOptions);
        this.snapshotLocation = ((String) ours.get(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG)).trim();
        this.snapshotIntervalMs = (Long) ours.get(TxnRocksDBConfig.SNAPSHOT_INTERVAL_MS_CONFIG);
        this.snapshotsRetained = (Integer) ours.get(TxnRocksDBConfig.SNAPSHOT_RETAINED_CONFIG);
        this.snapshotUploadBytesPerSecond = (Long) ours.get(TxnRocksDBConfig.SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG);
        this.snapshotRequestTimeoutMs = (Long) ours.get(TxnRocksDBConfig.SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG);
        this.snapshotRestoreWaitMs = (Long) ours.get(TxnRocksDBConfig.SNAPSHOT_RESTORE_WAIT_MS_CONFIG);
        this.snapshotIoThreads = (Integer) ours.get(TxnRocksDBConfig.SNAPSHOT_IO_THREADS_CONFIG);
        this.storeRocksDBOptions = Map.copyOf(perStore);
        this.spillBytes = (Long) ours.get(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG);
        this.storeSpillBytes = Map.copyOf(perStoreSpillBytes);
        // The same internal switch Kafka's RocksDBStore reads before taking positions from
        // changelog headers during restore.
        this.consistencyEnabled = ConfigValues.booleanValue(
                configs, StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        // Set only when configured: otherwise the native library's defaults (the same values) apply.
        this.blockCacheBytes = configs.get(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG) == null
                ? null
                : (Long) ours.get(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG);
        this.writeBufferBytes = configs.get(TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_CONFIG) == null
                ? null
                : (Long) ours.get(TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_CONFIG);
        this.walCorruption = (String) ours.get(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG);
    }

    /**
     * Reads and validates the settings (see {@link ConfigValidation}).
     *
     * @throws org.apache.kafka.common.config.ConfigException for a malformed txn-rocksdb entry,
     *     naming its key, its value and what is allowed
     */
    public static StoreSettings from(Map<String, ?> configs) {
        return new StoreSettings(configs == null ? Map.of() : configs);
    }

    /**
     * These settings with a store's own transaction strategy in place of the configured one.
     *
     * @param storeStrategy the strategy the store was built with, or null to keep the configured one
     */
    public StoreSettings withTransactionStrategy(TransactionStrategy storeStrategy) {
        return storeStrategy == null || storeStrategy == transactionStrategy
                ? this
                : new StoreSettings(this, storeStrategy);
    }

    /**
     * Refuses the settings under which this store would break exactly-once.
     *
     * <ul>
     *   <li>A transactional store under exactly-once without {@code enable.transactional.statestores=true}:
     *       Kafka then commits stores only on suspend and close, so the uncommitted writes would
     *       grow without bound, and it wipes the store after every unclean shutdown anyway.</li>
     *   <li>A write-through store under exactly-once with {@code enable.transactional.statestores=true}:
     *       Kafka then keeps the store after an unclean shutdown, but the store already holds writes
     *       of the aborted transaction, which the changelog does not.</li>
     * </ul>
     *
     * @throws ProcessorStateException naming the store and the setting to change
     */
    public void validate(String storeName, boolean transactional) {
        if (!exactlyOnce) {
            return;
        }
        if (transactional && !transactionalStateStoresEnabled) {
            throw new ProcessorStateException("Transactional store " + storeName + " requires "
                    + StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG + "=true under "
                    + StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + StreamsConfig.EXACTLY_ONCE_V2
                    + ": without it Kafka Streams commits state stores only on suspend and close, so the store's"
                    + " uncommitted writes would grow without bound. Set "
                    + StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG
                    + "=true, or build the store with transactional=false.");
        }
        if (!transactional && transactionalStateStoresEnabled) {
            throw new ProcessorStateException("Store " + storeName + " is not transactional (write-through), but "
                    + StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG + "=true under "
                    + StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + StreamsConfig.EXACTLY_ONCE_V2
                    + " makes Kafka Streams keep it after an unclean shutdown, when it may hold writes of an aborted"
                    + " transaction. Build the store with transactional=true, or set "
                    + StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG + "=false.");
        }
    }

    /** Whether every commit fsyncs the write-ahead log ({@link TxnRocksDBConfig#COMMIT_SYNC_CONFIG}). */
    public boolean syncCommit() {
        return syncCommit;
    }

    /**
     * The transaction strategy: the one configured for the application
     * ({@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}, default {@code indexed-batch}), or a
     * store's own (see {@link #withTransactionStrategy}).
     */
    public TransactionStrategy transactionStrategy() {
        return transactionStrategy;
    }

    /** {@link TxnRocksDBConfig#DSL_TRANSACTIONAL_CONFIG}. */
    public boolean dslTransactional() {
        return dslTransactional;
    }

    /**
     * The RocksDB options for every store ({@link TxnRocksDBConfig#ROCKSDB_OPTIONS_CONFIG}) and
     * the store's own ({@code txn.rocksdb.options.<store name>}), each possibly empty.
     */
    public String[] rocksDBOptions(String storeName) {
        return new String[] {rocksDBOptions, storeRocksDBOptions.getOrDefault(storeName, "")};
    }

    /**
     * Under the {@code secondary-store} strategy, the bytes of a transaction the store keeps in
     * memory before they spill to its temporary store: {@code txn.rocksdb.secondary.store.spill.bytes.<store name>}
     * if set, else {@link TxnRocksDBConfig#SECONDARY_STORE_SPILL_BYTES_CONFIG} (default 16 MiB).
     */
    public long spillBytes(String storeName) {
        return storeSpillBytes.getOrDefault(storeName, spillBytes);
    }

    /**
     * What a store does when it opens on damaged files ({@link TxnRocksDBConfig#WAL_CORRUPTION_CONFIG}):
     * a store with a changelog heals from it unless the setting is {@code fail}; one without opens
     * at its last consistent commit only with {@code recover}.
     *
     * @param changelogged whether the store has a changelog to restore the lost commits from
     */
    public CorruptionPolicy corruptionPolicy(boolean changelogged) {
        switch (walCorruption) {
            case "fail":
                return CorruptionPolicy.REFUSE;
            case "recover":
                return changelogged
                        ? CorruptionPolicy.RESTORE_FROM_CHANGELOG
                        : CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT;
            default:
                return changelogged ? CorruptionPolicy.RESTORE_FROM_CHANGELOG : CorruptionPolicy.REFUSE;
        }
    }

    /**
     * Where the store keeps its snapshots: {@code txn.rocksdb.snapshot.location.<store name>} if
     * set, else {@link TxnRocksDBConfig#SNAPSHOT_LOCATION_CONFIG}; null when snapshots are off.
     */
    public String snapshotLocation(String storeName) {
        String location = storeSnapshotLocations.getOrDefault(storeName, snapshotLocation);
        return location.isEmpty() ? null : location;
    }

    /**
     * A key-value store's time-to-live: the store's own (built with {@code withTtl}) if it has
     * one, else {@code txn.rocksdb.ttl.ms.<store name>} if set (empty: none), else
     * {@link TxnRocksDBConfig#TTL_MS_CONFIG}; null when its keys never expire.
     *
     * @param storeTtl the time-to-live the store was built with, or null
     */
    public Duration ttl(String storeName, Duration storeTtl) {
        if (storeTtl != null) {
            return storeTtl;
        }
        Optional<Duration> own = storeTtls.get(storeName);
        return own != null ? own.orElse(null) : ttl;
    }

    /**
     * Refuses a time-to-live set for a store of a kind that has a retention period instead
     * ({@code txn.rocksdb.ttl.ms.<store name>} naming a window, session or versioned store; the
     * application-wide entry applies to key-value stores only).
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the setting and the store
     */
    public void refuseTtl(String storeName) {
        Optional<Duration> own = storeTtls.get(storeName);
        if (own != null && own.isPresent()) {
            throw new org.apache.kafka.common.config.ConfigException(
                    TxnRocksDBConfig.TTL_MS_STORE_PREFIX + storeName,
                    own.get().toMillis(),
                    "Store " + storeName + " is a window, session or versioned store, whose records expire by its"
                            + " retention period: a time-to-live applies to key-value stores only. Remove the setting,"
                            + " or set the store's retention instead");
        }
    }

    /** {@link TxnRocksDBConfig#TTL_TIME_CONFIG}. */
    public TimeBasis timeBasis() {
        return timeBasis;
    }

    /** {@link TxnRocksDBConfig#TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG}. */
    public int expiryKeysPerCommit() {
        return expiryKeysPerCommit;
    }

    /**
     * What opening the store takes besides its directory: these settings (fsync at commit, the
     * strategy, the corruption policy, the RocksDB options, the spill size, the time basis) for it,
     * with what the store's kind and context decide.
     *
     * @param storeName the store's name (its own RocksDB options and spill size)
     * @param transactional false for a write-through store
     * @param changelogged whether the store has a changelog (the corruption policy depends on it)
     * @param valueFormat the format of the values the store holds
     * @param statistics whether RocksDB collects its statistics for the store
     * @param ttl the key-value store's time-to-live ({@link #ttl}), or null
     */
    public OpenOptions openOptions(
            String storeName,
            boolean transactional,
            boolean changelogged,
            ValueFormat valueFormat,
            boolean statistics,
            Duration ttl) {
        String[] rocksDB = rocksDBOptions(storeName);
        return OpenOptions.builder()
                .transactional(transactional)
                .syncCommit(syncCommit)
                .strategy(transactionStrategy)
                .corruption(corruptionPolicy(changelogged))
                .valueFormat(valueFormat)
                .statistics(statistics)
                .rocksDBOptions(rocksDB[0], rocksDB[1])
                .spillBytes(spillBytes(storeName))
                .ttl(ttl, timeBasis)
                .build();
    }

    /**
     * What opening the store's snapshot location takes: {@link #snapshotLocation(String)} with the
     * location's options, the upload limit, the request timeout and the I/O threads.
     *
     * @return null when snapshots are off for the store
     */
    public SnapshotCalls.LocationOptions snapshotLocationOptions(String storeName) {
        String uri = snapshotLocation(storeName);
        return uri == null
                ? null
                : SnapshotCalls.LocationOptions.builder(uri)
                        .options(snapshotOptions)
                        .uploadBytesPerSecond(snapshotUploadBytesPerSecond)
                        .requestTimeoutMs(snapshotRequestTimeoutMs)
                        .ioThreads(snapshotIoThreads)
                        .build();
    }

    /** The snapshot location's options ({@link TxnRocksDBConfig#SNAPSHOT_OPTION_PREFIX}), by key, sorted. */
    public Map<String, String> snapshotOptions() {
        return snapshotOptions;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_INTERVAL_MS_CONFIG}. */
    public long snapshotIntervalMs() {
        return snapshotIntervalMs;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_RETAINED_CONFIG}. */
    public int snapshotsRetained() {
        return snapshotsRetained;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG} (0: no limit). */
    public long snapshotUploadBytesPerSecond() {
        return snapshotUploadBytesPerSecond;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG}. */
    public long snapshotRequestTimeoutMs() {
        return snapshotRequestTimeoutMs;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_RESTORE_WAIT_MS_CONFIG}. */
    public long snapshotRestoreWaitMs() {
        return snapshotRestoreWaitMs;
    }

    /** {@link TxnRocksDBConfig#SNAPSHOT_IO_THREADS_CONFIG}. */
    public int snapshotIoThreads() {
        return snapshotIoThreads;
    }

    /** Whether restore reads positions from changelog record headers (Kafka's IQ consistency vector). */
    public boolean consistencyEnabled() {
        return consistencyEnabled;
    }

    /** Applies the memory budget, if one is configured, before the first store of the process opens. */
    public void applyMemoryBudget() {
        if (blockCacheBytes == null && writeBufferBytes == null) {
            return;
        }
        MemoryBudget.configureOnce(
                blockCacheBytes != null ? blockCacheBytes : TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_DEFAULT,
                writeBufferBytes != null ? writeBufferBytes : TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_DEFAULT);
    }
}
