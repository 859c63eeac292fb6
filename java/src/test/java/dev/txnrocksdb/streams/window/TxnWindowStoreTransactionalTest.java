package dev.txnrocksdb.streams.window;

/** Kafka's window store cases on transactional txn-rocksdb window stores. */
class TxnWindowStoreTransactionalTest extends AbstractTxnWindowStoreTest {
    @Override
    boolean transactional() {
        return true;
    }
}
