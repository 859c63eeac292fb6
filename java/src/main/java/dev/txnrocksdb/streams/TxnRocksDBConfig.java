package dev.txnrocksdb.streams;

import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.nativeapi.NativeTuning;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Names of the configuration entries txn-rocksdb stores read from the Kafka Streams application
 * configuration (the {@code Properties} passed to {@code KafkaStreams}; each store reads them
 * from {@code StateStoreContext#appConfigs()} when it is initialized).
 *
 * <p>Under {@code processing.guarantee=exactly_once_v2}, transactional stores also require
 * Kafka's {@code enable.transactional.statestores=true}
 * ({@code StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG}); see
 * {@link TransactionalStateStore}.
 *
 * <p>Every entry is defined once, in {@link #configDef()} (type, default, valid values,
 * documentation, importance), the counterpart of {@code StreamsConfig.configDef()}. The settings
 * are validated when {@link TxnRocksDBDslStoreSuppliers} is configured and when a store is
 * initialized: a malformed value is a {@link ConfigException} naming the key, the value and what
 * is allowed; an unknown {@code txn.rocksdb.*} key is logged as a warning naming the closest known
 * key; {@code rocksdb.config.setter} is logged as a warning, since it does not apply to these stores.
 */
public final class TxnRocksDBConfig {
    /**
     * {@value}: boolean, default {@code false}. With {@code false} a commit returns once its
     * write-ahead-log record is in the operating system's page cache, which survives the process
     * being killed ({@code kill -9}) but not a power loss or kernel crash. With {@code true} every
     * commit also fsyncs the log, which survives power loss at the cost of commit latency.
     */
    public static final String COMMIT_SYNC_CONFIG = "txn.rocksdb.commit.sync";

    /** Default of {@link #COMMIT_SYNC_CONFIG}. */
    public static final boolean COMMIT_SYNC_DEFAULT = false;

    /**
     * {@value}: string, {@code indexed-batch} (default) or {@code secondary-store}. Where
     * transactional stores keep their uncommitted writes: in memory, committed with one atomic
     * write ({@code indexed-batch}), or in memory up to {@link #SECONDARY_STORE_SPILL_BYTES_CONFIG}
     * (16 MiB) per store and beyond that in a temporary store on disk, so a transaction may be far larger than memory, at the cost of
     * writing the records of such a transaction twice ({@code secondary-store}).
     * See {@link TransactionStrategy} for when to pick which. A strategy passed to a
     * {@link TxnStores} factory method overrides this entry for that store; write-through stores
     * ignore it. A malformed value makes the store's initialization fail with a
     * {@link org.apache.kafka.common.config.ConfigException} naming this key.
     */
    public static final String TRANSACTION_STRATEGY_CONFIG = "txn.rocksdb.transaction.strategy";

    /** Default of {@link #TRANSACTION_STRATEGY_CONFIG}: {@code indexed-batch}. */
    public static final String TRANSACTION_STRATEGY_DEFAULT = "indexed-batch";

    /**
     * {@value}: long, bytes, at least 0, default {@link #SECONDARY_STORE_SPILL_BYTES_DEFAULT} (16 MiB).
     * Applies only to transactional stores under the {@code secondary-store} strategy
     * ({@link #TRANSACTION_STRATEGY_CONFIG}, or a store's own {@link TransactionStrategy}); the
     * other strategies and write-through stores ignore it. How many bytes of keys and values a
     * transaction keeps in memory, per store, before they spill, in key order, to the temporary
     * store on disk. A transaction that never spilled commits in one atomic write, as under
     * {@code indexed-batch}; one that spilled writes its records twice (to the temporary store,
     * then, at the commit, to the main store). A larger value lets larger transactions commit in
     * one write at the cost of that much memory per store; {@code 0} spills every write at once
     * (every record is then written twice). {@value #SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX}{@code <store name>}
     * sets it for one store, overriding this entry. A negative or malformed value makes the
     * store's initialization fail with a {@link ConfigException} naming the key.
     */
    public static final String SECONDARY_STORE_SPILL_BYTES_CONFIG = "txn.rocksdb.secondary.store.spill.bytes";

    /**
     * {@value}: the prefix of the per-store form of {@link #SECONDARY_STORE_SPILL_BYTES_CONFIG},
     * followed by the store name.
     */
    public static final String SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX = "txn.rocksdb.secondary.store.spill.bytes.";

    /**
     * Default of {@link #SECONDARY_STORE_SPILL_BYTES_CONFIG}: 16 MiB, the native engine's default
     * spill size ({@code DEFAULT_SPILL_BYTES}; a test checks that they agree).
     */
    public static final long SECONDARY_STORE_SPILL_BYTES_DEFAULT = 16L << 20;

    /**
     * {@value}: long, bytes. Size of the one LRU block cache shared by every txn-rocksdb store of
     * the process. When neither this nor {@link #MEMORY_WRITE_BUFFER_BYTES_CONFIG} is set the
     * native defaults apply (a bounded budget, see {@link #MEMORY_BLOCK_CACHE_BYTES_DEFAULT}).
     * The budget is process-wide and fixed by the first store that opens; later values are
     * ignored with a warning.
     */
    public static final String MEMORY_BLOCK_CACHE_BYTES_CONFIG = "txn.rocksdb.memory.block.cache.bytes";

    /**
     * {@value}: long, bytes. Budget of the write-buffer manager shared by every txn-rocksdb store
     * of the process; memtables are charged to the block cache, so this is part of
     * {@link #MEMORY_BLOCK_CACHE_BYTES_CONFIG}, not added to it. Process-wide and fixed by the
     * first store that opens.
     */
    public static final String MEMORY_WRITE_BUFFER_BYTES_CONFIG = "txn.rocksdb.memory.write.buffer.bytes";

    /**
     * The native block-cache budget (64 MiB) used when only {@link #MEMORY_WRITE_BUFFER_BYTES_CONFIG}
     * is set, and by the native library when neither is.
     */
    public static final long MEMORY_BLOCK_CACHE_BYTES_DEFAULT = 64L << 20;

    /**
     * The native write-buffer budget (32 MiB) used when only {@link #MEMORY_BLOCK_CACHE_BYTES_CONFIG}
     * is set, and by the native library when neither is.
     */
    public static final long MEMORY_WRITE_BUFFER_BYTES_DEFAULT = 32L << 20;

    /**
     * {@value}: boolean, default {@code true}. Whether the stores {@link TxnRocksDBDslStoreSuppliers}
     * supplies to the DSL are transactional ({@code true}) or write-through ({@code false}, for
     * at-least-once applications that want Kafka's behaviour on the txn-rocksdb engine). Read by
     * {@link TxnRocksDBDslStoreSuppliers#configure}, which Kafka Streams calls only when it builds
     * the suppliers from {@code dsl.store.suppliers.class} in the application configuration.
     */
    public static final String DSL_TRANSACTIONAL_CONFIG = "txn.rocksdb.dsl.transactional";

    /** Default of {@link #DSL_TRANSACTIONAL_CONFIG}. */
    public static final boolean DSL_TRANSACTIONAL_DEFAULT = true;

    /**
     * {@value}: string, what opening a store does when it finds its files damaged: a write-ahead
     * log damaged before its end (RocksDB cannot read the commits after the damage back), or damage
     * that leaves no commit the store can prove it holds (an SST file, the MANIFEST). A torn last
     * WAL record, which a power loss leaves, is not damage and is always tolerated. Whatever the
     * setting, a store that opens holds exactly the state of the commit its offsets name, never
     * part of one:
     * <ul>
     *   <li>{@code recover-if-changelogged} (default): a store with a changelog heals: a damaged WAL
     *       opens at its last commit before the damage, other damage deletes the store's files and
     *       opens it empty without offsets; either way with a warning naming the store and what was
     *       found, and Kafka Streams restores the rest from the changelog. A store without one
     *       refuses to open (a {@code ProcessorStateException} naming the store, the damage and the
     *       last consistent commit), since nothing could bring the lost commits back;</li>
     *   <li>{@code recover}: as the default, and a store without a changelog whose WAL is damaged
     *       opens at its last consistent commit, accepting the loss (other damage still refuses);</li>
     *   <li>{@code fail}: every store refuses to open, files untouched.</li>
     * </ul>
     */
    public static final String WAL_CORRUPTION_CONFIG = "txn.rocksdb.wal.corruption";

    /** Default of {@link #WAL_CORRUPTION_CONFIG}. */
    public static final String WAL_CORRUPTION_DEFAULT = "recover-if-changelogged";

    /**
     * {@value}: string, default empty. RocksDB options for every txn-rocksdb store, in RocksDB's
     * option-string syntax ({@code key=value;key=value}, nested table options as
     * {@code block_based_table_factory={key=value;...}}), applied after txn-rocksdb's own when a
     * store opens. {@value #ROCKSDB_OPTIONS_STORE_PREFIX}{@code <store name>} adds options for one
     * store, applied after these. Both are checked with RocksDB's parser when the settings are
     * validated; options that correctness or the shared memory budget depend on (atomic and manual
     * WAL flush, WAL recovery, comparator, memtable and table factories, the block cache, ...) are
     * refused with the reason. The memory budget is set with {@link #MEMORY_BLOCK_CACHE_BYTES_CONFIG}
     * and {@link #MEMORY_WRITE_BUFFER_BYTES_CONFIG}.
     */
    public static final String ROCKSDB_OPTIONS_CONFIG = "txn.rocksdb.options";

    /** {@value}: the prefix of the per-store form of {@link #ROCKSDB_OPTIONS_CONFIG}, followed by the store name. */
    public static final String ROCKSDB_OPTIONS_STORE_PREFIX = "txn.rocksdb.options.";

    /**
     * {@value}: string, a URI, default empty (snapshots off). Where stores keep snapshots of their
     * state, so that a store opening without local state (a task moved to a new host, a scaled-out
     * instance, a wiped state directory) restores the newest snapshot and only the changelog's tail
     * after it, instead of the whole changelog. {@code s3://bucket/prefix} (Amazon S3 or any
     * S3-compatible store; credentials, region and endpoint from the standard AWS environment:
     * {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_REGION},
     * {@code AWS_ENDPOINT_URL}, web identity tokens, ECS and EC2 instance credentials; and
     * {@value #SNAPSHOT_OPTION_PREFIX}{@code <key>} on top), {@code az://container/prefix} or
     * {@code abfss://container@account.dfs.core.windows.net/prefix} (Azure Blob Storage; account and
     * credentials from the standard Azure environment: {@code AZURE_STORAGE_ACCOUNT_NAME},
     * {@code AZURE_STORAGE_ACCOUNT_KEY}, a SAS token, a service principal's {@code AZURE_CLIENT_ID},
     * {@code AZURE_CLIENT_SECRET} and {@code AZURE_TENANT_ID}, workload or managed identity; and
     * {@value #SNAPSHOT_OPTION_PREFIX}{@code <key>} on top), or {@code file:///absolute/path} (a
     * directory every instance of the application reaches: a shared or network file system). Only stores with a changelog take snapshots; a snapshot is used only if its
     * changelog offset is one the changelog still has, and of the same topic (its id), so a reset
     * application or a recreated changelog never restores one. A store's snapshots live under
     * {@code <location>/<application.id>/<store name>/<partition>-<changelog topic id>/}.
     * {@value #SNAPSHOT_LOCATION_STORE_PREFIX}{@code <store name>} sets it for one store (empty: no
     * snapshots for it). Failures never stop processing: a snapshot that fails is logged and taken
     * again later; a restore that fails falls back to an older snapshot, then to the changelog.
     */
    public static final String SNAPSHOT_LOCATION_CONFIG = "txn.rocksdb.snapshot.location";

    /**
     * {@value}: the prefix of the options of an {@code s3://} or Azure
     * {@link #SNAPSHOT_LOCATION_CONFIG}, followed by the option's key as the {@code object_store}
     * crate names it. S3: {@code aws_endpoint} (an S3-compatible store's URL), {@code aws_region},
     * {@code aws_allow_http} ({@code true} for an {@code http://} endpoint),
     * {@code aws_access_key_id}, {@code aws_secret_access_key}, {@code aws_session_token},
     * {@code aws_virtual_hosted_style_request}, ... Azure: {@code azure_storage_account_name},
     * {@code azure_storage_account_key}, {@code azure_storage_sas_key}, {@code azure_client_id},
     * {@code azure_client_secret}, {@code azure_tenant_id}, {@code azure_endpoint} (another
     * endpoint than {@code https://<account>.blob.core.windows.net}), {@code azure_allow_http}, ...
     * They apply on top of the environment. Values are never logged; an unknown key turns
     * snapshots off with a WARN naming it.
     */
    public static final String SNAPSHOT_OPTION_PREFIX = "txn.rocksdb.snapshot.option.";

    /** {@value}: the prefix of the per-store form of {@link #SNAPSHOT_LOCATION_CONFIG}, followed by the store name. */
    public static final String SNAPSHOT_LOCATION_STORE_PREFIX = "txn.rocksdb.snapshot.location.";

    /**
     * {@value}: long, milliseconds, at least 0, default {@link #SNAPSHOT_INTERVAL_MS_DEFAULT} (5
     * minutes). A store with a {@link #SNAPSHOT_LOCATION_CONFIG} takes a snapshot at the first commit
     * this long after its last one (0: at every commit). Taking one holds the commit back only for a
     * RocksDB checkpoint (a memtable flush and hard links); the files are sent in the background, and
     * only those no earlier snapshot sent. A snapshot still being sent delays the next.
     */
    public static final String SNAPSHOT_INTERVAL_MS_CONFIG = "txn.rocksdb.snapshot.interval.ms";

    /** Default of {@link #SNAPSHOT_INTERVAL_MS_CONFIG}: 5 minutes. */
    public static final long SNAPSHOT_INTERVAL_MS_DEFAULT = 300_000L;

    /**
     * {@value}: int, at least 1, default {@link #SNAPSHOT_RETAINED_DEFAULT}. How many snapshots of
     * each store are kept; after each new one, older snapshots and the files no kept one references
     * are deleted (never files a snapshot being written has sent).
     */
    public static final String SNAPSHOT_RETAINED_CONFIG = "txn.rocksdb.snapshot.retained";

    /** Default of {@link #SNAPSHOT_RETAINED_CONFIG}. */
    public static final int SNAPSHOT_RETAINED_DEFAULT = 3;

    /**
     * {@value}: long, bytes per second, at least 0, default {@link #SNAPSHOT_UPLOAD_BYTES_PER_SECOND_DEFAULT}
     * (0: no limit). The most each store sends its snapshots' files at, on average over each file,
     * so that snapshots leave the host's network to the application (each store's own limit: n stores
     * sending at once send up to n times this). Restores from snapshots are never limited.
     */
    public static final String SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG = "txn.rocksdb.snapshot.upload.bytes.per.second";

    /** Default of {@link #SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG}: no limit. */
    public static final long SNAPSHOT_UPLOAD_BYTES_PER_SECOND_DEFAULT = 0L;

    /**
     * {@value}: long, milliseconds, at least 1, default {@link #SNAPSHOT_REQUEST_TIMEOUT_MS_DEFAULT}
     * (5 s). How long one request to the snapshot location may wait to connect, and for its answer
     * (once answering, for its next bytes); a request that timed out is sent again at most twice.
     * Each 8 MiB part of an upload must be sent within it. Once the location did not answer, the
     * restores of stores opening after skip it for 30 seconds (WARN) rather than wait for it again.
     */
    public static final String SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG = "txn.rocksdb.snapshot.request.timeout.ms";

    /** Default of {@link #SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG}: 5 seconds. */
    public static final long SNAPSHOT_REQUEST_TIMEOUT_MS_DEFAULT = 5_000L;

    /**
     * {@value}: long, milliseconds, at least 1, default {@link #SNAPSHOT_RESTORE_WAIT_MS_DEFAULT}
     * (10 s). How long in all the snapshot restores of one stream thread may wait for the snapshot
     * location to answer within any {@code max.poll.interval.ms}: time in which no byte arrives, so a
     * download that goes on never runs it out, however large, while a location that is silent or
     * answers each request late does, however many stores the thread opens. A store opening once it
     * ran out restores from the changelog (WARN). Besides, the snapshot restores of one thread take
     * at most half of {@code max.poll.interval.ms} in any {@code max.poll.interval.ms}, so a thread
     * never misses its poll for snapshots. A thread opening many stores at once on a location with a
     * high latency may want more (each store's restore waits a few round trips).
     */
    public static final String SNAPSHOT_RESTORE_WAIT_MS_CONFIG = "txn.rocksdb.snapshot.restore.wait.ms";

    /** Default of {@link #SNAPSHOT_RESTORE_WAIT_MS_CONFIG}: 10 seconds. */
    public static final long SNAPSHOT_RESTORE_WAIT_MS_DEFAULT = 10_000L;

    /**
     * {@value}: int, 1 to 64, default {@link #SNAPSHOT_IO_THREADS_DEFAULT}. The threads that send the
     * snapshots of every store of the process, and as many again for the snapshot location's I/O:
     * one pool per process, as the block cache, fixed by the first store that opens with snapshots.
     * Snapshots of more stores than this wait their turn.
     */
    public static final String SNAPSHOT_IO_THREADS_CONFIG = "txn.rocksdb.snapshot.io.threads";

    /** Default of {@link #SNAPSHOT_IO_THREADS_CONFIG}. */
    public static final int SNAPSHOT_IO_THREADS_DEFAULT = 2;

    /** {@value}: the prefix of every txn-rocksdb entry. */
    /**
     * {@value}: long, milliseconds, at least 1, default none (keys never expire). The time-to-live
     * of the application's key-value stores (plain, timestamped and with headers, both strategies):
     * a key expires this long after its last write ({@link #TTL_TIME_CONFIG} says in what time), is
     * invisible to every read from then on, and is removed at a later commit, which also writes its
     * tombstone to the store's changelog in the same transaction, so that no restore brings it
     * back. {@value #TTL_MS_STORE_PREFIX}{@code <store name>} sets it for one store (empty: none for
     * that store); a store built with {@code TxnStores...withTtl} keeps its own. Window, session and
     * versioned stores expire their records by their retention period: they ignore this entry, and
     * the per-store form naming one makes its initialization fail. A store with a time-to-live
     * refuses a caching layer above it (the cache would serve expired keys): build it
     * {@code withCachingDisabled()}, or set {@code statestore.cache.max.bytes=0}.
     */
    public static final String TTL_MS_CONFIG = "txn.rocksdb.ttl.ms";

    /** {@value}: the prefix of the per-store form of {@link #TTL_MS_CONFIG}, followed by the store name. */
    public static final String TTL_MS_STORE_PREFIX = "txn.rocksdb.ttl.ms.";

    /**
     * {@value}: string, {@code stream} (default) or {@code wall-clock}: what a time-to-live counts in
     * (see {@link TimeBasis}). Under {@code stream} a key's write time is its value's timestamp
     * (timestamped stores) or the processed record's timestamp, and the store's time is the largest
     * write time it has seen: a replay expires the same keys, and nothing expires while no records
     * arrive. Under {@code wall-clock} both are the stream thread's clock, read at each write and
     * each commit. Either way time never goes back: a clock or timestamps going backwards revive no
     * key, and a key written with a timestamp older than the time-to-live is expired at once.
     */
    public static final String TTL_TIME_CONFIG = "txn.rocksdb.ttl.time";

    /** Default of {@link #TTL_TIME_CONFIG}. */
    public static final String TTL_TIME_DEFAULT = "stream";

    /**
     * {@value}: int, at least 1, default {@link #TTL_EXPIRY_KEYS_PER_COMMIT_DEFAULT}. The most
     * expired keys a store with a time-to-live removes (and sends tombstones for) at one commit,
     * which bounds what expiry adds to a commit; a mass expiry is spread over commits, its keys
     * invisible meanwhile.
     */
    public static final String TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG = "txn.rocksdb.ttl.expiry.keys.per.commit";

    /** Default of {@link #TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG}. */
    public static final int TTL_EXPIRY_KEYS_PER_COMMIT_DEFAULT = 10_000;

    public static final String PREFIX = "txn.rocksdb.";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(
                    COMMIT_SYNC_CONFIG,
                    Type.BOOLEAN,
                    COMMIT_SYNC_DEFAULT,
                    Importance.HIGH,
                    "true fsyncs the write-ahead log at every commit (survives power loss); false returns once the commit"
                            + " is in the OS page cache (survives kill -9)")
            .define(
                    TRANSACTION_STRATEGY_CONFIG,
                    Type.STRING,
                    TRANSACTION_STRATEGY_DEFAULT,
                    new StrategyValidator(),
                    Importance.MEDIUM,
                    "where transactional stores keep uncommitted writes: indexed-batch (in memory, one atomic write per"
                            + " commit) or secondary-store (in memory up to txn.rocksdb.secondary.store.spill.bytes per store, 16 MiB by"
                            + " default, beyond that a temporary store on disk, for transactions larger than memory)")
            .define(
                    SECONDARY_STORE_SPILL_BYTES_CONFIG,
                    Type.LONG,
                    SECONDARY_STORE_SPILL_BYTES_DEFAULT,
                    ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    "secondary-store strategy only (ignored by indexed-batch and write-through stores): bytes of keys and values"
                            + " a transaction keeps in memory per store before they spill, in key order, to the temporary store on disk;"
                            + " a transaction that never spilled commits in one atomic write, one that spilled writes its records twice;"
                            + " 0 spills every write at once. txn.rocksdb.secondary.store.spill.bytes.{store name} sets it for one store")
            .define(
                    MEMORY_BLOCK_CACHE_BYTES_CONFIG,
                    Type.LONG,
                    MEMORY_BLOCK_CACHE_BYTES_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.MEDIUM,
                    "bytes of the one block cache shared by every store in the process; fixed by the first store that opens")
            .define(
                    MEMORY_WRITE_BUFFER_BYTES_CONFIG,
                    Type.LONG,
                    MEMORY_WRITE_BUFFER_BYTES_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.MEDIUM,
                    "bytes of memtables shared by every store in the process, charged to the block cache (part of it, not"
                            + " added to it); fixed by the first store that opens")
            .define(
                    ROCKSDB_OPTIONS_CONFIG,
                    Type.STRING,
                    "",
                    new RocksDBOptionsValidator(),
                    Importance.LOW,
                    "RocksDB options for every store, in RocksDB's option-string syntax (key=value;key={nested=value}),"
                            + " checked with RocksDB's parser; txn.rocksdb.options.{store name} adds options for one store. Options"
                            + " that correctness or the shared memory budget depend on are refused with the reason")
            .define(
                    WAL_CORRUPTION_CONFIG,
                    Type.STRING,
                    WAL_CORRUPTION_DEFAULT,
                    ConfigDef.ValidString.in("recover-if-changelogged", "recover", "fail"),
                    Importance.MEDIUM,
                    "what opening a store does when it finds its files damaged: recover-if-changelogged heals a store with a"
                            + " changelog (a damaged write-ahead log opens at the last consistent commit, other damage deletes the"
                            + " files; the changelog restores the rest) and refuses one without; recover also opens a store without"
                            + " a changelog at the last consistent commit of a damaged write-ahead log; fail always refuses")
            .define(
                    SNAPSHOT_LOCATION_CONFIG,
                    Type.STRING,
                    "",
                    new SnapshotLocationValidator(),
                    Importance.MEDIUM,
                    "where stores keep snapshots of their state (a URI: s3://bucket/prefix, with txn.rocksdb.snapshot.option.{key}"
                            + " on top of the AWS environment; az://container/prefix or abfss://container@account.dfs.core.windows.net/prefix,"
                            + " with txn.rocksdb.snapshot.option.{key} on top of the Azure environment; or file:///absolute/path on a file"
                            + " system every instance reaches; empty: off), so that a store opening without local state restores the newest snapshot and"
                            + " the changelog's tail after it; txn.rocksdb.snapshot.location.{store name} sets it for one store")
            .define(
                    SNAPSHOT_INTERVAL_MS_CONFIG,
                    Type.LONG,
                    SNAPSHOT_INTERVAL_MS_DEFAULT,
                    ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    "a store takes a snapshot at the first commit this long after its last one (0: every commit)")
            .define(
                    SNAPSHOT_RETAINED_CONFIG,
                    Type.INT,
                    SNAPSHOT_RETAINED_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.LOW,
                    "snapshots kept per store; older ones and the files only they reference are deleted")
            .define(
                    SNAPSHOT_UPLOAD_BYTES_PER_SECOND_CONFIG,
                    Type.LONG,
                    SNAPSHOT_UPLOAD_BYTES_PER_SECOND_DEFAULT,
                    ConfigDef.Range.atLeast(0),
                    Importance.LOW,
                    "the most bytes per second each store sends its snapshots' files at, on average over each file (0: no"
                            + " limit); restores are never limited")
            .define(
                    SNAPSHOT_REQUEST_TIMEOUT_MS_CONFIG,
                    Type.LONG,
                    SNAPSHOT_REQUEST_TIMEOUT_MS_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.LOW,
                    "how long one request to the snapshot location waits to connect and for its answer (once answering, for"
                            + " its next bytes) before it is sent again (at most twice) or fails; a location that did not answer is"
                            + " skipped by restores for 30 s")
            .define(
                    SNAPSHOT_RESTORE_WAIT_MS_CONFIG,
                    Type.LONG,
                    SNAPSHOT_RESTORE_WAIT_MS_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.LOW,
                    "how long in all the snapshot restores of one stream thread may wait for the location to answer (time with"
                            + " no byte arriving) in any max.poll.interval.ms; once it ran out, its stores restore from the changelog."
                            + " A thread's snapshot restores also take at most half of max.poll.interval.ms in any max.poll.interval.ms")
            .define(
                    SNAPSHOT_IO_THREADS_CONFIG,
                    Type.INT,
                    SNAPSHOT_IO_THREADS_DEFAULT,
                    ConfigDef.Range.between(1, 64),
                    Importance.LOW,
                    "threads sending the snapshots of every store of the process (and as many for the location's I/O); fixed"
                            + " by the first store that opens with snapshots")
            .define(
                    TTL_MS_CONFIG,
                    Type.LONG,
                    null,
                    new TtlValidator(),
                    Importance.MEDIUM,
                    "the time-to-live of key-value stores in ms (none by default): a key expires this long after its last"
                            + " write, is invisible from then on, and is removed with a tombstone in the changelog at a later commit;"
                            + " txn.rocksdb.ttl.ms.{store name} sets it for one store (empty: none). Window, session and versioned"
                            + " stores have a retention period instead. A store with one refuses a caching layer above it")
            .define(
                    TTL_TIME_CONFIG,
                    Type.STRING,
                    TTL_TIME_DEFAULT,
                    new TimeBasisValidator(),
                    Importance.LOW,
                    "what a time-to-live counts in: stream (the largest record timestamp the store has seen) or wall-clock"
                            + " (the stream thread's clock at each write and commit)")
            .define(
                    TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG,
                    Type.INT,
                    TTL_EXPIRY_KEYS_PER_COMMIT_DEFAULT,
                    ConfigDef.Range.atLeast(1),
                    Importance.LOW,
                    "the most expired keys a store with a time-to-live removes, with their tombstones, at one commit")
            .define(
                    DSL_TRANSACTIONAL_CONFIG,
                    Type.BOOLEAN,
                    DSL_TRANSACTIONAL_DEFAULT,
                    Importance.LOW,
                    "false makes TxnRocksDBDslStoreSuppliers supply write-through stores (read only when Kafka builds it"
                            + " from dsl.store.suppliers.class)");

    private TxnRocksDBConfig() {}

    /**
     * The definition of every {@code txn.rocksdb.*} entry.
     *
     * @return a copy, which the caller may extend
     */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** Checks a value of {@link #ROCKSDB_OPTIONS_CONFIG} (or its per-store form) with RocksDB's parser. */
    private static final class RocksDBOptionsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                throw new ConfigException(name, null, "Expected RocksDB options (key=value;...), not null");
            }
            try {
                NativeTuning.check(value.toString());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "RocksDB options (key=value;...)";
        }
    }

    /**
     * Accepts an empty value (off), an absolute {@code file:} URI, an {@code s3://bucket[/prefix]}
     * URI or an Azure one: {@code az://container[/prefix]}, {@code abfs[s]://container[/prefix]} or
     * {@code abfs[s]://container@account.dfs.core.windows.net[/prefix]} (where the part before
     * {@code @} names the container, not a user).
     */
    static final class SnapshotLocationValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String uri = value == null ? "" : value.toString().trim();
            if (uri.isEmpty()) {
                return;
            }
            java.net.URI parsed;
            try {
                parsed = new java.net.URI(uri);
            } catch (java.net.URISyntaxException e) {
                throw new ConfigException(
                        name, value, "Expected a URI such as file:///shared/snapshots: " + e.getMessage());
            }
            String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(java.util.Locale.ROOT);
            boolean abfs = scheme.equals("abfs") || scheme.equals("abfss");
            String userInfo = parsed.getRawUserInfo();
            // abfs[s]://container@account...: the container, unless a password follows it
            if (userInfo != null && !(abfs && !userInfo.contains(":"))) {
                throw new ConfigException(
                        name,
                        "(not shown: it carries credentials)",
                        "A snapshot location must not carry" + " credentials: set them in the environment or as "
                                + SNAPSHOT_OPTION_PREFIX + "<key>");
            }
            if (scheme.equals("s3") || scheme.equals("az") || abfs) {
                if (parsed.getHost() == null || parsed.getHost().isEmpty()) {
                    throw new ConfigException(
                            name,
                            value,
                            "Expected " + scheme + "://" + (scheme.equals("s3") ? "bucket" : "container")
                                    + "/prefix: the " + (scheme.equals("s3") ? "bucket" : "container") + " is missing");
                }
                return;
            }
            if (!scheme.equals("file")) {
                throw new ConfigException(
                        name,
                        value,
                        "Expected an s3://bucket/prefix, az://container/prefix,"
                                + " abfss://container@account.dfs.core.windows.net/prefix or file:///absolute/path URI: scheme '"
                                + parsed.getScheme() + "' is not supported by this build");
            }
            if (parsed.getPath() == null || !parsed.getPath().startsWith("/")) {
                throw new ConfigException(name, value, "Expected a file:///absolute/path URI (an absolute path)");
            }
        }

        @Override
        public String toString() {
            return "empty, s3://bucket/prefix, az://container/prefix, abfss://container@account.dfs.core.windows.net/prefix"
                    + " or file:///absolute/path";
        }
    }

    /** Accepts no value (no time-to-live) or a number of milliseconds of at least 1. */
    static final class TtlValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && ((Number) value).longValue() < 1) {
                throw new ConfigException(
                        name,
                        value,
                        "A time-to-live is at least 1 ms (leave the setting out for keys that never expire)");
            }
        }

        @Override
        public String toString() {
            return "[1,...] ms, or none";
        }
    }

    /** Accepts what {@link ConfigValues#timeBasis} accepts, with its message otherwise. */
    private static final class TimeBasisValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof TimeBasis)) {
                ConfigValues.timeBasis(name, value == null ? null : value.toString());
            }
        }

        @Override
        public String toString() {
            return "[" + ConfigValues.timeBases() + "] (case-insensitive)";
        }
    }

    /** Accepts what {@link ConfigValues#transactionStrategy} accepts, with its message otherwise. */
    private static final class StrategyValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof TransactionStrategy)) {
                ConfigValues.transactionStrategy(name, value == null ? null : value.toString());
            }
        }

        @Override
        public String toString() {
            return "[" + ConfigValues.transactionStrategies() + "] (case-insensitive)";
        }
    }
}
