package dev.txnrocksdb.bench;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.io.File;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The StateStoreContext every store is opened with: kafka-streams-test-utils' mock (which gives
 * Kafka's RocksDBStore the StreamsMetricsImpl it insists on), with
 * {@code enable.transactional.statestores} as the store's column wants it, plus capture of the
 * restore callback a store registers, so the restore benchmark can drive it the way Kafka's
 * restore loop does.
 */
final class BenchContext implements StateStoreContext {
    private final StateStoreContext delegate;
    private StateRestoreCallback restoreCallback;

    /**
     * @param stateDir the task's state directory
     * @param transactionalStateStores the value of {@code enable.transactional.statestores}
     * @param processingGuarantee {@code processing.guarantee}, or null for Kafka's default (at_least_once)
     */
    BenchContext(File stateDir, boolean transactionalStateStores, String processingGuarantee) {
        Properties props = new Properties();
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, Boolean.toString(transactionalStateStores));
        if (processingGuarantee != null) {
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        }
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "txn-rocksdb-bench");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:0");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.getAbsolutePath());
        // Only to silence a warning logged per store; no global thread runs here.
        props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
        addOurConfigs(props);
        this.delegate =
                new MockProcessorContext<Object, Object>(props, new TaskId(0, 0), stateDir).getStateStoreContext();
    }

    /**
     * Our stores' settings a run asks for: {@code -Dbench.rocksdb.options=...} becomes
     * {@code txn.rocksdb.options} (RocksDB options for every store of ours, e.g. to measure a
     * compaction style against the default in one command; Kafka's stores ignore it).
     */
    static void addOurConfigs(Properties props) {
        String rocksdbOptions = System.getProperty("bench.rocksdb.options");
        if (rocksdbOptions != null) {
            props.put(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG, rocksdbOptions);
        }
    }

    /** The callback the store registered in init, or null if it registered none. */
    StateRestoreCallback restoreCallback() {
        return restoreCallback;
    }

    @Override
    public String applicationId() {
        return delegate.applicationId();
    }

    @Override
    public TaskId taskId() {
        return delegate.taskId();
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return delegate.recordMetadata();
    }

    @Override
    public Serde<?> keySerde() {
        return delegate.keySerde();
    }

    @Override
    public Serde<?> valueSerde() {
        return delegate.valueSerde();
    }

    @Override
    public File stateDir() {
        return delegate.stateDir();
    }

    @Override
    public StreamsMetrics metrics() {
        return delegate.metrics();
    }

    @Override
    public Map<String, Object> appConfigs() {
        return delegate.appConfigs();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        return delegate.appConfigsWithPrefix(prefix);
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback) {
        restoreCallback = callback;
        delegate.register(store, callback);
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback, CommitCallback onCommit) {
        restoreCallback = callback;
        delegate.register(store, callback, onCommit);
    }
}
