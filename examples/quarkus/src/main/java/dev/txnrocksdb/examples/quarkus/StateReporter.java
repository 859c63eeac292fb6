package dev.txnrocksdb.examples.quarkus;

import jakarta.inject.Singleton;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Prints every state change of the Kafka Streams instance, {@code STATE <old> -> <new>}, so that
 * whoever runs the application (the integration test) sees when it is {@code RUNNING}. Quarkus
 * hands a {@link KafkaStreams.StateListener} bean to {@code KafkaStreams.setStateListener}.
 */
@Singleton
public class StateReporter implements KafkaStreams.StateListener {

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        RestoreReporter.say("STATE " + oldState + " -> " + newState);
    }
}
