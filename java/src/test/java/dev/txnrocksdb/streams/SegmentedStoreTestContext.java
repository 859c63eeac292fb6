package dev.txnrocksdb.streams;

import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.streams.KeyValue;
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
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.StateManager;
import org.apache.kafka.streams.processor.internals.StreamTask;
import org.apache.kafka.streams.processor.internals.Task;
import org.apache.kafka.streams.processor.internals.RecordCollector;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.ThreadCache;

/**
 * An {@code InternalProcessorContext} for store tests that build stores through Kafka's public
 * builders ({@code Stores.windowStoreBuilder(...).build()}), whose metered, caching and
 * change-logging layers need Kafka's internal context: task 0_0, Kafka's metrics, a thread cache,
 * a collected changelog and a captured restore callback. (Kafka's own {@code InternalMockProcessorContext}
 * from the 4.3.1 test jar cannot run on 4.4, see docs/kafka-window-session-semantics.md section 4.)
 */
final class SegmentedStoreTestContext extends AbstractProcessorContext<Object, Object> {
    static final String APP_ID = "segmented-test";

    private final File stateDir;
    private final List<KeyValue<Bytes, byte[]>> changelog = new ArrayList<>();
    private final List<Long> changelogTimestamps = new ArrayList<>();
    private StateRestoreCallback restoreCallback;

    /**
     * @param stateDir the task directory
     * @param cacheBytes the thread cache size (0 = caching layers write through at once)
     * @param extraConfig entries added to the application configuration
     */
    SegmentedStoreTestContext(File stateDir, long cacheBytes, Properties extraConfig) {
        this(stateDir, streamsConfig(extraConfig), new StreamsMetricsImpl(new Metrics(), Thread.currentThread().getName(), Time.SYSTEM),
            cacheBytes);
    }

    SegmentedStoreTestContext(File stateDir) {
        this(stateDir, 0L, new Properties());
    }

    private SegmentedStoreTestContext(File stateDir, StreamsConfig config, StreamsMetricsImpl metrics, long cacheBytes) {
        super(new TaskId(0, 0), config, metrics, new ThreadCache(new LogContext("test-cache "), cacheBytes, metrics));
        this.stateDir = stateDir;
        setTime(1L);
    }

    private static StreamsConfig streamsConfig(Properties extra) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        props.putAll(extra);
        return new StreamsConfig(props);
    }

    /** Makes the following writes look as if processing {@code topic}@{@code offset} (partition 0) at {@code timestamp}. */
    void setRecord(String topic, long offset, long timestamp) {
        setRecordContext(new ProcessorRecordContext(timestamp, offset, 0, topic, new RecordHeaders()));
    }

    /** Kafka's test contexts' {@code setTime}: a record context at {@code timestamp}. */
    void setTime(long timestamp) {
        setRecordContext(new ProcessorRecordContext(timestamp, 0L, 0, "topic", new RecordHeaders()));
    }

    /** Every changelog record written so far (key, value). */
    List<KeyValue<Bytes, byte[]>> changelog() {
        return changelog;
    }

    /** Replays changelog records into the registered restore callback as one batch, as Kafka's restore does. */
    void restore(List<KeyValue<Bytes, byte[]>> records, List<Long> timestamps) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            KeyValue<Bytes, byte[]> record = records.get(i);
            batch.add(new ConsumerRecord<>(changelogFor("store"), 0, i, timestamps.get(i), org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                -1, -1, record.key.get(), record.value, new RecordHeaders(), java.util.Optional.empty()));
        }
        ((RecordBatchingStateRestoreCallback) restoreCallback).restoreBatch(batch);
    }

    /** The timestamps of {@link #changelog()}'s records. */
    List<Long> changelogTimestamps() {
        return changelogTimestamps;
    }

    StateRestoreCallback restoreCallback() {
        return restoreCallback;
    }

    // ---------------------------------------------------------------- what stores call

    @Override
    public File stateDir() {
        return stateDir;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback) {
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback, CommitCallback commitCallback) {
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public String changelogFor(String storeName) {
        return APP_ID + "-" + storeName + "-changelog";
    }

    @Override
    public Task.TaskType taskType() {
        return Task.TaskType.ACTIVE;
    }

    @Override
    public void logChange(String storeName, Bytes key, byte[] value, long timestamp, Headers headers, Position position) {
        changelog.add(KeyValue.pair(key, value));
        changelogTimestamps.add(timestamp);
    }

    @Override
    public void registerCacheFlushListener(String namespace, ThreadCache.DirtyEntryFlushListener listener) {
        cache().addDirtyEntryFlushListener(namespace, listener);
    }

    @Override
    protected StateManager stateManager() {
        throw new UnsupportedOperationException("no state manager in store tests");
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
