package dev.txnrocksdb.streams;

/**
 * Where a transactional txn-rocksdb store keeps its uncommitted writes until Kafka Streams commits
 * it. Either way a crash leaves the store at exactly its last commit, the changelog offsets
 * included; the strategies differ in memory use and in commit cost. Choose one for the whole
 * application with {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG}, or for one store with the
 * {@link TxnStores} overloads that take a strategy (they override the configuration).
 *
 * <p>A store directory can be reopened with the other strategy: opening recovers whatever the
 * previous strategy left (see {@link #SECONDARY_STORE}), so switching needs no migration.
 */
public enum TransactionStrategy {
    /**
     * {@code indexed-batch}, the default: uncommitted writes are held in memory, in an indexed
     * write batch that reads see through, and a commit is ONE atomic RocksDB write of the writes
     * together with the changelog offsets and position. Pick it for Kafka's usual pattern of
     * frequent small commits (every 100 ms under exactly-once, every 30 s at-least-once): each
     * record is written once and a commit costs one write. A transaction must fit in memory: its
     * size is bounded by what the task processes between two commits.
     */
    INDEXED_BATCH("indexed-batch"),

    /**
     * {@code secondary-store}, KIP-844's reference design, for transactions larger than memory:
     * uncommitted writes wait in memory as under {@link #INDEXED_BATCH}, but only up to
     * {@link TxnRocksDBConfig#SECONDARY_STORE_SPILL_BYTES_CONFIG} (16 MiB by default) per store;
     * beyond that they spill, in key order, to a temporary store on disk (a column family of
     * the same RocksDB, which flushes to disk under the shared write-buffer budget), and reads
     * merge memory, the temporary store and the main store. A transaction that never spilled
     * commits in one atomic write, exactly as under {@link #INDEXED_BATCH}; one that spilled is
     * copied into the main store in bounded writes behind a commit record (stored with the first
     * of them) that recovery rolls forward after a crash. Pick it when a transaction may be far
     * larger than memory: long commit intervals, huge restores-by-processing (for example
     * reprocessing a topic from the beginning), large aggregations or joins between commits. The
     * price is paid only by transactions that spill: their records are written twice (to the
     * temporary store, then to the main store at commit).
     */
    SECONDARY_STORE("secondary-store");

    private final String configName;

    TransactionStrategy(String configName) {
        this.configName = configName;
    }

    /**
     * The spelling in {@link TxnRocksDBConfig#TRANSACTION_STRATEGY_CONFIG} (read case-insensitively)
     * and in the native library: {@code indexed-batch} or {@code secondary-store}.
     *
     * @return the configuration value of this strategy
     */
    public String configName() {
        return configName;
    }
}
