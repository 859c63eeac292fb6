package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.txnrocksdb.streams.TxnStores;
import java.time.Duration;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.VersionedBytesStoreSupplier;
import org.junit.jupiter.api.Test;

/**
 * Kafka's default segment intervals are computed in one language, Java (the suppliers'
 * {@code segmentIntervalMs()}, handed to every native {@code open}); the engine keeps no copy. The
 * assertions the engine's own copies had (rust/core: {@code SegmentOptions::kafka_default},
 * {@code VersionedOptions::kafka_default}) are made here, on the owner, and against Kafka's suppliers.
 */
class SegmentIntervalDefaultsTest {
    @Test
    void windowAndSessionStoresUseHalfTheRetentionAndAtLeastAMinute() {
        assertEquals(
                60_000L,
                TxnStores.persistentTransactionalSessionStore("s", Duration.ofMillis(10_000))
                        .segmentIntervalMs());
        assertEquals(
                500_000L,
                TxnStores.persistentTransactionalSessionStore("s", Duration.ofMillis(1_000_000))
                        .segmentIntervalMs());
        for (long retention : new long[] {10_000, 1_000_000}) {
            assertEquals(
                    Stores.persistentSessionStore("s", Duration.ofMillis(retention))
                            .segmentIntervalMs(),
                    TxnStores.persistentTransactionalSessionStore("s", Duration.ofMillis(retention))
                            .segmentIntervalMs());
        }
    }

    /**
     * A versioned supplier's {@code segmentIntervalMs()}, which Kafka's interface does not declare
     * (both implementations have it).
     */
    private static long segmentInterval(VersionedBytesStoreSupplier supplier) throws ReflectiveOperationException {
        return (long) supplier.getClass().getMethod("segmentIntervalMs").invoke(supplier);
    }

    private static long ours(long historyRetentionMs) throws ReflectiveOperationException {
        return segmentInterval(TxnStores.persistentVersionedKeyValueStore("v", Duration.ofMillis(historyRetentionMs)));
    }

    @Test
    void versionedStoresUseKafkasIntervalForTheirHistoryRetention() throws ReflectiveOperationException {
        assertEquals(2_000L, ours(1000));
        assertEquals(3_600_000L, ours(86_400_000));
        for (long retention : new long[] {1000, 60_000, 200_000, 3_000_000, 86_400_000}) {
            assertEquals(
                    segmentInterval(Stores.persistentVersionedKeyValueStore("v", Duration.ofMillis(retention))),
                    ours(retention),
                    "history retention " + retention);
        }
    }
}
