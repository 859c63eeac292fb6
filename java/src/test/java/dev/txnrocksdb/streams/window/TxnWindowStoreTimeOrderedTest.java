package dev.txnrocksdb.streams.window;

import static dev.txnrocksdb.streams.fixtures.SegmentedStoreFixture.toList;
import static java.util.Arrays.asList;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.junit.jupiter.api.Test;

/**
 * Kafka's window store cases on the time-ordered layout the DSL gets for emit-final windows
 * (Kafka's {@code RocksDBTimeOrderedWindowStore} without index): visibility without Kafka's
 * {@code +1}, and multi-key scans in {@code (start, key, seqnum)} order when no caching layer
 * wraps the store.
 */
class TxnWindowStoreTimeOrderedTest extends AbstractTxnWindowStoreTest {
    @Override
    boolean transactional() {
        return true;
    }

    @Override
    boolean timeOrdered() {
        return true;
    }

    @Test
    void multiKeyScansAreTimeFirstAcrossSegments() {
        // Key-first order would return key 1's windows of both segments before key 2's.
        windowStore.put(2, "2@59999", 59_999L);
        windowStore.put(1, "1@60000", 60_000L);
        windowStore.put(2, "2@60000", 60_000L);
        windowStore.put(1, "1@59998", 59_998L);
        List<KeyValue<Windowed<Integer>, String>> expected = asList(
                windowedPair(1, "1@59998", 59_998L),
                windowedPair(2, "2@59999", 59_999L),
                windowedPair(1, "1@60000", 60_000L),
                windowedPair(2, "2@60000", 60_000L));
        assertEquals(expected, toList(windowStore.all()));
        assertEquals(expected, toList(windowStore.fetchAll(0L, 70_000L)));
        assertEquals(expected, toList(windowStore.fetch(1, 2, 0L, 70_000L)));
        List<KeyValue<Windowed<Integer>, String>> reversed = new java.util.ArrayList<>(expected);
        java.util.Collections.reverse(reversed);
        assertEquals(reversed, toList(windowStore.backwardAll()));
        assertEquals(reversed, toList(windowStore.backwardFetchAll(0L, 70_000L)));
    }
}
