package dev.txnrocksdb.streams;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.apache.kafka.streams.state.KeyValueIterator;

/** Helpers shared by the window and session store tests (the counterparts of Kafka's {@code StreamsTestUtils}). */
final class SegmentedStoreFixture {
    /** Kafka's exact warning for an inverted key range. */
    static final String INVALID_RANGE_WARNING = "Returning empty iterator for fetch with invalid key range: from > to."
        + " This may be due to range arguments set in the wrong order, "
        + "or serdes that don't preserve ordering when lexicographically comparing the serialized bytes."
        + " Note that the built-in numerical serdes do not follow this for negative numbers";

    private SegmentedStoreFixture() {}

    /** Drains and closes an iterator. */
    static <K, V> List<KeyValue<K, V>> toList(KeyValueIterator<K, V> iterator) {
        List<KeyValue<K, V>> out = new ArrayList<>();
        try (iterator) {
            while (iterator.hasNext()) {
                out.add(iterator.next());
            }
        }
        return out;
    }

    static <K, V> Set<KeyValue<K, V>> toSet(KeyValueIterator<K, V> iterator) {
        return new HashSet<>(toList(iterator));
    }

    /** The values of an iterator, drained and closed. */
    static <K, V> Set<V> valuesToSet(KeyValueIterator<K, V> iterator) {
        Set<V> out = new HashSet<>();
        for (KeyValue<K, V> kv : toList(iterator)) {
            out.add(kv.value);
        }
        return out;
    }

    static <K, V> KeyValue<Windowed<K>, V> windowedPair(K key, V value, long start, long windowSize) {
        long end = start + windowSize;
        return KeyValue.pair(new Windowed<>(key, new TimeWindow(start, end < 0 ? Long.MAX_VALUE : end)), value);
    }

    static <K, V> KeyValue<Windowed<K>, V> sessionPair(K key, V value, long start, long end) {
        return KeyValue.pair(new Windowed<>(key, new SessionWindow(start, end)), value);
    }

    /**
     * Runs {@code action} and returns what it logged: slf4j-simple (the test logger) writes to
     * {@code System.err}, looked up at every write.
     */
    static String capturingLog(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
