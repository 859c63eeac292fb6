package dev.txnrocksdb.streams.session;

/** Kafka's session store cases on write-through txn-rocksdb session stores. */
class TxnSessionStoreWriteThroughTest extends AbstractTxnSessionStoreTest {
    @Override
    boolean transactional() {
        return false;
    }
}
