package dev.txnrocksdb.streams.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.StoreMetrics;
import dev.txnrocksdb.streams.internals.TxnWindowBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** {@link TxnStores}' window factories: what they supply, and argument checks identical to Kafka's {@code Stores}. */
public class TxnWindowStoreSupplierTest {
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final Duration SIZE = Duration.ofMinutes(5);

    @Test
    void factoriesSupplyStoresOfTheRequestedKind() {
        check(TxnStores.persistentWindowStore("a", RETENTION, SIZE, false, true), false, true, false);
        check(TxnStores.persistentWindowStore("a", RETENTION, SIZE, true, false), false, false, true);
        check(TxnStores.persistentTimestampedWindowStore("a", RETENTION, SIZE, false, false), true, false, false);
        check(TxnStores.persistentTransactionalWindowStore("a", RETENTION, SIZE, true), false, true, true);
        check(TxnStores.persistentTransactionalTimestampedWindowStore("a", RETENTION, SIZE, false), true, true, false);
    }

    private static void check(
            WindowBytesStoreSupplier supplier, boolean timestamped, boolean transactional, boolean dups) {
        TxnWindowBytesStoreSupplier ours = assertInstanceOf(TxnWindowBytesStoreSupplier.class, supplier);
        assertEquals("a", supplier.name());
        assertEquals(RETENTION.toMillis(), supplier.retentionPeriod());
        assertEquals(SIZE.toMillis(), supplier.windowSize());
        assertEquals(dups, supplier.retainDuplicates());
        assertEquals(transactional, ours.transactional());
        assertEquals(timestamped, ours.timestamped());
        assertEquals(1_800_000L, supplier.segmentIntervalMs());
        assertEquals(StoreMetrics.WINDOW_SCOPE, supplier.metricsScope());
        TxnWindowStore store = assertInstanceOf(TxnWindowStore.class, supplier.get());
        assertEquals(timestamped, store instanceof TimestampedBytesStore);
        assertEquals(transactional, store.transactional());
        assertEquals(RETENTION.toMillis(), store.retentionPeriod());
        assertEquals(1_800_000L, store.segmentInterval());
        assertFalse(store.isOpen());
        assertTrue(store.persistent());
    }

    @Test
    void segmentIntervalIsKafkasDefault() {
        assertEquals(
                60_000L,
                TxnStores.persistentWindowStore("a", Duration.ofSeconds(100), SIZE.ofSeconds(1), false, true)
                        .segmentIntervalMs());
        assertEquals(
                Stores.persistentWindowStore("a", Duration.ofDays(3), SIZE, false)
                        .segmentIntervalMs(),
                TxnStores.persistentWindowStore("a", Duration.ofDays(3), SIZE, false, true)
                        .segmentIntervalMs());
    }

    @Test
    void argumentChecksMatchKafkasStores() {
        List<Duration[]> cases = List.of(
                new Duration[] {Duration.ofMillis(-1), SIZE},
                new Duration[] {RETENTION, Duration.ofMillis(-1)},
                new Duration[] {Duration.ofMillis(10), Duration.ofMillis(11)},
                new Duration[] {Duration.ofSeconds(Long.MAX_VALUE), SIZE});
        for (Duration[] c : cases) {
            assertSameFailure(
                    () -> Stores.persistentWindowStore("w", c[0], c[1], false),
                    () -> TxnStores.persistentWindowStore("w", c[0], c[1], false, true));
            assertSameFailure(
                    () -> Stores.persistentTimestampedWindowStore("w", c[0], c[1], false),
                    () -> TxnStores.persistentTransactionalTimestampedWindowStore("w", c[0], c[1], false));
        }
        assertSameFailure(
                () -> Stores.persistentWindowStore(null, RETENTION, SIZE, false),
                () -> TxnStores.persistentTransactionalWindowStore(null, RETENTION, SIZE, false));
    }

    public static void assertSameFailure(Executable kafka, Executable ours) {
        Throwable expected = assertThrows(Throwable.class, kafka);
        Throwable actual = assertThrows(Throwable.class, ours);
        assertEquals(expected.getClass(), actual.getClass());
        assertEquals(expected.getMessage(), actual.getMessage());
    }
}
