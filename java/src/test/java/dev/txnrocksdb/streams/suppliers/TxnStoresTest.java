package dev.txnrocksdb.streams.suppliers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionalStateStore;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.TxnKeyValueBytesStoreSupplier;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueBytesStoreSupplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class TxnStoresTest {
    @Test
    void factoriesSupplyStoresOfTheRequestedKind() {
        check(TxnStores.persistentKeyValueStore("a", true), "a", true, false);
        check(TxnStores.persistentKeyValueStore("b", false), "b", false, false);
        check(TxnStores.persistentTimestampedKeyValueStore("c", true), "c", true, true);
        check(TxnStores.persistentTimestampedKeyValueStore("d", false), "d", false, true);
        check(TxnStores.persistentTransactionalKeyValueStore("e"), "e", true, false);
        check(TxnStores.persistentTransactionalTimestampedKeyValueStore("f"), "f", true, true);
    }

    @Test
    void nullNameIsRejectedLikeKafkaStores() {
        for (Executable call : new Executable[] {
            () -> TxnStores.persistentKeyValueStore(null, true),
            () -> TxnStores.persistentTimestampedKeyValueStore(null, false),
            () -> TxnStores.persistentTransactionalKeyValueStore(null),
            () -> TxnStores.persistentTransactionalTimestampedKeyValueStore(null),
            () -> new TxnKeyValueStore(null, true),
        }) {
            assertEquals(
                    "name cannot be null",
                    assertThrows(NullPointerException.class, call).getMessage());
        }
    }

    private static void check(
            KeyValueBytesStoreSupplier supplier, String name, boolean transactional, boolean timestamped) {
        assertEquals(name, supplier.name());
        assertEquals("txn-rocksdb", supplier.metricsScope());
        boolean supplierTransactional = supplier instanceof TxnKeyValueBytesStoreSupplier
                ? ((TxnKeyValueBytesStoreSupplier) supplier).transactional()
                : ((TxnTimestampedKeyValueBytesStoreSupplier) supplier).transactional();
        assertEquals(transactional, supplierTransactional);
        KeyValueStore<Bytes, byte[]> first = supplier.get();
        assertNotSame(first, supplier.get());
        assertEquals(name, first.name());
        assertTrue(first instanceof TransactionalStateStore);
        assertEquals(transactional, ((TransactionalStateStore) first).transactional());
        assertEquals(timestamped, first instanceof TimestampedBytesStore);
        assertFalse(first.isOpen());
    }
}
