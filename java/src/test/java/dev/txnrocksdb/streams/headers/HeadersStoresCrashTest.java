package dev.txnrocksdb.streams.headers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.HeadersCrashWriterMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.AggregationWithHeaders;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code kill -9} of an exactly-once application writing our stores with headers
 * ({@link HeadersCrashWriterMain}): reopened on the same state directory, each store holds, for
 * every key, the value of a record that was committed (the last one acknowledged for that key, or
 * one the child committed after it), with that record's own header, for every kind and strategy.
 */
class HeadersStoresCrashTest {
    private static final int READY_AFTER = 1_500;

    @TempDir
    Path stateDir;

    @ParameterizedTest(name = "{0} with headers, {1}")
    @MethodSource("dev.txnrocksdb.streams.headers.HeadersStoresDifferentialTest#cases")
    void killDashNineKeepsEveryCommittedRecordWithItsHeaders(String kind, TransactionStrategy strategy)
            throws Exception {
        ChildJvm child = ChildJvm.start(
                HeadersCrashWriterMain.class,
                stateDir.toString(),
                kind,
                strategy.configName(),
                Integer.toString(READY_AFTER));
        try {
            child.awaitLine(HeadersCrashWriterMain.READY);
        } finally {
            child.killAndAssertSigkill();
        }
        int lastAcked = child.output().stream()
                .filter(line -> line.startsWith("ACK "))
                .mapToInt(line -> Integer.parseInt(line.substring(4)))
                .max()
                .orElseThrow();
        assertTrue(lastAcked >= READY_AFTER - 1);

        try (TopologyTestDriver driver = new TopologyTestDriver(
                HeadersCrashWriterMain.topology(kind, strategy), HeadersCrashWriterMain.props(stateDir.toString()))) {
            int keys = 0;
            for (int k = 0; k < HeadersCrashWriterMain.KEYS; k++) {
                String key = "k" + k;
                String value;
                Headers headers;
                switch (kind) {
                    case "key-value": {
                        ValueTimestampHeaders<String> stored = driver.<String, String>
                                        getTimestampedKeyValueStoreWithHeaders("store")
                                .get(key);
                        assertNotNull(stored, key);
                        value = stored.value();
                        headers = stored.headers();
                        break;
                    }
                    case "window": {
                        ValueTimestampHeaders<String> stored = driver.<String, String>
                                        getTimestampedWindowStoreWithHeaders("store")
                                .fetch(key, 0L);
                        assertNotNull(stored, key);
                        value = stored.value();
                        headers = stored.headers();
                        break;
                    }
                    default: {
                        AggregationWithHeaders<String> stored = null;
                        try (KeyValueIterator<Windowed<String>, AggregationWithHeaders<String>> sessions =
                                driver.<String, String>getSessionStoreWithHeaders("store")
                                        .fetch(key)) {
                            while (sessions.hasNext()) {
                                stored = sessions.next().value;
                            }
                        }
                        assertNotNull(stored, key);
                        value = stored.aggregation();
                        headers = stored.headers();
                    }
                }
                int record = Integer.parseInt(value.substring(1));
                assertEquals(k, record % HeadersCrashWriterMain.KEYS, key + ": " + value);
                int lastAckedOfKey = lastAcked - Math.floorMod(lastAcked - k, HeadersCrashWriterMain.KEYS);
                assertTrue(
                        record >= lastAckedOfKey,
                        key + ": " + value + " is older than its last committed record " + lastAckedOfKey);
                Header seq = headers.lastHeader("seq");
                assertNotNull(seq, key + ": the header is gone");
                assertEquals(
                        Integer.toString(record),
                        new String(seq.value(), StandardCharsets.UTF_8),
                        key + ": another record's header");
                keys++;
            }
            assertEquals(HeadersCrashWriterMain.KEYS, keys);
        }
    }
}
