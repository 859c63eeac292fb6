package dev.txnrocksdb.streams.internals;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records dropped because their segment had expired, reported as Kafka's segmented stores do: a
 * WARN "Skipping record for expired segment." and the task's {@code dropped-records} sensor
 * ({@code dropped-records-total} / {@code -rate} in {@code stream-task-metrics}), when the context
 * carries Kafka's metrics (a context without them, as in direct store tests, only logs).
 */
public final class ExpiredRecords {
    private static final Logger log = LoggerFactory.getLogger(ExpiredRecords.class);

    private final Sensor sensor;

    private ExpiredRecords(Sensor sensor) {
        this.sensor = sensor;
    }

    /** The reporter for a store initialized with {@code context}, on the calling (stream) thread. */
    public static ExpiredRecords forContext(StateStoreContext context) {
        if (context.metrics() instanceof StreamsMetricsImpl && context.taskId() != null) {
            return new ExpiredRecords(TaskMetrics.droppedRecordsSensor(
                    Thread.currentThread().getName(), context.taskId().toString(), (StreamsMetricsImpl)
                            context.metrics()));
        }
        return new ExpiredRecords(null);
    }

    /** Reports one dropped record. */
    public void record() {
        log.warn("Skipping record for expired segment.");
        if (sensor != null) {
            sensor.record();
        }
    }
}
