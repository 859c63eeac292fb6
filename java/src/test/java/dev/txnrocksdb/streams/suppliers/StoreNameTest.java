package dev.txnrocksdb.streams.suppliers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.TxnSupplierBase;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.streams.errors.TopologyException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Store names follow Kafka's rules for names in a topology, so a store's directory
 * ({@code <task dir>/<name>}) can never leave its task directory: refused when the supplier is
 * created, by every factory.
 */
class StoreNameTest {
    private static final List<Function<String, Object>> FACTORIES = List.of(
            TxnStores::persistentTransactionalKeyValueStore,
            name -> TxnStores.persistentTransactionalWindowStore(
                    name, Duration.ofHours(1), Duration.ofMinutes(1), false),
            name -> TxnStores.persistentTransactionalSessionStore(name, Duration.ofHours(1)),
            name -> TxnStores.persistentKeyValueStore(name, false));

    @ParameterizedTest
    @ValueSource(strings = {"../escape", "a/b", "a\\b", "..", ".", "", "with space", "nul\0byte", "ümlaut"})
    void anIllegalNameIsRefusedWhenTheSupplierIsCreated(String name) {
        for (Function<String, Object> factory : FACTORIES) {
            TopologyException e =
                    assertThrows(TopologyException.class, () -> factory.apply(name), "name [" + name + "]");
            assertTrue(e.getMessage().contains("Store name"), e.getMessage());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"counts", "app.word-counts_v2", "KSTREAM-AGGREGATE-STATE-STORE-0000000001", "..a", "a..b"})
    void kafkasLegalNamesAreKept(String name) {
        for (Function<String, Object> factory : FACTORIES) {
            Object supplier = factory.apply(name);
            assertEquals(name, ((TxnSupplierBase) supplier).name());
        }
    }

    @org.junit.jupiter.api.Test
    void aNameLongerThanKafkaAllowsIsRefused() {
        TopologyException e = assertThrows(
                TopologyException.class, () -> TxnStores.persistentTransactionalKeyValueStore("a".repeat(250)));
        assertTrue(e.getMessage().contains("249"), e.getMessage());
    }
}
