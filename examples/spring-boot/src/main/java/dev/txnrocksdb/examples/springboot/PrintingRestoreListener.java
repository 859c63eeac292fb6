package dev.txnrocksdb.examples.springboot;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * Prints each changelog restore on stdout: {@code RESTORE-START <topic-partition> <store> <from> <to>}
 * and {@code RESTORE-END <topic-partition> <store> <records restored>}. A store that reopens at
 * its last commit has nothing to restore, and Kafka Streams then calls neither; the state
 * listener's {@code STATE RUNNING restored=<n>} line gives the total so far either way.
 */
final class PrintingRestoreListener implements StateRestoreListener {

    private static final AtomicLong RESTORED = new AtomicLong();

    static long restoredTotal() {
        return RESTORED.get();
    }

    static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        print("RESTORE-START " + partition + " " + store + " " + startingOffset + " " + endingOffset);
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {}

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        RESTORED.addAndGet(totalRestored);
        print("RESTORE-END " + partition + " " + store + " " + totalRestored);
    }
}
