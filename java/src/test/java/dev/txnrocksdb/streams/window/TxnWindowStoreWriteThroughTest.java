package dev.txnrocksdb.streams.window;

/** Kafka's window store cases on write-through txn-rocksdb window stores. */
class TxnWindowStoreWriteThroughTest extends AbstractTxnWindowStoreTest {
    @Override
    boolean transactional() {
        return false;
    }
}
