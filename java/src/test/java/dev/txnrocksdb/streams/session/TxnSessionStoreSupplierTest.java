package dev.txnrocksdb.streams.session;

import static dev.txnrocksdb.streams.window.TxnWindowStoreSupplierTest.assertSameFailure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.StoreMetrics;
import dev.txnrocksdb.streams.internals.TxnSessionBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import java.time.Duration;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** {@link TxnStores}' session factories: what they supply, and argument checks identical to Kafka's {@code Stores}. */
class TxnSessionStoreSupplierTest {
    @Test
    void factoriesSupplyStoresOfTheRequestedKind() {
        check(TxnStores.persistentSessionStore("s", Duration.ofMinutes(30), false), false);
        check(TxnStores.persistentSessionStore("s", Duration.ofMinutes(30), true), true);
        check(TxnStores.persistentTransactionalSessionStore("s", Duration.ofMinutes(30)), true);
        assertEquals(
                Stores.persistentSessionStore("s", Duration.ofSeconds(5)).segmentIntervalMs(),
                TxnStores.persistentTransactionalSessionStore("s", Duration.ofSeconds(5))
                        .segmentIntervalMs());
    }

    private static void check(SessionBytesStoreSupplier supplier, boolean transactional) {
        TxnSessionBytesStoreSupplier ours = assertInstanceOf(TxnSessionBytesStoreSupplier.class, supplier);
        assertEquals("s", supplier.name());
        assertEquals(1_800_000L, supplier.retentionPeriod());
        assertEquals(900_000L, supplier.segmentIntervalMs());
        assertEquals(StoreMetrics.SESSION_SCOPE, supplier.metricsScope());
        assertEquals(transactional, ours.transactional());
        TxnSessionStore store = assertInstanceOf(TxnSessionStore.class, supplier.get());
        assertEquals(transactional, store.transactional());
        assertEquals(1_800_000L, store.retentionPeriod());
    }

    @Test
    void argumentChecksMatchKafkasStores() {
        assertSameFailure(
                () -> Stores.persistentSessionStore("s", Duration.ofMillis(-1)),
                () -> TxnStores.persistentTransactionalSessionStore("s", Duration.ofMillis(-1)));
        assertSameFailure(
                () -> Stores.persistentSessionStore("s", Duration.ofSeconds(Long.MAX_VALUE)),
                () -> TxnStores.persistentSessionStore("s", Duration.ofSeconds(Long.MAX_VALUE), false));
        assertSameFailure(
                () -> Stores.persistentSessionStore(null, Duration.ofSeconds(1)),
                () -> TxnStores.persistentSessionStore(null, Duration.ofSeconds(1), true));
        assertSameFailure(
                () -> Stores.persistentSessionStore("s", null),
                () -> TxnStores.persistentSessionStore("s", null, true));
    }
}
