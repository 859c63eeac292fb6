package dev.txnrocksdb.bench;

import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.To;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.AbstractProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.processor.internals.RecordCollector;
import org.apache.kafka.streams.processor.internals.StateManager;
import org.apache.kafka.streams.processor.internals.StreamTask;
import org.apache.kafka.streams.processor.internals.Task;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.ThreadCache;

/**
 * The context window and session stores are opened with. Kafka's segmented RocksDB stores
 * ({@code RocksDBWindowStore}, {@code RocksDBSessionStore}) refuse kafka-streams-test-utils'
 * {@code MockProcessorContext} ("requires internal features of Kafka Streams"), so every column's
 * window and session stores get this minimal {@code InternalProcessorContext} instead: task 0_0,
 * Kafka's metrics, a zero-byte thread cache (the stores are bare anyway), the app configs of the
 * store's column, and capture of the registered restore callback. Key-value stores keep
 * {@link BenchContext}.
 */
final class SegmentedBenchContext extends AbstractProcessorContext<Object, Object> {
    private final File stateDir;
    private StateRestoreCallback restoreCallback;

    SegmentedBenchContext(File stateDir, boolean transactionalStateStores, String processingGuarantee) {
        this(
                stateDir,
                config(transactionalStateStores, processingGuarantee),
                new StreamsMetricsImpl(new Metrics(), Thread.currentThread().getName(), Time.SYSTEM));
    }

    private SegmentedBenchContext(File stateDir, StreamsConfig config, StreamsMetricsImpl metrics) {
        super(new TaskId(0, 0), config, metrics, new ThreadCache(new LogContext("bench-cache "), 0L, metrics));
        this.stateDir = stateDir;
        setRecordContext(new ProcessorRecordContext(1L, 0L, 0, "bench-input", new RecordHeaders()));
    }

    private static StreamsConfig config(boolean transactionalStateStores, String processingGuarantee) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "txn-rocksdb-bench");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:0");
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, Boolean.toString(transactionalStateStores));
        // Only to silence a warning logged per store; no global thread runs here.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
        BenchContext.addOurConfigs(props);
        if (processingGuarantee != null) {
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        }
        return new StreamsConfig(props);
    }

    /** The callback the store registered in init, or null if it registered none. */
    StateRestoreCallback restoreCallback() {
        return restoreCallback;
    }

    // ---------------------------------------------------------------- what stores call

    @Override
    public File stateDir() {
        return stateDir;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback) {
        restoreCallback = callback;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback, CommitCallback onCommit) {
        restoreCallback = callback;
    }

    @Override
    public String changelogFor(String storeName) {
        return "txn-rocksdb-bench-" + storeName + "-changelog";
    }

    @Override
    public Task.TaskType taskType() {
        return Task.TaskType.ACTIVE;
    }

    @Override
    public void logChange(
            String storeName, Bytes key, byte[] value, long timestamp, Headers headers, Position position) {
        // Bare stores log nothing.
    }

    @Override
    public void registerCacheFlushListener(String namespace, ThreadCache.DirtyEntryFlushListener listener) {
        cache().addDirtyEntryFlushListener(namespace, listener);
    }

    @Override
    protected StateManager stateManager() {
        throw new UnsupportedOperationException("no state manager in benchmarks");
    }

    // ---------------------------------------------------------------- processor API, unused by stores

    @Override
    public <S extends StateStore> S getStateStore(String name) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Cancellable schedule(Duration interval, PunctuationType type, Punctuator callback) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Cancellable schedule(Instant startTime, Duration interval, PunctuationType type, Punctuator callback) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(K key, V value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(K key, V value, To to) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(Record<K, V> record) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(Record<K, V> record, String childName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(FixedKeyRecord<K, V> record) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <K, V> void forward(FixedKeyRecord<K, V> record, String childName) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void commit() {}

    @Override
    public long currentStreamTimeMs() {
        return 0L;
    }

    @Override
    public void transitionToActive(StreamTask streamTask, RecordCollector recordCollector, ThreadCache newCache) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void transitionToStandby(ThreadCache newCache) {
        throw new UnsupportedOperationException();
    }
}
