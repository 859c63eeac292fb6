package dev.txnrocksdb.streams.session;

/** Kafka's session store cases on transactional txn-rocksdb session stores. */
class TxnSessionStoreTransactionalTest extends AbstractTxnSessionStoreTest {
    @Override
    boolean transactional() {
        return true;
    }
}
