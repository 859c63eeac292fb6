package dev.txnrocksdb.streams;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** A minimal {@link StateStoreContext} for direct store tests: captures the restore callback and lets tests set record metadata. */
public final class TestStateStoreContext implements StateStoreContext {
    private final File stateDir;
    private final Map<String, Object> appConfigs = new HashMap<>();
    private RecordMetadata recordMetadata;
    private StateRestoreCallback restoreCallback;
    private StateStore registeredRoot;

    public TestStateStoreContext(File stateDir) {
        this.stateDir = stateDir;
    }

    /** Sets an application config entry the store reads at init. */
    public TestStateStoreContext config(String name, Object value) {
        appConfigs.put(name, value);
        return this;
    }

    /** Makes the following writes look as if processing {@code topic-partition@offset}. */
    public void processing(String topic, int partition, long offset) {
        recordMetadata = new RecordMetadata() {
            @Override
            public String topic() {
                return topic;
            }

            @Override
            public int partition() {
                return partition;
            }

            @Override
            public long offset() {
                return offset;
            }
        };
    }

    public StateRestoreCallback restoreCallback() {
        return restoreCallback;
    }

    public StateStore registeredRoot() {
        return registeredRoot;
    }

    @Override
    public String applicationId() {
        return "test-app";
    }

    @Override
    public TaskId taskId() {
        return new TaskId(0, 0);
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return Optional.ofNullable(recordMetadata);
    }

    @Override
    public Serde<?> keySerde() {
        return null;
    }

    @Override
    public Serde<?> valueSerde() {
        return null;
    }

    @Override
    public File stateDir() {
        return stateDir;
    }

    @Override
    public StreamsMetrics metrics() {
        return null;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback) {
        register(store, stateRestoreCallback, () -> {});
    }

    @Override
    public void register(StateStore store, StateRestoreCallback stateRestoreCallback, CommitCallback commitCallback) {
        this.registeredRoot = store;
        this.restoreCallback = stateRestoreCallback;
    }

    @Override
    public Map<String, Object> appConfigs() {
        return new HashMap<>(appConfigs);
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        Map<String, Object> result = new HashMap<>();
        appConfigs.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                result.put(k.substring(prefix.length()), v);
            }
        });
        return result;
    }
}
