package dev.txnrocksdb.streams.session;

import dev.txnrocksdb.streams.TransactionStrategy;

/** Kafka's session store cases on transactional txn-rocksdb session stores with the secondary-store strategy. */
class TxnSessionStoreSecondaryStoreTest extends AbstractTxnSessionStoreTest {
    @Override
    boolean transactional() {
        return true;
    }

    @Override
    TransactionStrategy strategy() {
        return TransactionStrategy.SECONDARY_STORE;
    }
}
