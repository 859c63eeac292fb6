package dev.txnrocksdb.examples.quarkus;

import jakarta.inject.Singleton;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * Prints what Kafka Streams restores from the changelogs, one line per changelog partition:
 * {@code RESTORE-END <topic-partition> <store> <records>} (and {@code RESTORE-START} with the
 * offsets). Quarkus' Kafka Streams extension hands a {@link StateRestoreListener} bean to
 * {@code KafkaStreams.setGlobalStateRestoreListener}. On our stores a restart after {@code kill -9}
 * under exactly-once restores no record, or only the short tail after the last commit.
 */
@Singleton
public class RestoreReporter implements StateRestoreListener {

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        say("RESTORE-START " + partition + " " + store + " " + startingOffset + " " + endingOffset);
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {}

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        say("RESTORE-END " + partition + " " + store + " " + totalRestored);
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
